"""Wire messages: pydantic models of every client message and server message.

Client messages are a discriminated union on `type` (`extra="forbid"`, strict
types): the one parser of the wire, so malformed input is refused at the edge
with `bad_message` before the engine sees it, and each action message turns into
its engine action with `to_action()`. Server messages (`update`, `error`, every
view field and event kind) are modelled just as strictly; the leak test
validates every frame it receives against them, so the schema served at
`GET /api/protocol.json` (`protocol_schema()`) cannot drift from what is sent.
"""

from __future__ import annotations

import json
import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, field_validator
from pydantic.json_schema import SkipJsonSchema

from crisp import engine
from crisp.engine import actions as engine_actions

# The wire texts of the engine's vocabulary (`engine.Slot` labels, `engine.Source`,
# `engine.Status` values; test_server_protocol.py checks they agree). Literals, not
# the enums: strict validation of decoded JSON takes the plain strings.
Slot = Literal["left", "middle", "right"]
Source = Literal["stock", "discard"]
Status = Literal["lobby", "peek", "playing", "round_over", "game_over"]
Card = Annotated[str, Field(pattern=r"^[A2-9TJQK][SHDC]$")]
# Every `error.code` a socket may send: the engine's refusals (`engine.ErrorCode`)
# and the server's own (`ServerErrorCode`); test_server_protocol.py checks both lists.
SocketErrorCode = Literal[
    "bad_message", "not_host", "not_your_turn", "too_early", "wrong_phase", "illegal",
    "unknown_player", "room_full", "game_started",
    "too_large", "rate_limited", "busy", "store_unavailable", "outcome_unknown", "internal",
]
MsgId = Annotated[str, Field(max_length=128)]
PlayerId = Annotated[str, Field(min_length=1, max_length=32)]


def _slot(label: Slot) -> engine.Slot:
    return engine.Slot[label.upper()]


class _Client(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    id: MsgId | None = None


class Hello(_Client):
    """First message on a websocket: proves the seat with its token."""

    type: Literal["hello"]
    token: Annotated[str, Field(min_length=1, max_length=256)]


class _ActionMsg(_Client):
    """A client message that is a game action."""

    def to_action(self) -> engine_actions.Action:
        """The engine action this message asks for."""
        raise NotImplementedError


class OptionsMsg(_ActionMsg):
    """Host, lobby: change any subset of the options (R15, R14, R13, R16.1).

    `limit` and `discard_draw` may be left out but not be null; `draw_seconds`
    null means no draw limit."""

    type: Literal["options"]
    limit: Literal[50, 100, 150] | SkipJsonSchema[None] = None
    draw_seconds: Literal[30, 45, 60] | None = None
    discard_draw: bool | SkipJsonSchema[None] = None

    @field_validator("limit", "discard_draw", mode="before")
    @classmethod
    def _not_null(cls, value: Any) -> Any:
        if value is None:
            raise ValueError("may be left out, but not null")
        return value

    def to_action(self) -> engine_actions.SetOptions:
        return engine_actions.SetOptions(
            limit=self.limit,
            draw_seconds=self.draw_seconds,
            discard_draw=self.discard_draw,
            set_draw_seconds="draw_seconds" in self.model_fields_set,
        )


class Start(_ActionMsg):
    """Host, lobby, 2-8 players: deal the first round."""

    type: Literal["start"]

    def to_action(self) -> engine_actions.Start:
        return engine_actions.Start()


class Kick(_ActionMsg):
    """Host: remove a seat; its token stops working. In the lobby the seat is freed;
    in a game a computer player takes it over (v1.1, R17.5)."""

    type: Literal["kick"]
    player: PlayerId

    def to_action(self) -> engine_actions.Kick:
        return engine_actions.Kick(self.player)


class AddBot(_ActionMsg):
    """v1.1, host, lobby: a computer player takes a seat (R17.1)."""

    type: Literal["add_bot"]
    level: Literal["easy", "normal", "hard"] = "normal"

    def to_action(self) -> engine_actions.AddBot:
        return engine_actions.AddBot(self.level)


class Leave(_ActionMsg):
    """v1.1, any human: leave the room (R17.5); the token stops working."""

    type: Literal["leave"]

    def to_action(self) -> engine_actions.Leave:
        return engine_actions.Leave()


class Ready(_ActionMsg):
    """Peek phase: this player has looked at their cards (R16.2)."""

    type: Literal["ready"]

    def to_action(self) -> engine_actions.Ready:
        return engine_actions.Ready()


class Draw(_ActionMsg):
    """Draw from the stock or (option R13) the discard pile (R4)."""

    type: Literal["draw"]
    source: Source

    def to_action(self) -> engine_actions.Draw:
        return engine_actions.Draw(engine.Source(self.source))


class Swap(_ActionMsg):
    """Swap the held card into a slot (R5.1)."""

    type: Literal["swap"]
    slot: Slot

    def to_action(self) -> engine_actions.Swap:
        return engine_actions.Swap(_slot(self.slot))


class Discard(_ActionMsg):
    """Discard the held card (R5.2)."""

    type: Literal["discard"]

    def to_action(self) -> engine_actions.Discard:
        return engine_actions.Discard()


class Jack(_ActionMsg):
    """Play a Jack: look at your middle card (R7)."""

    type: Literal["jack"]

    def to_action(self) -> engine_actions.UseJack:
        return engine_actions.UseJack()


class Queen(_ActionMsg):
    """Play a Queen: blind swap with another player (R8)."""

    type: Literal["queen"]
    slot: Slot
    target: PlayerId
    target_slot: Slot

    def to_action(self) -> engine_actions.UseQueen:
        return engine_actions.UseQueen(
            _slot(self.slot), self.target, _slot(self.target_slot)
        )


class King(_ActionMsg):
    """Play a King: two extra draws (R9)."""

    type: Literal["king"]

    def to_action(self) -> engine_actions.UseKing:
        return engine_actions.UseKing()


class CrispMsg(_ActionMsg):
    """Call crisp in your window (R10)."""

    type: Literal["crisp"]

    def to_action(self) -> engine_actions.CallCrisp:
        return engine_actions.CallCrisp()


class NextRound(_ActionMsg):
    """Host, round over: deal the next round (R16.5)."""

    type: Literal["next_round"]

    def to_action(self) -> engine_actions.NextRound:
        return engine_actions.NextRound()


class Rematch(_ActionMsg):
    """Host, game over: same seats and options, scores reset (R16.5)."""

    type: Literal["rematch"]

    def to_action(self) -> engine_actions.Rematch:
        return engine_actions.Rematch()


class Lock(_Client):
    """Host, any time: lock the room's lobby (no one may join) or open it again
    (docs/protocol-additions.md, "Locked rooms"). Handled by the server, not the
    engine: a kick locks the room, and only the host lets players in again."""

    type: Literal["lock"]
    locked: bool


ClientMessage = Annotated[
    Hello
    | Lock
    | OptionsMsg
    | Start
    | Kick
    | AddBot
    | Leave
    | Ready
    | Draw
    | Swap
    | Discard
    | Jack
    | Queen
    | King
    | CrispMsg
    | NextRound
    | Rematch
    | AddBot
    | Leave,
    Field(discriminator="type"),
]
CLIENT_ADAPTER: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)


MAX_DEPTH = 16  # the deepest client message has depth 1; nothing needs more
_NESTING = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


def loads_bounded(text: str, max_depth: int = MAX_DEPTH) -> Any:
    """`json.loads` of a client message that refuses (ValueError) nesting deeper than
    `max_depth` before parsing: a hello of 3,000 `[` costs one linear scan, never a
    RecursionError. The callers bound the text's size (CRISP_MAX_MESSAGE_BYTES)."""
    if text.count("[") + text.count("{") > max_depth:
        depth = 0
        for token in _NESTING.finditer(text):
            bracket = token.group()
            if bracket in "[{":
                depth += 1
                if depth > max_depth:
                    raise ValueError(f"nested deeper than {max_depth}")
            elif bracket in "]}":
                depth -= 1
    try:
        return json.loads(text)
    except RecursionError:  # not reachable after the scan; never let it escape
        raise ValueError("nested too deeply") from None


def parse_client(data: Any) -> ClientMessage:
    """Validate a decoded JSON value as a client message (raises ValidationError)."""
    return CLIENT_ADAPTER.validate_python(data)


# ---- server to client: the documented shape of every frame the server sends ----


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
    bot_level: Literal["easy", "normal", "hard"] | None  # v1.1 (R17.1, R17.5)
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


class View(_Server):
    """The whole table as one player may see it (protocol.md, "The view")."""

    code: str
    version: int  # v1.1: the room's version
    status: Status
    options: OptionsView
    host: str
    you: str
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


# ---- events (protocol.md "Events"), already redacted for the receiving player ----


class PlayerEvent(_Server):
    """Something a player did or that happened to a seat: only who."""

    kind: Literal["joined", "left", "connected", "disconnected", "ready", "crisp", "timeout",
                  "away", "back", "host_changed", "took_over",  # v1.1 (R17)
                  "rematch"]  # an addition: the host sent everyone back to the lobby
    player: str


class BotAdded(_Server):
    """v1.1: a computer player took a seat (R17.1)."""

    kind: Literal["bot_added"]
    player: str
    level: Literal["easy", "normal", "hard"]


class OptionsEvent(_Server):
    kind: Literal["options"]
    options: OptionsView


class RoundStarted(_Server):
    kind: Literal["round_started"]
    round: int
    dealer: str


class Peek(_Server):
    """Sent only to `player` (R2.4, R7.1, R8.2, R8.3)."""

    kind: Literal["peek"]
    player: str
    slot: Slot
    card: Card


class TurnStarted(_Server):
    kind: Literal["turn_started"]
    player: str
    final: bool


class Drew(_Server):
    """`card` is null for everyone but the drawer when drawn from the stock (R4.1)."""

    kind: Literal["drew"]
    player: str
    source: Source
    card: Card | None


class Swapped(_Server):
    kind: Literal["swapped"]
    player: str
    slot: Slot
    discarded: Card


class Discarded(_Server):
    kind: Literal["discarded"]
    player: str
    card: Card
    timeout: bool


class JackPlayed(_Server):
    kind: Literal["jack"]
    player: str
    card: Card


class QueenPlayed(_Server):
    kind: Literal["queen"]
    player: str
    slot: Slot
    target: str
    target_slot: Slot
    card: Card


class KingPlayed(_Server):
    kind: Literal["king"]
    player: str
    extra_draws: int
    card: Card


class StockRebuilt(_Server):
    kind: Literal["stock_rebuilt"]
    count: int


class RoundOver(_Server):
    kind: Literal["round_over"]
    hands: dict[str, list[Card]]
    sums: dict[str, int]
    scores: dict[str, int]
    totals: dict[str, int]
    caller: str | None


class GameOver(_Server):
    kind: Literal["game_over"]
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

    type: Literal["update"]
    seq: int
    now: int
    view: View
    events: list[EventMsg]


class ErrorMsg(_Server):
    """A refused client message; the table did not change, except after
    `outcome_unknown` (it may have: the next update tells)."""

    type: Literal["error"]
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
    out: dict[str, Any] = {"type": "error", "code": error_code, "message": message}
    if ref is not None:
        out["ref"] = ref
    if rule is not None:
        out["rule"] = rule
    return json.dumps(out, separators=(",", ":"))


def protocol_schema() -> dict[str, Any]:
    """JSON Schema of the client and server messages (GET /api/protocol.json)."""
    return {
        "title": "Crisp wire protocol v1",
        "client": CLIENT_ADAPTER.json_schema(),
        "server": SERVER_ADAPTER.json_schema(),
        "http_error": HttpErrorBody.model_json_schema(),
    }
