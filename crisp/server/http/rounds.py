"""`GET /api/rooms/{code}/rounds/{n}`: a finished round's replay (R18.2) with every
player's memory review (R18.3); protocol.md v1.2, "Replay and memory review".

Who may read it: a player of the room (`Authorization: Bearer <token>`; a token
that is not a seat's: 401 `bad_token`), and, while watching is on (R18.1), anyone
with the link; otherwise 403 `not_allowed`. The answer is the same for everyone
allowed. `n` counts the rounds of the current game from 1: 404 `no_round` for a
round this game has not reached, or whose record was not kept (too long, or
trimmed to keep the game's records bounded: rooms/round_record.py); 409
`round_in_play` while round `n` is dealt and not over (nothing of its record is
shown before its reveal). 404 `no_room` for a code that names no room (it spends
one of the client's look-ups, like any code that names no room). Every read spends
one of the client's replay reads first (`CRISP_LIMIT_REPLAYS`; 429 `rate_limited`
once they are spent): a replay is built from the room's log, the dearest read.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from crisp.engine import PEEK, PLAYING
from crisp.server.edge.clients import client_of
from crisp.server.edge.limits import Kind
from crisp.server.http.api import _ctx
from crisp.server.rooms.codes import normalize_code, player_of_token
from crisp.server.rooms.document import RoomDoc
from crisp.server.rooms.round_record import Span, replay_of
from crisp.server.wire import rules
from crisp.server.wire.failures import ApiError, RoomBusy, RoomNotFound
from crisp.server.wire.vocabulary import ServerErrorCode
from crisp.table import room as game_table
from crisp.table.room import GameTable

READ_TRIES = 3  # the log changed between reading the document and the log (rare)

router = APIRouter()


@router.get("/api/rooms/{code}/rounds/{n}")
async def get_round(request: Request, code: str, n: int) -> JSONResponse:
    """Round `n`'s replay, once it is over (see the module docstring)."""
    ctx = _ctx(request)
    await ctx.limits.spend(Kind.REPLAYS, client_of(request.scope))
    room_code = normalize_code(code)
    for _ in range(READ_TRIES):
        doc = await _room(request, room_code)
        assert room_code is not None
        _allowed(request, doc)
        if rules.is_table(doc.state):  # one record per game, kept in its table
            return JSONResponse(_table_replay(doc.state, n), headers={"Cache-Control": "no-store"})
        span = _finished(doc, n)
        entries = await ctx.store.read_log(room_code, span.first - doc.record.base,
                                           span.entries)
        replay = replay_of(entries, doc.record.game, n, span.moves)
        if replay is not None:
            return JSONResponse(replay, headers={"Cache-Control": "no-store"})
    raise RoomBusy(room_code)


async def _room(request: Request, room_code: str | None) -> RoomDoc:
    """The room's document; 404 `no_room` (a look-up spent) when there is none."""
    ctx = _ctx(request)
    try:
        async with ctx.limits.lookup(client_of(request.scope)):
            doc = None if room_code is None else await ctx.rooms.load(room_code)
            if doc is None:
                raise RoomNotFound(room_code)
    except RoomNotFound as exc:
        raise ApiError(404, ServerErrorCode.NO_ROOM, "no such room") from exc
    return doc


def _allowed(request: Request, doc: RoomDoc) -> None:
    """A player's token, or anyone while watching is on (R18.2, R18.1)."""
    header = request.headers.get("authorization")
    if header is not None:
        kind, _, token = header.partition(" ")
        token = token.strip()
        if (kind.lower() != "bearer" or not token or len(token) > 256
                or player_of_token(doc.token_hashes, token) is None):
            raise ApiError(401, ServerErrorCode.BAD_TOKEN, "this token is not a seat's")
    elif not doc.state.options.watchers:
        raise ApiError(403, ServerErrorCode.NOT_ALLOWED,
                       "watching is off in this room: only its players see its rounds")


def _table_replay(state: GameTable, n: int) -> dict[str, Any]:
    """A table room's game record (R18.2), once the game is over."""
    if n != 1 or state.table.play is None:
        raise ApiError(404, ServerErrorCode.NO_ROUND, f"this game has no round {n}")
    replay = game_table.replay(state)
    if replay is None:
        raise ApiError(409, ServerErrorCode.ROUND_IN_PLAY, "the game is being played")
    return replay


def _finished(doc: RoomDoc, n: int) -> Span:
    """Where round `n`'s record is, once the round is over (404, 409 otherwise)."""
    state = doc.state
    if not 1 <= n <= state.round:
        raise ApiError(404, ServerErrorCode.NO_ROUND, f"this game has no round {n}")
    if n == state.round and state.status in (PEEK, PLAYING):
        raise ApiError(409, ServerErrorCode.ROUND_IN_PLAY, f"round {n} is being played")
    if n in doc.record.dropped:
        raise ApiError(404, ServerErrorCode.NO_ROUND,
                       f"round {n}'s record is no longer kept (this game's records are long)")
    span = doc.record.span(n)
    if span is None or span.open:
        raise ApiError(404, ServerErrorCode.NO_ROUND, f"round {n} was not recorded")
    if span.too_long:
        raise ApiError(404, ServerErrorCode.NO_ROUND, f"round {n}'s record was too long to keep")
    return span
