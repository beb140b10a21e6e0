"""The FastAPI application factory (`create_app`), used by uvicorn and by tests.

`create_app` assembles named steps: the lifespan (`context.start_context` /
`stop_context`, and the web client's brotli pass), the middlewares (HEAD as
GET, security headers, body limit, CORS), the error handlers (`failures.install_handlers`), the
API and websocket routes, `/metrics`, and the static web client
(`static.add_web_client`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from crisp.server.context import ServerContext, start_context, stop_context
from crisp.server.edge.transport import GUARD_KEY
from crisp.server.http import testclock
from crisp.server.http.api import router
from crisp.server.http.headers import SecurityHeaders
from crisp.server.http.static import HeadAsGet, WebClient, add_web_client, web_dir_for
from crisp.server.ops import gctune, looplag
from crisp.server.ops.hooks import ServerHooks
from crisp.server.ops.metrics import CONTENT_TYPE, PrometheusHooks
from crisp.server.ops.settings import Settings
from crisp.server.sockets.endpoint import websocket_endpoint
from crisp.server.wire.failures import error_response, install_handlers
from crisp.server.wire.vocabulary import ServerErrorCode

log = logging.getLogger("crisp.server")

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


def create_app(settings: Settings | None = None, *, hooks: ServerHooks | None = None) -> FastAPI:
    """Build the app. Settings default to the `CRISP_*` environment; hooks default to
    a `PrometheusHooks` with its own registry, served at `GET /metrics` (other hooks:
    `/metrics` answers 404)."""
    settings = settings or Settings()
    the_hooks = hooks if hooks is not None else PrometheusHooks()
    web = WebClient(web_dir_for(settings), settings.public_url)
    app = FastAPI(
        title="Crisp",
        version="1",
        lifespan=_lifespan(settings, the_hooks, web),
        docs_url=None,
        redoc_url=None,
        openapi_url="/api/openapi.json",
    )
    # request bodies here are tiny
    app.add_middleware(
        BodyLimit, limit=MAX_BODY_BYTES, timeout_s=settings.body_timeout_s, hooks=the_hooks
    )
    app.add_middleware(SecurityHeaders)
    app.add_middleware(HeadAsGet)  # outermost of these: HEAD runs every step as GET
    if settings.allowed_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=settings.allowed_origins,
            allow_methods=["GET", "POST"],
            allow_headers=["content-type"],
        )
    if settings.trusted_proxies:  # outermost: everything after sees the real client
        app.add_middleware(ProxyHeadersMiddleware, trusted_hosts=settings.trusted_proxies)
    install_handlers(app, the_hooks)
    app.include_router(router)
    if settings.clock == "manual":  # a test hook (settings: test hooks on)
        app.include_router(testclock.router)
    app.add_api_websocket_route("/ws/{code}", websocket_endpoint)
    app.add_api_route("/metrics", _metrics, methods=["GET"], include_in_schema=False)
    add_web_client(app, web)
    return app


def _lifespan(
    settings: Settings, hooks: ServerHooks, web: WebClient
) -> Callable[[FastAPI], AbstractAsyncContextManager[dict[str, Any]]]:
    """Start the server context before serving, stop it after."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[dict[str, Any]]:
        ctx = await start_context(settings, hooks)
        app.state.ctx = ctx
        web.start()
        lag_probe = looplag.start_from_env()  # benchmarks only
        if getattr(app.state, "tune_gc", False):  # a process of its own (`serve_app`)
            gctune.tune()
        log.info(
            "crisp server ready (store: %s, web client: %s, connections: at most %d, "
            "%d per client)",
            "redis" if settings.redis_url else "memory",
            web.assets.root if web.assets else "absent",
            ctx.guard.max_total,
            ctx.guard.max_per_client,
        )
        try:
            yield {GUARD_KEY: ctx.guard}  # uvicorn hands it to its protocols (transport.py)
        finally:
            await looplag.stop(lag_probe)
            await stop_context(ctx)

    return lifespan


def serve_app() -> FastAPI:
    """The app of `crisp serve`: `create_app()` in a process of its own, whose garbage
    collector it tunes once started (gctune.py). Tests build `create_app` instead."""
    app = create_app()
    app.state.tune_gc = True
    return app


async def _metrics(request: Request) -> Response:
    """Prometheus text format, when the hooks are `PrometheusHooks`."""
    ctx: ServerContext = request.app.state.ctx
    if not isinstance(ctx.hooks, PrometheusHooks):
        return error_response(404, ServerErrorCode.NOT_FOUND, "metrics are not enabled")
    await ctx.hooks.refresh(ctx.store, ctx.hub.connection_count)
    return Response(
        ctx.hooks.render(), media_type=CONTENT_TYPE, headers={"Cache-Control": "no-store"}
    )
