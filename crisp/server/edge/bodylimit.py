"""Request bodies at the edge: read whole before the app sees them, bounded in size
and in time (docs/deploy.md, "Limits")."""

from __future__ import annotations

import asyncio

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from crisp.server.ops.hooks import ServerHooks
from crisp.server.wire.failures import error_response
from crisp.server.wire.vocabulary import ServerErrorCode

MAX_BODY_BYTES = 16 * 1024


class BodyLimit:
    """Read every HTTP request body before the app sees it: over `limit` bytes is
    413 `too_large` (declared or chunked), and a body that has not arrived within
    `timeout_s` of the headers is 408 `request_timeout` with `Connection: close`,
    so a slow upload holds nothing for long. The app then reads the buffered body."""

    def __init__(
        self, app: ASGIApp, limit: int, timeout_s: float = 10.0, hooks: ServerHooks | None = None
    ) -> None:
        self.app = app
        self.limit = limit
        self.timeout_s = timeout_s
        self.hooks = hooks or ServerHooks()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length", b"")
        if declared.isdigit() and int(declared) > self.limit:
            await self._refuse(413, ServerErrorCode.TOO_LARGE, "request body too large",
                               scope, receive, send)
            return
        parts: list[bytes] = []
        first: Message | None = None
        seen = 0
        try:
            async with asyncio.timeout(self.timeout_s):
                while True:
                    message = await receive()
                    if message["type"] != "http.request":  # the client went away
                        first = message
                        break
                    chunk = message.get("body", b"")
                    seen += len(chunk)
                    if seen > self.limit:
                        await self._refuse(413, ServerErrorCode.TOO_LARGE,
                                           "request body too large", scope, receive, send)
                        return
                    parts.append(chunk)
                    if not message.get("more_body", False):
                        break
        except TimeoutError:
            self.hooks.connection_dropped("body_timeout")
            await self._refuse(408, ServerErrorCode.REQUEST_TIMEOUT,
                               "the request body did not arrive in time", scope, receive, send,
                               {"Connection": "close"})
            return
        if first is None:
            first = {"type": "http.request", "body": b"".join(parts), "more_body": False}
        replayed = False

        async def buffered() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                assert first is not None
                return first
            return await receive()

        await self.app(scope, buffered, send)

    async def _refuse(
        self, status: int, error_code: str, message: str, scope: Scope, receive: Receive,
        send: Send, headers: dict[str, str] | None = None,
    ) -> None:
        self.hooks.http_error(status, error_code)
        await error_response(status, error_code, message, headers)(scope, receive, send)


