"""Client messages (protocol.md, "Client to server"): pydantic models of each, a
discriminated union on `type` (`extra="forbid"`, strict types). Malformed input is
refused here, at the edge, with `bad_message` before the engine sees it; an action
message then becomes its engine action through the engine's own reading of the
message (`to_action`: `engine.action_from_dict`), so there is one parser of an
action's text for the server, the bots and the bench. The models are also the
client half of the schema at `GET /api/protocol.json` (schema.py).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, field_validator
from pydantic.json_schema import SkipJsonSchema

from crisp import engine
from crisp.engine.vocabulary import ActionType, BotLevel, SlotLabel
from crisp.server.wire.vocabulary import MessageType

# The wire names are the vocabularies' (issue 22: each written once): literals of their
# enum members, which strict validation matches against the plain strings of JSON.
Slot = Literal[SlotLabel.LEFT, SlotLabel.MIDDLE, SlotLabel.RIGHT]
Source = Literal[engine.Source.STOCK, engine.Source.DISCARD]
Level = Literal[BotLevel.EASY, BotLevel.NORMAL, BotLevel.HARD]
MsgId = Annotated[str, Field(max_length=128)]
PlayerId = Annotated[str, Field(min_length=1, max_length=32)]


class _Client(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    id: MsgId | None = None


class Hello(_Client):
    """First message on a websocket: proves the seat with its token, or (v1.2,
    R18.1) asks to watch, with `"watch": true` and no token (both: `bad_message`)."""

    type: Literal[MessageType.HELLO]
    token: Annotated[str, Field(min_length=1, max_length=256)] | None = None
    watch: bool = False


class _ActionMsg(_Client):
    """A client message that is a game action."""

    def to_action(self) -> engine.Action:
        """The engine action this message asks for: the engine's own reading of the
        message (`engine.action_from_dict`, the one parser of an action's text, shared
        with the bots and the bench), given the fields the client sent."""
        return engine.action_from_dict(self.model_dump(exclude={"id"}, exclude_unset=True))


class OptionsMsg(_ActionMsg):
    """Host, lobby: change any subset of the options (R15, R14, R13, R16.1).

    `limit` and `discard_draw` may be left out but not be null; `draw_seconds`
    null means no draw limit."""

    type: Literal[ActionType.OPTIONS]
    limit: Literal[50, 100, 150] | SkipJsonSchema[None] = None
    draw_seconds: Literal[30, 45, 60] | None = None
    discard_draw: bool | SkipJsonSchema[None] = None
    watchers: bool | SkipJsonSchema[None] = None  # v1.2 (R18.1)

    @field_validator("limit", "discard_draw", "watchers", mode="before")
    @classmethod
    def _not_null(cls, value: Any) -> Any:
        if value is None:
            raise ValueError("may be left out, but not null")
        return value


class Start(_ActionMsg):
    """Host, lobby, 2-8 players: deal the first round."""

    type: Literal[ActionType.START]


class Kick(_ActionMsg):
    """Host: remove a seat; its token stops working. In the lobby the seat is freed;
    in a game a computer player takes it over (v1.1, R17.5)."""

    type: Literal[ActionType.KICK]
    player: PlayerId


class AddBot(_ActionMsg):
    """v1.1, host, lobby: a computer player takes a seat (R17.1)."""

    type: Literal[ActionType.ADD_BOT]
    level: Level = BotLevel.NORMAL


class Leave(_ActionMsg):
    """v1.1, any human: leave the room (R17.5); the token stops working."""

    type: Literal[ActionType.LEAVE]


class Ready(_ActionMsg):
    """Peek phase: this player has looked at their cards (R16.2)."""

    type: Literal[ActionType.READY]


class Draw(_ActionMsg):
    """Draw from the stock or (option R13) the discard pile (R4)."""

    type: Literal[ActionType.DRAW]
    source: Source


class Swap(_ActionMsg):
    """Swap the held card into a slot (R5.1)."""

    type: Literal[ActionType.SWAP]
    slot: Slot


class Discard(_ActionMsg):
    """Discard the held card (R5.2)."""

    type: Literal[ActionType.DISCARD]


class Jack(_ActionMsg):
    """Play a Jack: look at your middle card (R7)."""

    type: Literal[ActionType.JACK]


class Queen(_ActionMsg):
    """Play a Queen: blind swap with another player (R8)."""

    type: Literal[ActionType.QUEEN]
    slot: Slot
    target: PlayerId
    target_slot: Slot


class King(_ActionMsg):
    """Play a King: two extra draws (R9)."""

    type: Literal[ActionType.KING]


class CrispMsg(_ActionMsg):
    """Call crisp in your window (R10)."""

    type: Literal[ActionType.CRISP]


class NextRound(_ActionMsg):
    """Host, round over: deal the next round (R16.5)."""

    type: Literal[ActionType.NEXT_ROUND]


class Rematch(_ActionMsg):
    """Host, game over: same seats and options, scores reset (R16.5)."""

    type: Literal[ActionType.REMATCH]


class Lock(_Client):
    """Host, any time: lock the room's lobby (no one may join) or open it again
    (docs/protocol-additions.md, "Locked rooms"). Handled by the server, not the
    engine: a kick locks the room, and only the host lets players in again."""

    type: Literal[MessageType.LOCK]
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
    | Rematch,
    Field(discriminator="type"),
]
CLIENT_ADAPTER: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)


def parse_client(data: Any) -> ClientMessage:
    """Validate a decoded JSON value as a client message (raises ValidationError)."""
    return CLIENT_ADAPTER.validate_python(data)


