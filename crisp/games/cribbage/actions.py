"""Client messages as typed actions (protocol: `give`, `lay`, `claim`, `muggins`,
`ready`); anything else is `bad_message`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .cards import is_card
from .errors import bad
from .vocabulary import ActionType

MAX_CLAIM = 29  # no hand scores more (C6.7)


@dataclass(frozen=True, slots=True)
class Give:
    cards: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Lay:
    card: str


@dataclass(frozen=True, slots=True)
class ClaimPoints:
    points: int


@dataclass(frozen=True, slots=True)
class CallMuggins:
    pass


@dataclass(frozen=True, slots=True)
class Ready:
    pass


Action = Give | Lay | ClaimPoints | CallMuggins | Ready


def parse(message: Mapping[str, Any]) -> Action:
    kind = message.get("type")
    if kind == ActionType.GIVE:
        cards = message.get("cards")
        if not isinstance(cards, list) or not all(is_card(c) for c in cards):
            raise bad("give: `cards` is a list of cards")
        return Give(tuple(cards))
    if kind == ActionType.LAY:
        card = message.get("card")
        if not is_card(card):
            raise bad("lay: `card` is a card")
        assert isinstance(card, str)
        return Lay(card)
    if kind == ActionType.CLAIM:
        points = message.get("points")
        if type(points) is not int or not 0 <= points <= MAX_CLAIM:
            raise bad(f"claim: `points` is a whole number from 0 to {MAX_CLAIM}")
        return ClaimPoints(points)
    if kind == ActionType.MUGGINS:
        return CallMuggins()
    if kind == ActionType.READY:
        return Ready()
    raise bad(f"not a cribbage message: {kind!r}")


def to_message(action: Action) -> dict[str, Any]:
    """The client message of an action (the bots send these)."""
    if isinstance(action, Give):
        return {"type": ActionType.GIVE.value, "cards": list(action.cards)}
    if isinstance(action, Lay):
        return {"type": ActionType.LAY.value, "card": action.card}
    if isinstance(action, ClaimPoints):
        return {"type": ActionType.CLAIM.value, "points": action.points}
    if isinstance(action, CallMuggins):
        return {"type": ActionType.MUGGINS.value}
    return {"type": ActionType.READY.value}
