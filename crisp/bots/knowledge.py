"""Estimates a seat can make from its view and memory alone (R17.1).

Every number here is a function of what the seat was shown: the cards whose
place it knows (its memory and the view's public cards) are taken out of the
deck, and an unknown position is valued at the mean of the cards left. Permute
the cards the seat never saw and nothing here changes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from crisp.engine import FULL_DECK, Card

from .memory import Memory

DECK_TEXTS = tuple(c.text for c in FULL_DECK)
KEPT_CEILING = 5  # a card a player kept from the stock is taken to be one of the low ones
CALLER_CEILING = 6  # a card of a player who called crisp (R10.1) is taken to be at most this
QUEEN_HIT = 5.0  # what a Queen swap against the caller in a final turn costs it (R8.5)
QUEEN_TURNED = 0.6  # how often a player who draws a Queen then turns it on the caller


@cache
def value(card: str) -> int:
    """A card's points (R1.3)."""
    return Card.parse(card).value


@cache
def is_face(card: str) -> bool:
    """J, Q or K (R1.4, R6)."""
    return Card.parse(card).face


def _moments(counts: list[int], cap: int) -> tuple[float, float] | None:
    """Mean and variance of the values 1..cap in a histogram (index = value)."""
    n = s1 = s2 = 0
    for v in range(1, cap + 1):
        c = counts[v]
        n += c
        s1 += c * v
        s2 += c * v * v
    if n == 0:
        return None
    mean = s1 / n
    return mean, max(0.0, s2 / n - mean * mean)


def placed_cards(view: dict[str, Any], memory: Memory) -> set[str]:
    """Every card whose place this seat knows: in a hand, on the pile, beside it (R9.3),
    in play, or in a stock rebuilt from the pile it watched (R4.2)."""
    current = view.get("round") == memory.round
    placed: set[str] = set()
    if current:
        placed.update(c for hand in memory.slots.values() for c in hand if c is not None)
        placed.update(memory.pile)
        placed.update(memory.kings)
        placed.update(c for c in memory.stock if c is not None)
        if memory.held is not None:
            placed.add(memory.held)
    for card in (view.get("holding"), view.get("discard_top")):
        if card is not None:
            placed.add(card)
    turn = view.get("turn") or {}
    placed.update(turn.get("kings") or ())  # v1.1: Kings lying beside the piles (R9.3)
    return placed


@dataclass
class Knowledge:
    """The seat's picture of the table now: who sits where, and what each position is worth."""

    me: str
    others: list[str]
    hands: dict[str, list[str | None]]
    kept: dict[str, list[bool]]
    caps: dict[str, list[int]]  # soft bounds from the owners' public choices (memory.py)
    pool: list[int]  # the cards whose place this seat does not know, by value (index 1..10)
    numbers: list[int]  # ... the number cards among them (no J, Q, K: R6.1)
    caller: str | None = None
    queens: int = 4  # Queens whose place this seat does not know
    unseen: int = 40  # cards whose place this seat does not know
    stock: list[str | None] = field(default_factory=list)  # its known order (R4.2), top first

    @staticmethod
    def of(view: dict[str, Any], memory: Memory) -> Knowledge:
        """Read the view and the memory together."""
        ids = [p["id"] for p in view.get("players", [])]
        me = view.get("you") or memory.me
        current = view.get("round") == memory.round
        blank: list[str | None] = [None, None, None]
        hands = {p: (memory.hand(p) if current else list(blank)) for p in ids}
        kept = {p: (memory.kept(p) if current else [False, False, False]) for p in ids}
        caps = {p: (memory.cap(p) if current else [10, 10, 10]) for p in ids}
        placed = placed_cards(view, memory)
        pool = [0] * 11
        numbers = [0] * 11
        queens = unseen = 0
        for c in DECK_TEXTS:
            if c not in placed:
                pool[value(c)] += 1
                unseen += 1
                if is_face(c):
                    queens += c[0] == "Q"
                else:
                    numbers[value(c)] += 1
        caller = (view.get("crisp") or {}).get("caller") or (memory.caller if current else None)
        return Knowledge(me=me, others=[p for p in ids if p != me], hands=hands, kept=kept,
                         caps=caps, pool=pool, numbers=numbers, caller=caller,
                         queens=queens, unseen=unseen,
                         stock=list(memory.stock) if current else [])

    def __post_init__(self) -> None:
        self._seen: dict[tuple[int, bool], tuple[float, float]] = {}
        self.unknown = self.moments(10, False)[0]  # a card whose place is not known
        self.kept_low = self.moments(KEPT_CEILING, True)[0]  # one kept from the stock (R6.1)

    def moments(self, cap: int, number: bool) -> tuple[float, float]:
        """Mean and variance of an unseen card of value at most `cap` (a number card:
        `number`)."""
        key = (cap, number)
        out = self._seen.get(key)
        if out is None:
            out = _moments(self.numbers if number else self.pool, cap) \
                or _moments(self.pool, 10) or (6.5, 9.0)
            self._seen[key] = out
        return out

    def _bound(self, player: str, slot: int, plain: bool = False) -> tuple[int, bool]:
        """What is known of an unknown card: the highest value it likely has (a card kept
        from the stock is low, R6.1; a caller's cards are low, R10.1; the owner's choices
        bound it, memory.caps) and whether it is a number card."""
        kept = self.kept[player][slot]
        cap = self.caps[player][slot]
        if kept and cap >= 10:
            cap = KEPT_CEILING
        if player == self.caller and player != self.me and not plain:
            cap = min(cap, CALLER_CEILING)
        return cap, kept

    def slot_value(self, player: str, slot: int, plain: bool = False) -> float:
        """What `player`'s card at `slot` is worth, as far as this seat can tell (`plain`:
        without reading a caller's cards as low)."""
        card = self.hands[player][slot]
        if card is not None:
            return value(card)
        return self.moments(*self._bound(player, slot, plain))[0]

    def slot_var(self, player: str, slot: int) -> float:
        """How uncertain that is (0 for a known card)."""
        if self.hands[player][slot] is not None:
            return 0.0
        return self.moments(*self._bound(player, slot))[1]

    def total(self, player: str) -> float:
        """The expected total of `player`'s three cards."""
        return sum(self.slot_value(player, s) for s in range(3))

    def total_var(self, player: str) -> float:
        """The variance of that total (the positions taken as independent)."""
        return sum(self.slot_var(player, s) for s in range(3))

    def unknown_slots(self, player: str) -> list[int]:
        """The positions of `player`'s hand whose card this seat does not know."""
        return [s for s in range(3) if self.hands[player][s] is None]

    def lowest_chance(self, others_gain: float, hit: float = QUEEN_HIT) -> float:
        """The chance that my total stays strictly below every other player's to the end of
        the round if I call now (R12.2): each total taken as normal around its estimate,
        the others each `others_gain` lower after their final turns (R11.1), and my total
        `hit` higher if one of them draws a Queen and turns it on me (R8.5). More
        opponents, or less known of their hands, make it smaller."""
        mine, my_var = self.total(self.me), self.total_var(self.me)
        spared = 1.0 - QUEEN_TURNED * self.queen_risk()
        return spared * self._below(mine, my_var, others_gain) + \
            (1.0 - spared) * self._below(mine + hit, my_var, others_gain)

    def queen_risk(self) -> float:
        """The chance that one of the others draws a Queen in their final turns (R8.5):
        read off a stock whose order this seat knows (R4.2), else from the unseen cards."""
        draws, ahead = len(self.others), 0
        while ahead < draws and ahead < len(self.stock) and self.stock[ahead] is not None:
            card = self.stock[ahead]
            assert card is not None
            if card[0] == "Q":
                return 1.0
            if card[0] == "K":
                draws += 2  # R9.1: two more draws
            ahead += 1
        left = draws - ahead
        return 1.0 - (1.0 - self.queens / max(1, self.unseen)) ** left if left > 0 else 0.0

    def _below(self, mine: float, my_var: float, others_gain: float) -> float:
        chance = 1.0
        for p in self.others:
            spread = math.sqrt(self.total_var(p) + my_var + 0.25)
            z = (self.total(p) - others_gain - mine - 0.5) / spread
            chance *= 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))
        return chance
