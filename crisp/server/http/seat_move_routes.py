"""HTTP routes for moving a seat to another device (R18.5; protocol.md v1.2, "Moving a
seat"); the rules are rooms/seat_moves.py's.

- `POST /api/rooms/{code}/move` with `Authorization: Bearer <token>` and `{}` (the
  token's own seat) or `{"player": "p3"}` (the host, for an away seat): 201
  `{"move_code", "expires_at"}`. 401 `bad_token`, 403 `not_host` / `not_away`, 422
  `bad_request` for a player that is no seat. Spends one of the client's joins (a
  move code is a way into a seat), and a look-up when the room does not exist.
- `POST /api/rooms/{code}/move/{move_code}` (no token): 201 `{"code", "player_id",
  "token"}`, the seat with a new token. 404 `no_move` for a code unknown, used or
  expired; every failed one spends one of the client's look-ups (429 once they
  are spent), like a room code that names no room.

Both answers hold a secret: `Cache-Control: no-store`. The move code travels in the
link's fragment (`/r/{code}#move=...`), which browsers never send: it reaches no
server log; this route sees it in its path only when the new device takes it.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, Request
from fastapi.responses import JSONResponse

from crisp.engine import ErrorCode
from crisp.server.edge.clients import client_of
from crisp.server.edge.limits import Kind
from crisp.server.http.api import _credentials_response, _ctx, _room_code, _same_origin
from crisp.server.rooms.seat_moves import (
    BadToken,
    MoveNotFound,
    NoSuchSeat,
    NotAway,
    NotHost,
    SeatMoves,
)
from crisp.server.wire.failures import ApiError
from crisp.server.wire.vocabulary import ServerErrorCode

router = APIRouter()


def _bearer(request: Request) -> str:
    """The token of `Authorization: Bearer <token>`, or 401."""
    kind, _, token = request.headers.get("authorization", "").partition(" ")
    token = token.strip()
    if kind.lower() != "bearer" or not token or len(token) > 256:
        raise ApiError(401, ServerErrorCode.BAD_TOKEN,
                       "send the seat's token as Authorization: Bearer <token>")
    return token


@router.post("/api/rooms/{code}/move", status_code=201, dependencies=[Depends(_same_origin)])
async def make_move_code(
    request: Request, code: str, body: Annotated[dict[str, Any], Body()]
) -> JSONResponse:
    """A one-time code that moves a seat to another device (R18.5)."""
    ctx = _ctx(request)
    room_code = _room_code(code)
    token = _bearer(request)
    player = body.get("player")
    if player is not None and (not isinstance(player, str) or not 0 < len(player) <= 16):
        raise ApiError(422, ServerErrorCode.BAD_REQUEST, "player must be a player id")
    client = client_of(request.scope)
    try:
        async with ctx.limits.charged(Kind.JOINS, client), ctx.limits.lookup(client):
            made = await SeatMoves(ctx.rooms, ctx.store).create(room_code, token, player)
    except BadToken:
        raise ApiError(401, ServerErrorCode.BAD_TOKEN,
                       "this token holds no seat of the room") from None
    except NotHost:
        raise ApiError(403, ErrorCode.NOT_HOST, "only the host may move another seat") from None
    except NotAway:
        raise ApiError(403, ServerErrorCode.NOT_AWAY,
                       "the host may move a player's seat only while it is away") from None
    except NoSuchSeat:
        raise ApiError(422, ServerErrorCode.BAD_REQUEST, "no such player in this room") from None
    return JSONResponse({"move_code": made.move_code, "expires_at": made.expires_at},
                        status_code=201, headers={"Cache-Control": "no-store"})  # fmt: skip


@router.post(
    "/api/rooms/{code}/move/{move_code}", status_code=201, dependencies=[Depends(_same_origin)]
)
async def take_move_code(request: Request, code: str, move_code: str) -> JSONResponse:
    """The seat of a move code, for this device, with a new token (R18.5)."""
    ctx = _ctx(request)
    room_code = _room_code(code)
    try:
        async with ctx.limits.lookup(client_of(request.scope)):
            credentials = await SeatMoves(ctx.rooms, ctx.store).take(room_code, move_code)
    except MoveNotFound:
        raise ApiError(404, ServerErrorCode.NO_MOVE,
                       "no such move code: it was never made, was used, or expired") from None
    return _credentials_response(credentials)
