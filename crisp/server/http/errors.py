"""HTTP error answers: `{"error": {"code", "message"}}` for every exception of the
failure table (wire/failures.py), and for any other as 500 `internal`."""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from crisp.engine import ActionError
from crisp.games.api import GameError
from crisp.server.ops.hooks import ServerHooks
from crisp.server.wire.failures import (
    FAILURES,
    HTTP_INTERNAL,
    ApiError,
    error_response,
    failure_headers,
    failure_of,
)
from crisp.store import StoreUnavailable

log = logging.getLogger("crisp.server")


def install_handlers(app: FastAPI, hooks: ServerHooks) -> None:
    """Answer every exception of the table (and any other, as 500 `internal`) with the
    HTTP error shape, reporting each answer to `hooks.http_error`."""

    async def answer(request: Request, exc: Exception) -> Response:
        failure = failure_of(exc)
        if failure is None:
            log.exception("unhandled error on %s %s", request.method, request.url.path)
            failure = HTTP_INTERNAL
        elif isinstance(exc, StoreUnavailable):
            log.warning("store unavailable on %s %s: %s", request.method, request.url.path, exc)
        hooks.http_error(failure.http_status, failure.error_code)
        return error_response(
            failure.http_status, failure.error_code, failure.message, failure_headers(exc)
        )

    handled: tuple[type[Exception], ...] = (
        ApiError, ActionError, GameError, RequestValidationError, StarletteHTTPException, *FAILURES,
        Exception,
    )
    for kind in handled:
        app.add_exception_handler(kind, answer)
