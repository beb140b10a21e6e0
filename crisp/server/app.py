"""The FastAPI application factory (`create_app`), used by uvicorn and by tests."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

import crisp
from crisp.store import StoreUnavailable, create_store

from .api import router
from .connection import CLOSE_RESTART
from .context import ServerContext
from .errors import ApiError
from .hooks import ServerHooks
from .hub import Hub
from .logs import fields
from .metrics import CONTENT_TYPE, PrometheusHooks
from .observed import ObservedStore
from .rooms import Rooms
from .scheduler import Scheduler
from .settings import Settings
from .ws import websocket_endpoint

log = logging.getLogger("crisp.server")

SHUTDOWN_STEP_S = 2.0  # bound of each shutdown step (unsubscribing, closing the store)
MAX_BODY_BYTES = 16 * 1024

_HTTP_CODES = {
    400: "bad_request",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    413: "too_large",
    422: "bad_request",
}


def web_dir_for(settings: Settings) -> Path | None:
    """The static client directory (CRISP_WEB_DIR, else `web/` next to the package)."""
    path = settings.web_dir or Path(crisp.__file__).resolve().parent.parent / "web"
    return path if path.is_dir() else None


def _error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status)


class BodyLimit:
    """Refuse HTTP request bodies over `limit` bytes with 413 `too_large` (JSON)."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length", b"")
        if declared.isdigit() and int(declared) > self.limit:
            await _error(413, "too_large", "request body too large")(scope, receive, send)
            return
        seen = 0

        async def limited() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    raise ApiError(413, "too_large", "request body too large")
            return message

        await self.app(scope, limited, send)


def create_app(settings: Settings | None = None, *, hooks: ServerHooks | None = None) -> FastAPI:
    """Build the app. Settings default to the `CRISP_*` environment; hooks default to
    a `PrometheusHooks` with its own registry, served at `GET /metrics` (other hooks:
    `/metrics` answers 404)."""
    settings = settings or Settings()
    the_hooks = hooks if hooks is not None else PrometheusHooks()
    web_dir = web_dir_for(settings)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        inner = create_store(settings.redis_url, idle_ttl_s=settings.room_idle_ttl_s)
        store = ObservedStore(inner, the_hooks)
        await store.start()
        scheduler = Scheduler(store)
        rooms = Rooms(
            store,
            time_scale=settings.effective_time_scale,
            hooks=the_hooks,
            on_deadline=scheduler.notify,
        )
        hub = Hub(store, the_hooks)
        app.state.ctx = ServerContext(
            settings=settings,
            hooks=the_hooks,
            store=store,
            rooms=rooms,
            hub=hub,
            scheduler=scheduler,
            web_dir=web_dir,
        )
        scheduler.start(rooms)
        log.info(
            "crisp server ready (store: %s, web client: %s)",
            "redis" if settings.redis_url else "memory",
            web_dir or "absent",
        )
        try:
            yield
        finally:
            # uvicorn has already closed every socket with 1012 and waited for their
            # handlers (timeout_graceful_shutdown); close any left the same way.
            log.info("crisp server stopping", extra=fields(event="shutdown"))
            conns = hub.close_all(CLOSE_RESTART, "server restarting")
            if conns:
                await asyncio.gather(*(c.wait_closed(1.0) for c in conns))
                await asyncio.sleep(0.05)  # let their handlers finish
            await scheduler.stop()
            for step, what in ((hub.unsubscribe_all, "unsubscribing"), (store.close, "store")):
                try:
                    await asyncio.wait_for(step(), SHUTDOWN_STEP_S)
                except Exception as exc:  # never let shutdown hang or fail
                    log.warning("shutdown: %s failed: %r", what, exc)

    app = FastAPI(
        title="Crisp",
        version="1",
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
        openapi_url="/api/openapi.json",
    )
    app.add_middleware(BodyLimit, limit=MAX_BODY_BYTES)  # request bodies here are tiny
    app.state.settings = settings

    if settings.allowed_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=settings.allowed_origins,
            allow_methods=["GET", "POST"],
            allow_headers=["content-type"],
        )

    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError) -> Response:
        the_hooks.http_error(exc.status, exc.code)
        return _error(exc.status, exc.code, exc.message)

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError) -> Response:
        the_hooks.http_error(422, "bad_request")
        errs = exc.errors()
        detail = "; ".join(
            f"{'.'.join(str(p) for p in e.get('loc', ()))}: {e.get('msg')}" for e in errs[:3]
        )
        return _error(422, "bad_request", detail or "invalid request")

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> Response:
        code = _HTTP_CODES.get(exc.status_code, "http_error")
        the_hooks.http_error(exc.status_code, code)
        return _error(exc.status_code, code, str(exc.detail))

    @app.exception_handler(StoreUnavailable)
    async def _store_down(request: Request, exc: StoreUnavailable) -> Response:
        log.warning("store unavailable on %s %s: %s", request.method, request.url.path, exc)
        the_hooks.http_error(503, "store_unavailable")
        return _error(503, "store_unavailable", "the server cannot reach its store; try again")

    @app.exception_handler(Exception)
    async def _internal(request: Request, exc: Exception) -> Response:
        log.exception("unhandled error on %s %s", request.method, request.url.path)
        the_hooks.http_error(500, "internal")
        return _error(500, "internal", "internal server error")

    app.include_router(router)
    app.add_api_websocket_route("/ws/{code}", websocket_endpoint)

    async def metrics(request: Request) -> Response:
        ctx: ServerContext = request.app.state.ctx
        if not isinstance(ctx.hooks, PrometheusHooks):
            return _error(404, "not_found", "metrics are not enabled")
        await ctx.hooks.refresh(ctx.store, ctx.hub.connection_count)
        return Response(
            ctx.hooks.render(), media_type=CONTENT_TYPE, headers={"Cache-Control": "no-store"}
        )

    app.add_api_route("/metrics", metrics, methods=["GET"], include_in_schema=False)

    async def index() -> Response:
        if web_dir is None or not (web_dir / "index.html").is_file():
            return _error(404, "not_found", "the web client is not installed")
        return FileResponse(web_dir / "index.html", headers={"Cache-Control": "no-cache"})

    async def index_for_room(code: str) -> Response:
        return await index()

    app.add_api_route("/", index, methods=["GET"], include_in_schema=False)
    app.add_api_route("/r/{code}", index_for_room, methods=["GET"], include_in_schema=False)
    if web_dir is not None:
        app.mount("/", StaticFiles(directory=web_dir), name="web")
    else:
        log.warning("no web client directory found; serving the API only")
    return app
