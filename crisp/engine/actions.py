"""Actions a seat can take, as small frozen values, and their parsing from the wire."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .errors import IllegalAction

SLOTS: tuple[str, str, str] = ("left", "middle", "right")
SLOT_INDEX = {name: i for i, name in enumerate(SLOTS)}
LIMITS = (50, 100, 150)  # R15.1
DRAW_SECONDS = (30, 45, 60, None)  # R14.1


@dataclass(frozen=True, slots=True)
class SetOptions:
    """Host, lobby: change any subset of the options (R13-R16.1)."""

    limit: int | None = None
    draw_seconds: int | None = None
    discard_draw: bool | None = None
    set_draw_seconds: bool = False  # draw_seconds=None means "no limit" when this is set


@dataclass(frozen=True, slots=True)
class Start:
    """Host, lobby: start the game (R1.1, R2.1)."""


@dataclass(frozen=True, slots=True)
class Kick:
    """Host, lobby: remove a player."""

    player: str


@dataclass(frozen=True, slots=True)
class Ready:
    """Peek phase (R16.2) or round over (R16.5): this player confirms."""


@dataclass(frozen=True, slots=True)
class Draw:
    """Draw from the stock (R4.1) or the discard pile (R13)."""

    source: str = "stock"


@dataclass(frozen=True, slots=True)
class Swap:
    """Swap the held card into a slot (R5.1)."""

    slot: int


@dataclass(frozen=True, slots=True)
class Discard:
    """Discard the held card (R5.2, R6.2)."""


@dataclass(frozen=True, slots=True)
class UseJack:
    """Play a Jack drawn from the stock (R7)."""


@dataclass(frozen=True, slots=True)
class UseQueen:
    """Play a Queen drawn from the stock (R8)."""

    slot: int
    target: str
    target_slot: int


@dataclass(frozen=True, slots=True)
class UseKing:
    """Play a King drawn from the stock (R9)."""


@dataclass(frozen=True, slots=True)
class CallCrisp:
    """Call crisp in one's window (R10)."""


@dataclass(frozen=True, slots=True)
class NextRound:
    """Host, round over: deal the next round (R16.5)."""


@dataclass(frozen=True, slots=True)
class Rematch:
    """Host, game over: a new game with the same seats and options (R16.5)."""


Action = (
    SetOptions | Start | Kick | Ready | Draw | Swap | Discard | UseJack | UseQueen | UseKing
    | CallCrisp | NextRound | Rematch
)

ACTION_TYPES: tuple[str, ...] = (
    "options", "start", "kick", "ready", "draw", "swap", "discard",
    "jack", "queen", "king", "crisp", "next_round", "rematch",
)

TYPE_OF: dict[type, str] = {
    SetOptions: "options", Start: "start", Kick: "kick", Ready: "ready", Draw: "draw",
    Swap: "swap", Discard: "discard", UseJack: "jack", UseQueen: "queen", UseKing: "king",
    CallCrisp: "crisp", NextRound: "next_round", Rematch: "rematch",
}


def action_type(action: Action) -> str:
    """The protocol `type` of an action."""
    return TYPE_OF[type(action)]


def _bad(message: str) -> IllegalAction:
    return IllegalAction("bad_message", message)


def _slot(msg: dict[str, Any], key: str) -> int:
    value = msg.get(key)
    if not isinstance(value, str) or value not in SLOT_INDEX:
        raise _bad(f"{key} must be one of left, middle, right")
    return SLOT_INDEX[value]


def _player(msg: dict[str, Any], key: str) -> str:
    value = msg.get(key)
    if not isinstance(value, str) or not value:
        raise _bad(f"{key} must be a player id")
    return value


def _options(msg: dict[str, Any]) -> SetOptions:
    limit = msg.get("limit")
    if "limit" in msg and (type(limit) is not int or limit not in LIMITS):
        raise _bad("limit must be 50, 100 or 150")
    seconds = msg.get("draw_seconds")
    if "draw_seconds" in msg and not (
        seconds is None or (type(seconds) is int and seconds in DRAW_SECONDS)
    ):
        raise _bad("draw_seconds must be 30, 45, 60 or null")
    discard_draw = msg.get("discard_draw")
    if "discard_draw" in msg and not isinstance(discard_draw, bool):
        raise _bad("discard_draw must be true or false")
    return SetOptions(limit, seconds, discard_draw, "draw_seconds" in msg)


def action_from_dict(msg: dict[str, Any]) -> Action:
    """Build an action from a protocol client message (`id` is ignored).

    Raises IllegalAction("bad_message") for an unknown type or bad fields.
    """
    if not isinstance(msg, dict):
        raise _bad("a message is a JSON object")
    kind = msg.get("type")
    if kind == "draw":
        source = msg.get("source", "stock")
        if source not in ("stock", "discard"):
            raise _bad("source must be stock or discard")
        return Draw(source)
    if kind == "swap":
        return Swap(_slot(msg, "slot"))
    if kind == "queen":
        return UseQueen(_slot(msg, "slot"), _player(msg, "target"), _slot(msg, "target_slot"))
    if kind == "kick":
        return Kick(_player(msg, "player"))
    if kind == "options":
        return _options(msg)
    simple: dict[str, Action] = {
        "start": Start(), "ready": Ready(), "discard": Discard(), "jack": UseJack(),
        "king": UseKing(), "crisp": CallCrisp(), "next_round": NextRound(), "rematch": Rematch(),
    }
    if isinstance(kind, str) and kind in simple:
        return simple[kind]
    raise _bad(f"unknown action type {kind!r}")
