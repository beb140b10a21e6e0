"""Scoring a laid card in the play (C5.4): 15, 31, pairs and runs among the
cards laid since the last reset only, and the go (C5.3, C5.5)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from .cards import rank, value
from .items import Item
from .vocabulary import ItemKind

MAX_COUNT = 31  # C5.2
_PAIR_KIND = {2: (ItemKind.PAIR, 2), 3: (ItemKind.PAIR_ROYAL, 6),
              4: (ItemKind.DOUBLE_PAIR_ROYAL, 12)}


def count_of(series: Sequence[str]) -> int:
    """The running count of the cards laid since the reset (C5.1)."""
    return sum(value(c) for c in series)


def fits(card: str, count: int) -> bool:
    """Whether `card` may be laid on `count` (C5.2)."""
    return count + value(card) <= MAX_COUNT


def score_lay(series: Sequence[str]) -> list[Item]:
    """The items the last card of `series` (the cards since the reset, in order,
    the new card last) scores (C5.4)."""
    if not series:
        return []
    count = count_of(series)
    items: list[Item] = []
    every = tuple(series)
    if count == 15:
        items.append(Item(ItemKind.FIFTEEN, every, 2))
    if count == MAX_COUNT:
        items.append(Item(ItemKind.THIRTY_ONE, every, 2))
    last = rank(series[-1])
    same = 1
    while same < len(series) and rank(series[-1 - same]) == last:
        same += 1
    if same >= 2:
        kind, points = _PAIR_KIND[same]
        items.append(Item(kind, every[-same:], points))
    for k in range(len(series), 2, -1):  # the longest run among the last k cards
        ranks = sorted(rank(c) for c in series[-k:])
        if all(b == a + 1 for a, b in itertools.pairwise(ranks)):
            items.append(Item(ItemKind.RUN, every[-k:], k))
            break
    return items


def go_items(last_card: str, count: int) -> list[Item]:
    """The go for the last card of a series (C5.3, C5.5): 1, or nothing after 31
    (its 2 came with the card)."""
    return [] if count == MAX_COUNT else [Item(ItemKind.GO, (last_card,), 1)]
