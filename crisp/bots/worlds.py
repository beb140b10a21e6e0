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
- a crisp caller believes its hand low (R10.1): in most samples (`CALLER_TRUST`)
  the cards it saw add up, with the ones it did not see taken as average, to at
  most `CALL_CEIL`;
- the known part of a rebuilt stock is where the seat saw it (R4.2).

Cards are dealt by rank only (A..9, T, J, Q, K: what matters for values and
specials), from the unseen cards listed in deck order, by a partial
Fisher-Yates shuffle driven by the random source alone. Permute the cards the
seat never saw and that list is the same: so are the samples.
"""

from __future__ import annotations

import random
from collections.abc import Callable
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
CALLER_TRUST = 0.8  # how often that is taken as true
TRIES = 4  # hands of the caller dealt before one that breaks its belief is kept

Slot = tuple[int, int, int, float]  # position in the hand, rank bound, hard bound, trust


def rank_of(card: str) -> int:
    """The index of a card's rank in RANKS."""
    return RANK_OF[card[0]]


class Worlds:
    """The seat's unknowns and a sampler of the tables they could hide."""

    def __init__(self, view: dict[str, Any], memory: Memory, depth: int) -> None:
        ids = [p["id"] for p in view.get("players", [])]
        self.ids = ids
        self.me = ids.index(view.get("you") or memory.me)
        current = view.get("round") == memory.round
        placed = placed_cards(view, memory)
        self.pool = [rank_of(c) for c in DECK_TEXTS if c not in placed]  # in deck order
        caller = (view.get("crisp") or {}).get("caller") or (memory.caller if current else None)
        self.caller = ids.index(caller) if caller in ids else None
        self.known: list[list[int]] = []  # the value of each known card, -1 if unknown
        self.aware: list[int] = []  # bit i: the owner saw slot i (memory.aware)
        groups: list[tuple[int, list[Slot]]] = []
        for i, pid in enumerate(ids):
            hand = memory.hand(pid) if current else [None, None, None]
            kept = memory.kept(pid) if current else [False, False, False]
            caps = memory.cap(pid) if current else [NO_CAP] * 3
            self.known.append([-1 if c is None else VALUES[rank_of(c)] for c in hand])
            self.aware.append(memory.knows_of(pid) if current else DEALT)
            slots: list[Slot] = []
            for s in range(3):
                if hand[s] is not None:
                    continue
                floor = NUMBERS if kept[s] else len(RANKS)
                hi = min(floor, caps[s]) if caps[s] < NO_CAP else floor
                slots.append((s, hi, floor, CAP_TRUST if hi < floor else 1.0))
            if slots:
                slots.sort(key=lambda x: x[1])  # the tightest first: fewer dead ends
                groups.append((i, slots))
        groups.sort(key=lambda g: g[1][0][1])
        self.groups = groups
        stock = list(memory.stock) if current else []
        count = int(view.get("stock_count") or 0)
        self.stock: list[int | None] = [None if c is None else rank_of(c)
                                        for c in stock[:depth]]
        self.stock += [None] * (min(depth, count) - len(self.stock))

    def sample(self, rng: random.Random) -> tuple[list[list[int]], list[int]]:
        """One table: every hand's card values, and the ranks on top of the stock.

        A partial Fisher-Yates shuffle of the unseen cards: each position takes a
        card at random from those left; a position with a bound retries a few times
        for a card within it, then takes the first one left that is."""
        rand = rng.random
        pool = list(self.pool)
        size = len(pool)
        taken = 0
        hands = [list(hand) for hand in self.known]
        caller = self.caller
        for player, slots in self.groups:
            hand = hands[player]
            belief = player == caller and player != self.me and rand() < CALLER_TRUST
            start = taken
            for _attempt in range(TRIES if belief else 1):
                taken = start
                for slot, hi, floor, trust in slots:
                    if taken >= size:  # never expected: no card left to deal
                        hand[slot] = 0
                        continue
                    if hi < floor and rand() >= trust:
                        hi = floor
                    i = taken + int(rand() * (size - taken))
                    if pool[i] >= hi:
                        i = _within(pool, taken, size, hi, rand)
                        if i < 0:
                            i = _within(pool, taken, size, floor, rand)
                        if i < 0:
                            i = taken
                    pool[i], pool[taken] = pool[taken], pool[i]
                    hand[slot] = VALUES[pool[taken]]
                    taken += 1
                if not belief:
                    break
                bits = self.aware[player]
                believed = sum(hand[s] if bits >> s & 1 else UNAWARE for s in range(3))
                if believed <= CALL_CEIL:
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
            rand: Callable[[], float]) -> int:
    """The index of a card below rank `hi` among pool[start:size]: a few random tries,
    then the first one from a random point on; -1 when there is none."""
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
