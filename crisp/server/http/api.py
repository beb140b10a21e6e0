"""HTTP routes (protocol.md "HTTP"): rooms, players, health, the protocol schema.

Errors are always `{"error": {"code", "message"}}`: routes raise, and the
handlers of `http/errors.py` answer from the one table in `wire/failures.py`
(also FastAPI's own 404/405/422).
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, Request
from fastapi.responses import JSONResponse

from crisp.engine import IllegalAction
from crisp.games.registry import DEFAULT
from crisp.server.context import ServerContext
from crisp.server.edge.clients import client_of
from crisp.server.edge.limits import Kind
from crisp.server.edge.names import clean_name
from crisp.server.edge.origin import origin_allowed
from crisp.server.http.games import game_named
from crisp.server.rooms.codes import normalize_code
from crisp.server.rooms.service import SeatCredentials
from crisp.server.wire.failures import ApiError, RoomNotFound, error_response
from crisp.server.wire.schema import protocol_schema
from crisp.server.wire.vocabulary import ServerErrorCode

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
        raise ApiError(
            403, ServerErrorCode.ORIGIN_REFUSED, "requests from this origin are not allowed"
        )


def _credentials_response(credentials: SeatCredentials) -> JSONResponse:
    return JSONResponse(
        {
            "code": credentials.room_code,
            "player_id": credentials.player_id,
            "token": credentials.token,
        },
        status_code=201,
        headers={"Cache-Control": "no-store"},
    )


def _name(body: dict[str, Any]) -> str:
    name = clean_name(body.get("name"))
    if name is None:
        raise ApiError(
            422,
            ServerErrorCode.BAD_NAME,
            "a name is 1 to 20 characters after trimming, without control characters",
        )
    return name


def _room_code(raw: str) -> str:
    """The room code of a path, normalized (a code that cannot exist: no such room)."""
    room_code = normalize_code(raw)
    if room_code is None:
        raise RoomNotFound(raw)
    return room_code


def _is_deck(deck: Any) -> bool:
    return (isinstance(deck, list) and len(deck) == 52
            and all(isinstance(c, str) and _CARD.match(c) for c in deck) and len(set(deck)) == 52)


def _test_hooks(body: dict[str, Any], enabled: bool) -> tuple[list[str] | None, int | None]:
    """The test deck and dealer of a new room (test hooks only). `decks` (v2: one
    deck per hand, in order) is one test deck of them all, 52 cards per round for
    Crisp's first rounds (engine.new_table)."""
    deck = body.get("deck")
    dealer = body.get("dealer")
    if "deck" not in body and "dealer" not in body and "decks" not in body:
        return None, None
    if not enabled:
        raise ApiError(
            422, ServerErrorCode.TEST_HOOKS_OFF,
            "deck, decks and dealer are only accepted with CRISP_TEST_HOOKS=1",
        )
    if "decks" in body:
        decks = body["decks"]
        if (deck is not None or not isinstance(decks, list) or not decks
                or not all(_is_deck(d) for d in decks)):
            raise ApiError(422, ServerErrorCode.BAD_DECK,
                           "decks must be a list of decks of 52 distinct cards, "
                           "and not given with deck")
        deck = [c for d in decks for c in d]
    elif deck is not None and not _is_deck(deck):
        raise ApiError(422, ServerErrorCode.BAD_DECK, "deck must be 52 distinct cards like \"TD\"")
    if dealer is not None and (
        not isinstance(dealer, int) or isinstance(dealer, bool) or not 0 <= dealer < MAX_SEATS
    ):
        raise ApiError(422, ServerErrorCode.BAD_DEALER, "dealer must be a seat index from 0 to 7")
    return deck, dealer


@router.post("/api/rooms", status_code=201, dependencies=[Depends(_same_origin)])
async def create_room(
    request: Request, body: Annotated[dict[str, Any], Body()]
) -> JSONResponse:
    """Create a room of `game` (v2; default Crisp, 422 `unknown_game` for a game not
    hosted); the creator is the host (p1). Test hooks: `deck`, `decks`, `dealer`.
    503 `too_many_rooms` at the server's cap of rooms; spends one of the client's
    room creations (429 when none is left)."""
    ctx = _ctx(request)
    name = _name(body)
    game = game_named(body)
    deck, dealer = _test_hooks(body, ctx.settings.test_hooks)
    decks = None
    if game != DEFAULT:  # v2: another game's test decks are its own, one per hand or seat
        if "deck" in body:
            raise ApiError(422, ServerErrorCode.BAD_DECK, "deck is Crisp's: give decks")
        deck, decks = None, body.get("decks")
    await ctx.room_cap.check()
    await ctx.limits.spend(Kind.ROOMS, client_of(request.scope))
    try:
        credentials = await ctx.rooms.create(name, deck=deck, dealer=dealer, game=game,
                                             decks=decks)
    except (IllegalAction, ValueError) as exc:  # a test deck or dealer the engine refuses
        message = str(getattr(exc, "message", exc))
        raise ApiError(422, ServerErrorCode.BAD_REQUEST, message) from exc
    return _credentials_response(credentials)


@router.post(
    "/api/rooms/{code}/players", status_code=201, dependencies=[Depends(_same_origin)]
)
async def join_room(
    request: Request, code: str, body: Annotated[dict[str, Any], Body()]
) -> JSONResponse:
    """Join a room in its lobby (409 `room_full` / `game_started` / `room_locked` /
    `name_taken`, see failures.py). Spends one of the client's joins, and one of its
    look-ups if the room does not exist (429 when either is spent)."""
    ctx = _ctx(request)
    room_code = _room_code(code)
    name = _name(body)
    client = client_of(request.scope)
    async with ctx.limits.charged(Kind.JOINS, client), ctx.limits.lookup(client):
        credentials = await ctx.rooms.join(room_code, name)
    return _credentials_response(credentials)


@router.get("/api/rooms/{code}")
async def get_room(request: Request, code: str) -> dict[str, Any]:
    """Public lobby information about a room (`rooms.room_summary`). A code that
    names no room spends one of the client's look-ups (429 once they are spent, for
    every code)."""
    ctx = _ctx(request)
    room_code = _room_code(code)
    async with ctx.limits.lookup(client_of(request.scope)):
        return await ctx.rooms.summary(room_code)


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
        error_code = ServerErrorCode.STORE_UNAVAILABLE
        ctx.hooks.http_error(503, error_code)
        return error_response(503, error_code, "the store does not answer")
    return JSONResponse({"status": "ready"})
