"""Server-side exceptions and how each one is answered: one table for HTTP and sockets.

`failure_of(exc)` gives the `Failure` for an exception: its error code and
message, the HTTP status of an HTTP answer, and, on a socket past hello, the
close (code, reason, end reason) that replaces the `error` message when the
socket cannot go on. `http/errors.py` answers HTTP with it (`{"error": {"code",
"message"}}`); `sockets/endpoint.py` answers sockets with it.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from crisp.engine import ActionError, ErrorCode
from crisp.games.api import GameError
from crisp.server.wire.vocabulary import CloseCode, EndReason, ServerErrorCode
from crisp.store import OutcomeUnknown, StoreUnavailable

log = logging.getLogger("crisp.server")


class ApiError(Exception):
    """An HTTP error answered as `{"error": {"code", "message"}}`."""

    def __init__(self, status: int, error_code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.error_code = error_code
        self.message = message


class RoomNotFound(Exception):
    """The room does not exist (never created, expired or deleted)."""


class RoomBusy(Exception):
    """A change kept losing compare-and-set races; the client may retry (error `busy`)."""


class SeatGone(Exception):
    """The player's seat no longer exists (kicked) although their socket is open."""


class RateLimited(Exception):
    """A client spent a budget (`limits.py`): HTTP 429 `rate_limited` with `Retry-After`."""

    def __init__(self, budget: str, retry_after_s: float) -> None:
        super().__init__(f"{budget}: retry after {retry_after_s:.1f} s")
        self.budget = budget
        self.retry_after_s = retry_after_s

    @property
    def retry_after(self) -> int:
        """Whole seconds, at least 1 (the `Retry-After` header)."""
        return max(1, math.ceil(self.retry_after_s))


class TooManyRooms(RateLimited):
    """The server holds its cap of rooms (`CRISP_MAX_ROOMS`): HTTP 503 `too_many_rooms`
    with `Retry-After`, for every client."""

    def __init__(self, retry_after_s: float) -> None:
        super().__init__("rooms_total", retry_after_s)


class RoomLocked(Exception):
    """The room's lobby is locked (after a kick, until the host opens it): no one joins."""


class NameTaken(Exception):
    """Another player of the room has this name (compared by `names.name_key`)."""


@dataclass(frozen=True)
class SocketClose:
    """How a socket past hello is closed instead of being sent an `error`."""

    close_code: CloseCode
    reason: str
    end_reason: EndReason


@dataclass(frozen=True)
class Failure:
    """The answer to one failure, on every channel."""

    error_code: str
    message: str
    http_status: int
    close: SocketClose | None = None  # None: the socket gets an `error` and stays open
    rule: str | None = None  # the rule an engine refusal cites


_STORE_DOWN_MESSAGE = "the server cannot reach its store; nothing changed, try again"
_OUTCOME_UNKNOWN_MESSAGE = (
    "the server could not learn whether this was saved; wait for the next update"
)

FAILURES: dict[type[Exception], Failure] = {
    RoomNotFound: Failure(
        ServerErrorCode.NOT_FOUND, "no such room", 404,
        SocketClose(CloseCode.ROOM_GONE, "room no longer exists", EndReason.ROOM_GONE),
    ),
    SeatGone: Failure(
        ServerErrorCode.NOT_FOUND, "no such seat", 404,
        SocketClose(CloseCode.KICKED, "kicked", EndReason.KICKED),
    ),
    RoomBusy: Failure(ServerErrorCode.BUSY, "the room is busy; try again", 503),
    TooManyRooms: Failure(
        ServerErrorCode.TOO_MANY_ROOMS, "the server holds all the rooms it can; try later", 503
    ),
    RateLimited: Failure(
        ServerErrorCode.RATE_LIMITED, "too many requests; try again later", 429
    ),
    RoomLocked: Failure(
        ServerErrorCode.ROOM_LOCKED, "the host has locked this room; ask them to open it", 409
    ),
    NameTaken: Failure(
        ServerErrorCode.NAME_TAKEN, "someone in this room already has that name", 409
    ),
    StoreUnavailable: Failure(ServerErrorCode.STORE_UNAVAILABLE, _STORE_DOWN_MESSAGE, 503),
    OutcomeUnknown: Failure(ServerErrorCode.OUTCOME_UNKNOWN, _OUTCOME_UNKNOWN_MESSAGE, 503),
}

# An unexpected exception: over HTTP, and while a socket's message was handled.
HTTP_INTERNAL = Failure(ServerErrorCode.INTERNAL, "internal server error", 500)
SOCKET_INTERNAL = Failure(
    ServerErrorCode.INTERNAL, "the server failed to handle this message", 500
)

# Statuses FastAPI/Starlette raise themselves (unknown path, wrong method, bad body).
HTTP_STATUS_CODES: dict[int, str] = {
    400: ServerErrorCode.BAD_REQUEST,
    403: ServerErrorCode.FORBIDDEN,
    404: ServerErrorCode.NOT_FOUND,
    405: ServerErrorCode.METHOD_NOT_ALLOWED,
    413: ServerErrorCode.TOO_LARGE,
    422: ServerErrorCode.BAD_REQUEST,
}
# Engine refusals answered 409 Conflict over HTTP (protocol.md); the others 422.
_CONFLICTS = frozenset({ErrorCode.ROOM_FULL, ErrorCode.GAME_STARTED})


def _dotted(loc: tuple[Any, ...]) -> str:
    return ".".join(str(part) for part in loc)


def validation_lines(
    errors: Sequence[Any], name_of: Callable[[tuple[Any, ...]], str] = _dotted
) -> list[str]:
    """Pydantic errors as text, one `name: msg` per error (`name_of(loc)`; just
    `msg` when the name is empty). The one place pydantic's errors are worded."""
    lines = []
    for err in errors:
        name = name_of(tuple(err.get("loc", ())))
        msg = str(err.get("msg", "invalid value"))
        lines.append(f"{name}: {msg}" if name else msg)
    return lines


def describe_validation(errors: Sequence[Any], fallback: str, *, limit: int = 3) -> str:
    """The first `limit` pydantic errors as one line (`loc: msg; ...`), for an HTTP
    body or a socket's `bad_message`."""
    return "; ".join(validation_lines(list(errors)[:limit])) or fallback


def failure_of(exc: BaseException) -> Failure | None:
    """The answer to `exc`, or None for an unexpected exception (answer `internal`)."""
    if isinstance(exc, ActionError):  # IllegalAction, or InvalidAction (bad_message)
        status = 409 if exc.code in _CONFLICTS else 422
        return Failure(str(exc.code), str(exc.message), status, rule=exc.rule)
    if isinstance(exc, GameError):  # a table room's refusal: the table's or its game's
        status = 409 if exc.code in _CONFLICTS else 422
        return Failure(str(exc.code), exc.message, status, rule=exc.rule)
    if isinstance(exc, ApiError):
        return Failure(exc.error_code, exc.message, exc.status)
    if isinstance(exc, RequestValidationError):
        message = describe_validation(exc.errors(), "invalid request")
        return Failure(ServerErrorCode.BAD_REQUEST, message, 422)
    if isinstance(exc, StarletteHTTPException):
        error_code = HTTP_STATUS_CODES.get(exc.status_code, ServerErrorCode.HTTP_ERROR)
        return Failure(error_code, str(exc.detail), exc.status_code)
    for kind in type(exc).__mro__:
        found = FAILURES.get(kind)
        if found is not None:
            return found
    return None


def error_body(error_code: str, message: str) -> dict[str, Any]:
    """`{"error": {"code", "message"}}`."""
    return {"error": {"code": error_code, "message": message}}


def error_response(
    status: int, error_code: str, message: str, headers: dict[str, str] | None = None
) -> JSONResponse:
    """An HTTP error body: `{"error": {"code", "message"}}`."""
    return JSONResponse(error_body(error_code, message), status_code=status, headers=headers)


def failure_headers(exc: BaseException) -> dict[str, str] | None:
    """Headers an HTTP error answer carries: `Retry-After` for RateLimited (and
    TooManyRooms)."""
    if isinstance(exc, RateLimited):
        return {"Retry-After": str(exc.retry_after)}
    return None
