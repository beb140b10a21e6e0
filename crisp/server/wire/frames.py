"""Server messages (protocol.md, "Server to client"): the documented shape of every
frame the server sends, modelled strictly (`extra="forbid"`): the leak audit
validates every frame it receives against them, so the schema served at
`GET /api/protocol.json` (schema.py) cannot drift from what is sent. Updates are
written by projection.py (serialised once per change), errors by
`error_message` here.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from crisp.engine import ErrorCode
from crisp.engine.vocabulary import EventKind, Status
from crisp.server.wire.client import Level, Slot, Source
from crisp.server.wire.vocabulary import MessageType, ServerErrorCode

StatusName = Literal[Status.LOBBY, Status.PEEK, Status.PLAYING, Status.ROUND_OVER,
                     Status.GAME_OVER]
Card = Annotated[str, Field(pattern=r"^[A2-9TJQK][SHDC]$")]
# Every `error.code` a socket may send: the engine's refusals (`engine.ErrorCode`)
# and the server's own (`ServerErrorCode`); test_server_protocol.py checks both lists.
SocketErrorCode = Literal[
    ErrorCode.BAD_MESSAGE, ErrorCode.NOT_HOST, ErrorCode.NOT_YOUR_TURN, ErrorCode.TOO_EARLY,
    ErrorCode.WRONG_PHASE, ErrorCode.ILLEGAL, ErrorCode.UNKNOWN_PLAYER, ErrorCode.ROOM_FULL,
    ErrorCode.GAME_STARTED,
    ServerErrorCode.TOO_LARGE, ServerErrorCode.RATE_LIMITED, ServerErrorCode.BUSY,
    ServerErrorCode.STORE_UNAVAILABLE, ServerErrorCode.OUTCOME_UNKNOWN, ServerErrorCode.INTERNAL,
    ServerErrorCode.NOT_A_PLAYER,  # v1.2 (R18.1)
]


class _Server(BaseModel):
    # Strict and closed: a field the server sends but the models lack fails validation
    # (tests/server/test_server_leak.py checks every frame), so the schema is complete.
    model_config = ConfigDict(extra="forbid", strict=True)


class PlayerView(_Server):
    id: str
    name: str
    seat: int
    connected: bool
    is_bot: bool
    bot_level: Level | None  # v1.1 (R17.1, R17.5)
    away: bool  # v1.1 (R17.2)
    total: int
    ready: bool
    cards: list[Card | None]


class TurnView(_Server):
    player: str
    may_start_at: int
    draw_deadline: int | None
    drawn_from: Source | None
    extra_draws: int
    final: bool
    kings: list[Card]  # v1.1: played Kings beside the piles, oldest first (R9.3)


class CrispWindow(_Server):
    player: str
    closes_at: int


class CrispView(_Server):
    caller: str | None
    window: CrispWindow | None  # the viewer's own open window, else the newest (R10.4)
    windows: list[CrispWindow]  # v1.1: every open window, oldest first
    final_turns_left: list[str]


class OptionsView(_Server):
    limit: int
    draw_seconds: int | None
    discard_draw: bool
    watchers: bool  # v1.2 (R18.1)


class LastRound(_Server):
    round: int
    caller: str | None
    hands: dict[str, list[Card]]
    sums: dict[str, int]
    scores: dict[str, int]


class HistoryEntry(_Server):
    """v1.1: one finished round of this game."""

    round: int
    caller: str | None
    scores: dict[str, int]
    totals: dict[str, int]
    replay: str  # v1.2: "/api/rooms/{code}/rounds/{n}" (R18.2)


class View(_Server):
    """The whole table as one player may see it (protocol.md, "The view")."""

    game: str  # v2: the room's game ("crisp")
    code: str
    version: int  # v1.1: the room's version
    status: StatusName
    options: OptionsView
    host: str
    you: str | None  # v1.2: null for a watcher (R18.1)
    watching: bool  # v1.2: true for a watcher, false for a player
    watchers: int  # v1.2: the watchers connected (as of the room's last change)
    players: list[PlayerView]
    round: int
    dealer: str | None
    turn: TurnView | None
    crisp: CrispView | None
    peek_ends_at: int | None
    stock_count: int
    discard_top: Card | None
    discard_count: int
    holding: Card | None
    legal: list[str]
    last_round: LastRound | None
    winners: list[str]
    history: list[HistoryEntry]  # v1.1: this game's finished rounds, oldest first
    locked: bool  # docs/protocol-additions.md, "Locked rooms"
    lag_ms: int | None  # v1.2: this connection's measured one-way delay (R18.4)


# ---- events (protocol.md "Events"), already redacted for the receiving player ----


class PlayerEvent(_Server):
    """Something a player did or that happened to a seat: only who."""

    kind: Literal[
        EventKind.JOINED, EventKind.LEFT, EventKind.CONNECTED, EventKind.DISCONNECTED,
        EventKind.READY, EventKind.CRISP, EventKind.TIMEOUT,
        EventKind.AWAY, EventKind.BACK, EventKind.HOST_CHANGED, EventKind.TOOK_OVER,  # v1.1
        EventKind.REMATCH,  # an addition: the host sent everyone back to the lobby
    ]
    player: str


class BotAdded(_Server):
    """v1.1: a computer player took a seat (R17.1)."""

    kind: Literal[EventKind.BOT_ADDED]
    player: str
    level: Level


class OptionsEvent(_Server):
    kind: Literal[EventKind.OPTIONS]
    options: OptionsView


class RoundStarted(_Server):
    kind: Literal[EventKind.ROUND_STARTED]
    round: int
    dealer: str


class Peek(_Server):
    """Sent only to `player` (R2.4, R7.1, R8.2, R8.3)."""

    kind: Literal[EventKind.PEEK]
    player: str
    slot: Slot
    card: Card


class TurnStarted(_Server):
    kind: Literal[EventKind.TURN_STARTED]
    player: str
    final: bool


class Drew(_Server):
    """`card` is null for everyone but the drawer when drawn from the stock (R4.1)."""

    kind: Literal[EventKind.DREW]
    player: str
    source: Source
    card: Card | None


class Swapped(_Server):
    kind: Literal[EventKind.SWAPPED]
    player: str
    slot: Slot
    discarded: Card


class Discarded(_Server):
    kind: Literal[EventKind.DISCARDED]
    player: str
    card: Card
    timeout: bool


class JackPlayed(_Server):
    kind: Literal[EventKind.JACK]
    player: str
    card: Card


class QueenPlayed(_Server):
    kind: Literal[EventKind.QUEEN]
    player: str
    slot: Slot
    target: str
    target_slot: Slot
    card: Card


class KingPlayed(_Server):
    kind: Literal[EventKind.KING]
    player: str
    extra_draws: int
    card: Card


class StockRebuilt(_Server):
    kind: Literal[EventKind.STOCK_REBUILT]
    count: int


class RoundOver(_Server):
    kind: Literal[EventKind.ROUND_OVER]
    hands: dict[str, list[Card]]
    sums: dict[str, int]
    scores: dict[str, int]
    totals: dict[str, int]
    caller: str | None


class GameOver(_Server):
    kind: Literal[EventKind.GAME_OVER]
    totals: dict[str, int]
    winners: list[str]


EventMsg = Annotated[
    PlayerEvent
    | BotAdded
    | OptionsEvent
    | RoundStarted
    | Peek
    | TurnStarted
    | Drew
    | Swapped
    | Discarded
    | JackPlayed
    | QueenPlayed
    | KingPlayed
    | StockRebuilt
    | RoundOver
    | GameOver,
    Field(discriminator="kind"),
]


class Update(_Server):
    """Every message after hello, one per table change, `seq` +1 each."""

    type: Literal[MessageType.UPDATE]
    seq: int
    now: int
    view: View
    events: list[EventMsg]


class ErrorMsg(_Server):
    """A refused client message; the table did not change, except after
    `outcome_unknown` (it may have: the next update tells)."""

    type: Literal[MessageType.ERROR]
    code: SocketErrorCode
    message: str
    ref: str | None = None
    rule: str | None = None


ServerMessage = Annotated[Update | ErrorMsg, Field(discriminator="type")]
SERVER_ADAPTER: TypeAdapter[ServerMessage] = TypeAdapter(ServerMessage)


class HttpError(BaseModel):
    code: str
    message: str


class HttpErrorBody(BaseModel):
    """Every HTTP error: `{"error": {"code", "message"}}`."""

    error: HttpError


def error_message(
    error_code: str, message: str, ref: str | None = None, rule: str | None = None
) -> str:
    """A server `error` message, serialized."""
    out: dict[str, Any] = {"type": MessageType.ERROR, "code": error_code, "message": message}
    if ref is not None:
        out["ref"] = ref
    if rule is not None:
        out["rule"] = rule
    return json.dumps(out, separators=(",", ":"))


