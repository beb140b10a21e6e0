"""The FastAPI application factory (`create_app`), used by uvicorn and by tests.

`create_app` assembles named steps: the lifespan (`context.start_context` /
`stop_context`, and the web client's brotli pass), the middlewares (HEAD as
GET, security headers, body limit, CORS), the error handlers (`http/errors.py`), the
API and websocket routes, `/metrics`, and the static web client
(`static.add_web_client`).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import Response
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from crisp.server.context import ServerContext, start_context, stop_context
from crisp.server.edge.bodylimit import MAX_BODY_BYTES, BodyLimit
from crisp.server.edge.transport import GUARD_KEY
from crisp.server.http import games, rounds, seat_move_routes, testclock
from crisp.server.http.api import router
from crisp.server.http.errors import install_handlers
from crisp.server.http.headers import SecurityHeaders
from crisp.server.http.static import HeadAsGet, WebClient, add_web_client, web_dir_for
from crisp.server.ops import gctune, looplag
from crisp.server.ops.hooks import ServerHooks
from crisp.server.ops.metrics import CONTENT_TYPE, PrometheusHooks
from crisp.server.ops.settings import Settings
from crisp.server.sockets.endpoint import websocket_endpoint
from crisp.server.sockets.route import DirectSockets
from crisp.server.wire.failures import error_response
from crisp.server.wire.vocabulary import ServerErrorCode

log = logging.getLogger("crisp.server")

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
    # /ws/{code} straight to its endpoint, past the layers above (issue 27)
    app.add_middleware(DirectSockets, endpoint=websocket_endpoint)
    if settings.allowed_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=settings.allowed_origins,
            allow_methods=["GET", "POST"],
            allow_headers=["content-type", "authorization"],  # v1.2: Bearer tokens
        )
    if settings.trusted_proxies:  # outermost: everything after sees the real client
        app.add_middleware(ProxyHeadersMiddleware, trusted_hosts=settings.trusted_proxies)
    install_handlers(app, the_hooks)
    app.include_router(router)
    app.include_router(games.router)  # v2: GET /api/games
    app.include_router(seat_move_routes.router)  # R18.5
    app.include_router(rounds.router)  # R18.2, R18.3
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
