"""HTTP routes (protocol.md "HTTP"): rooms, players, health, the protocol schema.

Errors are always `{"error": {"code", "message"}}` (see `app.py` for the
handlers that reshape FastAPI's own 404/422 answers).
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, Request
from fastapi.responses import JSONResponse

from crisp.engine import IllegalAction

from .codes import normalize_code
from .context import ServerContext
from .errors import ApiError, RoomBusy, RoomNotFound
from .messages import protocol_schema
from .names import clean_name
from .origin import origin_allowed
from .rooms import Seat

_CARD = re.compile(r"^[A2-9TJQK][SHDC]$")
MAX_SEATS = 8

router = APIRouter()


def _ctx(request: Request) -> ServerContext:
    ctx: ServerContext = request.app.state.ctx
    return ctx


def _same_origin(request: Request) -> None:
    """Refuse state-changing requests from foreign browser origins (403 origin_refused)."""
    settings = _ctx(request).settings
    if not origin_allowed(
        request.headers.get("origin"), request.headers.get("host"), settings.allowed_origins
    ):
        raise ApiError(403, "origin_refused", "requests from this origin are not allowed")


def _seat_response(seat: Seat) -> JSONResponse:
    return JSONResponse(
        {"code": seat.code, "player_id": seat.player_id, "token": seat.token},
        status_code=201,
        headers={"Cache-Control": "no-store"},
    )


def _name(body: dict[str, Any]) -> str:
    name = clean_name(body.get("name"))
    if name is None:
        raise ApiError(
            422,
            "bad_name",
            "a name is 1 to 20 characters after trimming, without control characters",
        )
    return name


def _room_code(raw: str) -> str:
    code = normalize_code(raw)
    if code is None:
        raise ApiError(404, "not_found", "no such room")
    return code


def _test_hooks(body: dict[str, Any], enabled: bool) -> tuple[list[str] | None, int | None]:
    deck = body.get("deck")
    dealer = body.get("dealer")
    if "deck" not in body and "dealer" not in body:
        return None, None
    if not enabled:
        raise ApiError(
            422, "test_hooks_off", "deck and dealer are only accepted with CRISP_TEST_HOOKS=1"
        )
    if deck is not None and (
        not isinstance(deck, list)
        or len(deck) != 52
        or not all(isinstance(c, str) and _CARD.match(c) for c in deck)
        or len(set(deck)) != 52
    ):
        raise ApiError(422, "bad_deck", "deck must be 52 distinct cards like \"TD\"")
    if dealer is not None and (
        not isinstance(dealer, int) or isinstance(dealer, bool) or not 0 <= dealer < MAX_SEATS
    ):
        raise ApiError(422, "bad_dealer", "dealer must be a seat index from 0 to 7")
    return deck, dealer


@router.post("/api/rooms", status_code=201, dependencies=[Depends(_same_origin)])
async def create_room(
    request: Request, body: Annotated[dict[str, Any], Body()]
) -> JSONResponse:
    """Create a room; the creator is the host (p1). Test hooks: `deck`, `dealer`."""
    ctx = _ctx(request)
    name = _name(body)
    deck, dealer = _test_hooks(body, ctx.settings.test_hooks)
    try:
        seat = await ctx.rooms.create(name, deck=deck, dealer=dealer)
    except (IllegalAction, ValueError) as exc:
        raise ApiError(422, "bad_request", str(getattr(exc, "message", exc))) from exc
    return _seat_response(seat)


@router.post(
    "/api/rooms/{code}/players", status_code=201, dependencies=[Depends(_same_origin)]
)
async def join_room(
    request: Request, code: str, body: Annotated[dict[str, Any], Body()]
) -> JSONResponse:
    """Join a room in its lobby."""
    ctx = _ctx(request)
    room = _room_code(code)
    name = _name(body)
    try:
        seat = await ctx.rooms.join(room, name)
    except RoomNotFound as exc:
        raise ApiError(404, "not_found", "no such room") from exc
    except RoomBusy as exc:
        raise ApiError(503, "busy", "the room is busy; try again") from exc
    except IllegalAction as exc:
        status = 409 if exc.code in ("room_full", "game_started") else 422
        raise ApiError(status, str(exc.code), str(exc.message)) from exc
    return _seat_response(seat)


@router.get("/api/rooms/{code}")
async def get_room(request: Request, code: str) -> dict[str, Any]:
    """Public lobby information about a room."""
    room = _room_code(code)
    try:
        return await _ctx(request).rooms.summary(room)
    except RoomNotFound as exc:
        raise ApiError(404, "not_found", "no such room") from exc


@router.get("/api/protocol.json")
async def protocol_json() -> dict[str, Any]:
    """JSON Schema of every websocket message."""
    return protocol_schema()


@router.get("/healthz")
async def healthz() -> dict[str, str]:
    """200 while the process is up."""
    return {"status": "ok"}


@router.get("/readyz")
async def readyz(request: Request) -> JSONResponse:
    """200 when the store answers, else 503."""
    ctx = _ctx(request)
    try:
        ok = await ctx.store.ping()
    except Exception:
        ok = False
    if not ok:
        ctx.hooks.http_error(503, "store_unavailable")
        return JSONResponse(
            {"error": {"code": "store_unavailable", "message": "the store does not answer"}},
            status_code=503,
        )
    return JSONResponse({"status": "ready"})
