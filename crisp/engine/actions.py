"""Actions a seat can take, as small frozen values, and the check that turns any
object into a well-formed action or an `InvalidAction`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

from .errors import InvalidAction
from .state import BOT_LEVELS
from .vocabulary import SOURCE_OF, ActionType, BotLevel, Slot, Source

SLOTS: tuple[str, ...] = tuple(slot.label for slot in Slot)  # Slot's labels, in order
LIMITS = (50, 100, 150)  # R15.1
DRAW_SECONDS = (30, 45, 60, None)  # R14.1


@dataclass(frozen=True, slots=True)
class SetOptions:
    """Host, lobby: change any subset of the options (R13-R16.1).

    `None` leaves an option as it is, except that `draw_seconds=None` means "no
    limit" when `set_draw_seconds` is set (R14.1); a `draw_seconds` other than
    None needs `set_draw_seconds=True` too.
    """

    limit: int | None = None
    draw_seconds: int | None = None
    discard_draw: bool | None = None
    set_draw_seconds: bool = False
    watchers: bool | None = None  # R18.1 (protocol v1.2)


@dataclass(frozen=True, slots=True)
class Start:
    """Host, lobby: start the game (R1.1, R2.1)."""


@dataclass(frozen=True, slots=True)
class Kick:
    """Host: remove a seat. In the lobby the seat is freed (a computer player's too);
    in a game a computer player takes it over (R17.5)."""

    player: str


@dataclass(frozen=True, slots=True)
class AddBot:
    """Host, lobby: a computer player takes a new seat (R17.1)."""

    level: str = BotLevel.NORMAL


@dataclass(frozen=True, slots=True)
class Leave:
    """Any human: leave the room. The lobby frees the seat; in a game a computer
    player takes it over (R17.5); a leaving host hands the role on (R17.4)."""


@dataclass(frozen=True, slots=True)
class Ready:
    """Peek phase (R16.2) or round over (R16.5): this player confirms."""


@dataclass(frozen=True, slots=True)
class Draw:
    """Draw from the stock (R4.1) or the discard pile (R13)."""

    source: Source = Source.STOCK


@dataclass(frozen=True, slots=True)
class Swap:
    """Swap the held card into a slot (R5.1)."""

    slot: Slot


@dataclass(frozen=True, slots=True)
class Discard:
    """Discard the held card (R5.2, R6.2)."""


@dataclass(frozen=True, slots=True)
class UseJack:
    """Play a Jack drawn from the stock (R7)."""


@dataclass(frozen=True, slots=True)
class UseQueen:
    """Play a Queen drawn from the stock (R8)."""

    slot: Slot
    target: str
    target_slot: Slot


@dataclass(frozen=True, slots=True)
class UseKing:
    """Play a King drawn from the stock (R9)."""


@dataclass(frozen=True, slots=True)
class CallCrisp:
    """Call crisp in one's window (R10). `allowance_ms`: how late after the window's
    end the call may arrive and still count, the caller's connection delay as the
    server measured it (R18.4; the engine caps it, lateness.py). Not part of the
    text form: a client cannot claim it."""

    allowance_ms: int = 0


@dataclass(frozen=True, slots=True)
class NextRound:
    """Host, round over: deal the next round (R16.5)."""


@dataclass(frozen=True, slots=True)
class Rematch:
    """Host, game over: a new game with the same seats and options (R16.5)."""


Action = (
    SetOptions | Start | Kick | Ready | Draw | Swap | Discard | UseJack | UseQueen | UseKing
    | CallCrisp | NextRound | Rematch | AddBot | Leave
)

A = ActionType
TYPE_OF: dict[type, ActionType] = {
    SetOptions: A.OPTIONS, Start: A.START, Kick: A.KICK, Ready: A.READY, Draw: A.DRAW,
    Swap: A.SWAP, Discard: A.DISCARD, UseJack: A.JACK, UseQueen: A.QUEEN, UseKing: A.KING,
    CallCrisp: A.CRISP, NextRound: A.NEXT_ROUND, Rematch: A.REMATCH,
    AddBot: A.ADD_BOT, Leave: A.LEAVE,  # protocol v1.1
}
CLASS_OF: dict[str, type] = {kind: cls for cls, kind in TYPE_OF.items()}
ACTION_TYPES: tuple[str, ...] = tuple(TYPE_OF.values())  # protocol order


def action_type(action: Action) -> str:
    """The protocol `type` of an action."""
    return TYPE_OF[type(action)]


_MISSING = object()


def _get(action: object, name: str) -> Any:
    value = getattr(action, name, _MISSING)
    if value is _MISSING:
        raise InvalidAction(f"{name} is missing")
    return value


def _slot(value: object, name: str) -> Slot:
    if type(value) is Slot:
        return value
    if type(value) is int and 0 <= value < len(_SLOTS):
        return _SLOTS[value]
    raise InvalidAction(f"{name} must be one of left, middle, right")


def _player(value: object, name: str) -> str:
    if type(value) is not str or not value:
        raise InvalidAction(f"{name} must be a player id")
    return value


def _source(value: object) -> Source:
    if type(value) is Source:
        return value
    if type(value) is str and value in SOURCE_OF:
        return SOURCE_OF[value]
    raise InvalidAction("source must be stock or discard")


_SLOTS: tuple[Slot, ...] = tuple(Slot)  # by index; cheaper than Slot(i)


def _options(action: object) -> SetOptions:
    limit, seconds = _get(action, "limit"), _get(action, "draw_seconds")
    discard_draw, set_seconds = _get(action, "discard_draw"), _get(action, "set_draw_seconds")
    if limit is not None and (type(limit) is not int or limit not in LIMITS):
        raise InvalidAction("limit must be 50, 100 or 150")
    if not (seconds is None or (type(seconds) is int and seconds in DRAW_SECONDS)):
        raise InvalidAction("draw_seconds must be 30, 45, 60 or null")
    if not (discard_draw is None or type(discard_draw) is bool):
        raise InvalidAction("discard_draw must be true or false")
    if type(set_seconds) is not bool or (seconds is not None and not set_seconds):
        raise InvalidAction("set_draw_seconds must be true when draw_seconds is given")
    watchers = _get(action, "watchers")
    if not (watchers is None or type(watchers) is bool):
        raise InvalidAction("watchers must be true or false")
    return SetOptions(limit, seconds, discard_draw, set_seconds, watchers)


def checked(action: object) -> Action:
    """`action` as a well-formed engine action (slots as `Slot`, sources as
    `Source`), or InvalidAction: not an action, an ill-typed field or a value the
    protocol cannot express (a slot out of 0-2, a limit of 7, ...)."""
    cls = type(action)
    if cls not in TYPE_OF:
        raise InvalidAction(f"not an action: {cls.__name__}")
    if cls is Draw:
        source = _get(action, "source")
        return cast(Draw, action) if type(source) is Source else Draw(_source(source))
    if cls is Swap:
        slot = _get(action, "slot")
        return cast(Swap, action) if type(slot) is Slot else Swap(_slot(slot, "slot"))
    if cls is UseQueen:
        return UseQueen(_slot(_get(action, "slot"), "slot"),
                        _player(_get(action, "target"), "target"),
                        _slot(_get(action, "target_slot"), "target_slot"))
    if cls is Kick:
        return Kick(_player(_get(action, "player"), "player"))
    if cls is AddBot:
        level = _get(action, "level")
        if not isinstance(level, str) or level not in BOT_LEVELS:
            raise InvalidAction(f"level must be one of {', '.join(BOT_LEVELS)}")
        return cast(AddBot, action)
    if cls is SetOptions:
        return _options(action)
    if cls is CallCrisp:
        allowance = _get(action, "allowance_ms")
        if type(allowance) is not int or allowance < 0:
            raise InvalidAction("allowance_ms must be an int of 0 or more")
    return cast(Action, action)  # the other actions have no fields
