"""Determinization for the `hard` level: tables consistent with what a seat has seen (R17.1).

A `Worlds` is built from the seat's view and memory only. It lists the cards
whose place the seat does not know (the deck minus every card it saw and can
still place: hands, the pile, the Kings beside it, the card in play, a stock
rebuilt from the pile it watched, R4.2) and the positions that hold them: each
unknown card of each hand, and the top of the stock. `sample` deals those
cards to those positions at random, consistently with what the seat saw:

- a card a player drew from the stock and kept unseen is a number card (R6.1);
- a soft bound from its owner's public choices (`Memory.caps`) holds in most
  samples (`CAP_TRUST`), not all: it is a guess about people, never a card;
- a crisp caller's cards (R10.1) are mostly low (`CALLER_CAP`);
- the known part of a rebuilt stock is where the seat saw it (R4.2).

Cards are dealt by rank only (A..9, T, J, Q, K: what matters for values and
specials), drawn without replacement from the counts of the unseen ranks, in a
fixed order of positions: so the samples are a function of what the seat saw
and of the random source alone. Permute the cards the seat never saw and the
set of unseen ranks is the same: so are the samples.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from .knowledge import DECK_TEXTS, placed_cards
from .memory import DEALT, NO_CAP, Memory

RANKS = "A23456789TJQK"
RANK_OF = {r: i for i, r in enumerate(RANKS)}
VALUES = tuple(min(i + 1, 10) for i in range(len(RANKS)))  # R1.3
JACK, QUEEN, KING = RANK_OF["J"], RANK_OF["Q"], RANK_OF["K"]
NUMBERS = RANK_OF["T"] + 1  # ranks below this index are number cards (R6.1)
CAP_TRUST = 0.8  # how often a soft bound from a player's choices is taken as true
UNAWARE = 6.5  # what a player takes a card they never saw to be
CALL_CEIL = 11.0  # a crisp caller believes its total is at most this (R10.1)
PASS_FLOOR = 11.0  # a player who let their crisp window pass believes theirs is at least this
FLOOR_STEP = 1.0  # ... less this for each opponent beyond the first (harder to be lowest)
BELIEF_TRUST = 0.8  # how often those are taken as true
TRIES = 4  # samples of one hand tried before one that breaks a belief is kept


def rank_of(card: str) -> int:
    return RANK_OF[card[0]]


@dataclass
class Slot:
    """An unknown position of a hand: `hi` bounds the ranks it may hold (a prefix of
    RANKS), `soft` says the bound is a guess that may be dropped, `floor` is the
    bound without the guess (number cards only for a card kept from the stock)."""

    player: int
    slot: int
    hi: int
    floor: int
    trust: float


class Worlds:
    """The seat's unknowns and a sampler of the tables they could hide."""

    def __init__(self, view: dict[str, Any], memory: Memory, depth: int) -> None:
        ids = [p["id"] for p in view.get("players", [])]
        self.ids = ids
        self.me = ids.index(view.get("you") or memory.me)
        current = view.get("round") == memory.round
        placed = placed_cards(view, memory)
        self.pool = [rank_of(c) for c in DECK_TEXTS if c not in placed]  # in deck order
        self.unseen = len(self.pool)
        crisp = view.get("crisp") or {}
        caller = crisp.get("caller") or (memory.caller if current else None)
        self.caller = ids.index(caller) if caller in ids else None
        self.known: list[list[int | None]] = []  # rank index of each known card
        self.aware: list[int] = []  # bit i: the owner saw slot i (memory.aware)
        groups: list[tuple[int, list[Slot], float, float]] = []  # player, slots, belief
        moved = set(memory.moved) if current else set()
        n = len(ids)
        floor_total = PASS_FLOOR - FLOOR_STEP * max(0, n - 2)
        for i, pid in enumerate(ids):
            hand = memory.hand(pid) if current else [None, None, None]
            kept = memory.kept(pid) if current else [False, False, False]
            caps = memory.cap(pid) if current else [NO_CAP] * 3
            self.known.append([None if c is None else rank_of(c) for c in hand])
            self.aware.append(memory.knows_of(pid) if current else DEALT)
            slots = []
            for s in range(3):
                if hand[s] is not None:
                    continue
                floor = NUMBERS if kept[s] else len(RANKS)
                cap = caps[s]
                hi = min(floor, cap) if cap < NO_CAP else floor
                slots.append(Slot(i, s, hi, floor, CAP_TRUST if hi < floor else 1.0))
            slots.sort(key=lambda x: x.hi)  # the tightest first: fewer dead ends
            low, high = 0.0, 99.0
            if i != self.me and i == self.caller:
                high = CALL_CEIL  # R10.1
            elif i != self.me and self.caller is None and pid in moved:
                low = floor_total  # it passed its windows (R10.1)
            if slots:
                groups.append((i, slots, low, high))
        groups.sort(key=lambda g: min(x.hi for x in g[1]))
        self.groups = groups
        stock = list(memory.stock) if current else []
        count = int(view.get("stock_count") or 0)
        self.stock: list[int | None] = [None if c is None else rank_of(c)
                                        for c in stock[:depth]]
        self.stock += [None] * (min(depth, count) - len(self.stock))

    def sample(self, rng: random.Random) -> tuple[list[list[int]], list[int]]:
        """One table: every hand's ranks (rank indexes) and the top of the stock.

        A partial Fisher-Yates shuffle of the unseen cards: each position takes a
        card at random from those left; a position with a bound retries a few times
        for a card within it, then takes the first one left that is."""
        rand = rng.random
        pool = list(self.pool)
        size = len(pool)
        taken = 0
        hands = [[-1 if r is None else r for r in hand] for hand in self.known]
        for player, slots, low, high in self.groups:
            hand = hands[player]
            belief = (low > 0.0 or high < 99.0) and rand() < BELIEF_TRUST
            start = taken
            for _attempt in range(TRIES if belief else 1):
                taken = start
                for pos in slots:
                    if taken >= size:
                        hand[pos.slot] = 0  # never expected: no card left to deal
                        continue
                    hi = pos.hi
                    if hi < pos.floor and rand() >= pos.trust:
                        hi = pos.floor
                    i = taken + int(rand() * (size - taken))
                    if pool[i] >= hi:
                        i = _within(pool, taken, size, hi, rand)
                        if i < 0:
                            i = _within(pool, taken, size, pos.floor, rand)
                        if i < 0:
                            i = taken
                    pool[i], pool[taken] = pool[taken], pool[i]
                    hand[pos.slot] = pool[taken]
                    taken += 1
                if not belief:
                    break
                bits = self.aware[player]
                believed = sum(VALUES[hand[s]] if bits >> s & 1 else UNAWARE for s in range(3))
                if low <= believed <= high:
                    break
        stock = []
        for known in self.stock:
            if known is not None:
                stock.append(known)
            elif taken < size:
                i = taken + int(rand() * (size - taken))
                pool[i], pool[taken] = pool[taken], pool[i]
                stock.append(pool[taken])
                taken += 1
        return hands, stock


def _within(pool: list[int], start: int, size: int, hi: int,
            rand: Any) -> int:
    """The index of a card below rank `hi` among pool[start:size]: a few random tries,
    then the first from a random point; -1 when there is none."""
    span = size - start
    for _ in range(3):
        i = start + int(rand() * span)
        if pool[i] < hi:
            return i
    offset = int(rand() * span)
    for k in range(span):
        i = start + (offset + k) % span
        if pool[i] < hi:
            return i
    return -1
