"""`/ws/{code}` ahead of the HTTP middlewares and the router (issue 27).

A websocket lives as long as its player sits, and every frame it sends went
through each ASGI layer between uvicorn and the endpoint: FastAPI's exception
wrappers (a `send` wrapper each), the router, the route's two exit stacks, and
the HTTP middlewares, which only pass websockets through (HEAD as GET, security
headers, body limit). `DirectSockets` sits inside the server-error middleware
and the proxy-headers and CORS middlewares (so `scope["client"]` is already the
client, `scope["app"]` the application) and hands a `/ws/{code}` scope straight
to the endpoint; everything else goes on as before, a websocket on any other
path included (closed by the web client's catch-all, static.py). Fewer frames
per socket held for its whole life (memory per seated socket) and fewer calls
per frame sent.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable

from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocket

Endpoint = Callable[[WebSocket, str], Awaitable[None]]
_PATH = re.compile(r"/ws/([^/]+)")


class DirectSockets:
    """An ASGI middleware: `/ws/{code}` to `endpoint(websocket, code)` directly."""

    def __init__(self, app: ASGIApp, endpoint: Endpoint) -> None:
        self.app = app
        self.endpoint = endpoint

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            path: str = scope["path"]
            root = scope.get("root_path", "")
            if root and path.startswith(root):
                path = path[len(root) :]
            found = _PATH.fullmatch(path)
            if found is not None:
                await self.endpoint(WebSocket(scope, receive, send), found.group(1))
                return
        await self.app(scope, receive, send)
