"""The Crisp game server: HTTP lobby API, websocket endpoint, fan-out and timers.

`create_app` (in `crisp.server.app`) builds the FastAPI application;
`run` (in `crisp.server.main`) serves it with uvicorn.
"""
