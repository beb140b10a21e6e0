"""The Crisp game server (docs/architecture.md has the map).

`app.create_app` builds the FastAPI application from its parts, and
`context.start_context` the graph of one process (store, rooms, hub, scheduler,
presence, limits), each part given what it calls at construction; `main.run`
serves it with uvicorn. The parts, bottom up: `wire` (what crosses the network),
`ops` (settings, logs, metrics), `edge` (strangers), `rooms` (a room's life),
`sockets` and `http` (the two doors).
"""
