"""Wire messages: pydantic models of every client message and server message.

Client messages are a discriminated union on `type` (`extra="forbid"`, strict
types), so malformed input is refused at the edge with `bad_message` before the
engine sees it. `protocol_schema()` is served at `GET /api/protocol.json`.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

Slot = Literal["left", "middle", "right"]
Source = Literal["stock", "discard"]
Card = Annotated[str, Field(pattern=r"^[A2-9TJQK][SHDC]$")]
MsgId = Annotated[str, Field(max_length=128)]
PlayerId = Annotated[str, Field(min_length=1, max_length=32)]


class _Client(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    id: MsgId | None = None


class Hello(_Client):
    """First message on a websocket: proves the seat with its token."""

    type: Literal["hello"]
    token: Annotated[str, Field(min_length=1, max_length=256)]


class OptionsMsg(_Client):
    """Host, lobby: change any subset of the options (R15, R14, R13, R16.1)."""

    type: Literal["options"]
    limit: Literal[50, 100, 150] | None = None
    draw_seconds: Literal[30, 45, 60] | None = None
    discard_draw: bool | None = None


class Start(_Client):
    """Host, lobby, 2-8 players: deal the first round."""

    type: Literal["start"]


class Kick(_Client):
    """Host, lobby: remove a player; their token stops working."""

    type: Literal["kick"]
    player: PlayerId


class Ready(_Client):
    """Peek phase: this player has looked at their cards (R16.2)."""

    type: Literal["ready"]


class Draw(_Client):
    """Draw from the stock or (option R13) the discard pile (R4)."""

    type: Literal["draw"]
    source: Source


class Swap(_Client):
    """Swap the held card into a slot (R5.1)."""

    type: Literal["swap"]
    slot: Slot


class Discard(_Client):
    """Discard the held card (R5.2)."""

    type: Literal["discard"]


class Jack(_Client):
    """Play a Jack: look at your middle card (R7)."""

    type: Literal["jack"]


class Queen(_Client):
    """Play a Queen: blind swap with another player (R8)."""

    type: Literal["queen"]
    slot: Slot
    target: PlayerId
    target_slot: Slot


class King(_Client):
    """Play a King: two extra draws (R9)."""

    type: Literal["king"]


class CrispMsg(_Client):
    """Call crisp in your window (R10)."""

    type: Literal["crisp"]


class NextRound(_Client):
    """Host, round over: deal the next round (R16.5)."""

    type: Literal["next_round"]


class Rematch(_Client):
    """Host, game over: same seats and options, scores reset (R16.5)."""

    type: Literal["rematch"]


ClientMessage = Annotated[
    Hello
    | OptionsMsg
    | Start
    | Kick
    | Ready
    | Draw
    | Swap
    | Discard
    | Jack
    | Queen
    | King
    | CrispMsg
    | NextRound
    | Rematch,
    Field(discriminator="type"),
]
CLIENT_ADAPTER: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)
ACTION_TYPES = frozenset(
    {
        "options",
        "start",
        "kick",
        "ready",
        "draw",
        "swap",
        "discard",
        "jack",
        "queen",
        "king",
        "crisp",
        "next_round",
        "rematch",
    }
)


def parse_client(data: Any) -> ClientMessage:
    """Validate a decoded JSON value as a client message (raises ValidationError)."""
    return CLIENT_ADAPTER.validate_python(data)


def action_dict(msg: _Client) -> dict[str, Any]:
    """The message as the engine's action dict: `id` dropped, unset optionals dropped."""
    return msg.model_dump(exclude_unset=True, exclude={"id"})


# ---- server to client (documentation and schema; payloads come from the engine) ----


class _Server(BaseModel):
    model_config = ConfigDict(extra="allow")


class PlayerView(_Server):
    id: str
    name: str
    seat: int
    connected: bool
    is_bot: bool
    total: int
    cards: list[Card | None]


class TurnView(_Server):
    player: str
    may_start_at: int
    draw_deadline: int | None
    drawn_from: Source | None
    extra_draws: int
    final: bool


class CrispWindow(_Server):
    player: str
    closes_at: int


class CrispView(_Server):
    caller: str | None
    window: CrispWindow | None
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


class View(_Server):
    """The whole table as one player may see it (protocol.md, "The view")."""

    code: str
    status: Literal["lobby", "peek", "playing", "round_over", "game_over"]
    options: OptionsView
    host: str
    you: str
    players: list[PlayerView]
    round: int
    dealer: str | None
    turn: TurnView | None
    crisp: CrispView | None
    stock_count: int
    discard_top: Card | None
    discard_count: int
    holding: Card | None
    legal: list[str]
    last_round: LastRound | None
    winners: list[str]


class Update(_Server):
    """Every message after hello, one per table change, `seq` +1 each."""

    type: Literal["update"]
    seq: int
    now: int
    view: View
    events: list[dict[str, Any]]


class ErrorMsg(_Server):
    """A refused client message; the table did not change."""

    type: Literal["error"]
    code: str
    message: str
    ref: str | None = None
    rule: str | None = None


ServerMessage = Annotated[Update | ErrorMsg, Field(discriminator="type")]


class HttpError(BaseModel):
    code: str
    message: str


class HttpErrorBody(BaseModel):
    """Every HTTP error: `{"error": {"code", "message"}}`."""

    error: HttpError


def error_message(code: str, message: str, ref: str | None = None, rule: str | None = None) -> str:
    """A server `error` message, serialized."""
    out: dict[str, Any] = {"type": "error", "code": code, "message": message}
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
        "server": TypeAdapter(ServerMessage).json_schema(),
        "http_error": HttpErrorBody.model_json_schema(),
    }
