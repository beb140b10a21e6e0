"""Estimates a seat can make from its view and memory alone (R17.1).

Every number here is a function of what the seat was shown: the cards whose
place it knows (its memory and the view's public cards) are taken out of the
deck, and an unknown position is valued at the mean of the cards left. Permute
the cards the seat never saw and nothing here changes.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from crisp.engine import FULL_DECK, Card

from .memory import Memory

DECK_TEXTS = tuple(c.text for c in FULL_DECK)
KEPT_CEILING = 5  # a card a player kept from the stock is taken to be one of the low ones


@cache
def value(card: str) -> int:
    """A card's points (R1.3)."""
    return Card.parse(card).value


@cache
def is_face(card: str) -> bool:
    """J, Q or K (R1.4, R6)."""
    return Card.parse(card).face


def _mean(values: list[int], default: float) -> float:
    return sum(values) / len(values) if values else default


@dataclass
class Knowledge:
    """The seat's picture of the table now: who sits where, and what each position is worth."""

    me: str
    others: list[str]
    hands: dict[str, list[str | None]]
    kept: dict[str, list[bool]]
    unknown: float  # the expected value of a card whose place the seat does not know
    kept_low: float  # the expected value of a card a player drew and kept unseen (R6.1)

    @staticmethod
    def of(view: dict[str, Any], memory: Memory) -> Knowledge:
        """Read the view and the memory together."""
        ids = [p["id"] for p in view.get("players", [])]
        me = view.get("you") or memory.me
        current = view.get("round") == memory.round
        blank: list[str | None] = [None, None, None]
        hands = {p: (memory.hand(p) if current else list(blank)) for p in ids}
        kept = {p: (memory.kept(p) if current else [False, False, False]) for p in ids}
        placed = {c for hand in hands.values() for c in hand if c is not None}
        if current:
            placed.update(memory.pile)
            placed.update(memory.kings)
            if memory.held is not None:
                placed.add(memory.held)
        for card in (view.get("holding"), view.get("discard_top")):
            if card is not None:
                placed.add(card)
        turn = view.get("turn") or {}
        placed.update(turn.get("kings") or ())  # v1.1: Kings lying beside the piles (R9.3)
        pool = [value(c) for c in DECK_TEXTS if c not in placed]
        return Knowledge(
            me=me, others=[p for p in ids if p != me], hands=hands, kept=kept,
            unknown=_mean(pool, 6.5),
            kept_low=_mean([v for v in pool if v <= KEPT_CEILING], 3.0),
        )

    def slot_value(self, player: str, slot: int) -> float:
        """What `player`'s card at `slot` is worth, as far as this seat can tell."""
        card = self.hands[player][slot]
        if card is not None:
            return value(card)
        return self.kept_low if self.kept[player][slot] else self.unknown

    def total(self, player: str) -> float:
        """The expected total of `player`'s three cards."""
        return sum(self.slot_value(player, s) for s in range(3))

    def unknown_slots(self, player: str) -> list[int]:
        """The positions of `player`'s hand whose card this seat does not know."""
        return [s for s in range(3) if self.hands[player][s] is None]
