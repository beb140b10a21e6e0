"""The show scorer (C6): a hand's or the crib's 4 cards with the starter, every
scoring item named, in the order players count them: fifteens (C6.1), pairs
(C6.2), runs (C6.3), the flush (C6.4: a crib's needs the starter) and his nobs
(C6.5)."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from .cards import JACK, RANKS, rank, rank_value
from .items import Item
from .vocabulary import ItemKind, NoteKind

# Every subset of 2..5 of the five cards, as index tuples (C6.1).
_SUBSETS: tuple[tuple[int, ...], ...] = tuple(
    s for k in range(2, 6) for s in combinations(range(5), k))
_PAIR_KIND = {2: (ItemKind.PAIR, 2), 3: (ItemKind.PAIR_ROYAL, 6),
              4: (ItemKind.DOUBLE_PAIR_ROYAL, 12)}


def score_show(hand: Sequence[str], starter: str, crib: bool = False) -> list[Item]:
    """The items of `hand` (4 cards) with `starter`, counted as a crib when `crib`."""
    if len(hand) != 4:
        raise ValueError("a hand at the show is 4 cards")
    cards = (*hand, starter)
    ranks = [rank(c) for c in cards]
    values = [rank_value(r) for r in ranks]
    items: list[Item] = []
    for subset in _SUBSETS:  # C6.1
        if sum(values[i] for i in subset) == 15:
            items.append(Item(ItemKind.FIFTEEN, tuple(cards[i] for i in subset), 2))
    by_rank: dict[int, list[str]] = {}
    for c, r in zip(cards, ranks, strict=True):
        by_rank.setdefault(r, []).append(c)
    for r in sorted(by_rank):  # C6.2
        group = by_rank[r]
        if len(group) >= 2:
            kind, points = _PAIR_KIND[len(group)]
            items.append(Item(kind, tuple(group), points))
    items.extend(_runs(by_rank))  # C6.3
    suits = {c[1] for c in hand}
    if len(suits) == 1:  # C6.4
        if starter[1] in suits:
            items.append(Item(ItemKind.FLUSH, cards, 5))
        elif not crib:
            items.append(Item(ItemKind.FLUSH, tuple(hand), 4))
    for c in hand:  # C6.5
        if c[0] == RANKS[JACK] and c[1] == starter[1]:
            items.append(Item(ItemKind.NOBS, (c, starter), 1))
    return items


def _runs(by_rank: dict[int, list[str]]) -> list[Item]:
    """Each way of choosing the cards of the longest runs (C6.3, C1.2: Ace low)."""
    items: list[Item] = []
    r = 0
    while r < 13:
        if r not in by_rank:
            r += 1
            continue
        end = r
        while end + 1 in by_rank:
            end += 1
        if end - r + 1 >= 3:
            ways: list[tuple[str, ...]] = [()]
            for q in range(r, end + 1):
                ways = [(*w, c) for w in ways for c in by_rank[q]]
            items.extend(Item(ItemKind.RUN, w, len(w)) for w in ways)
        r = end + 1
    return items


def show_points(hand: Sequence[str], starter: str, crib: bool = False) -> int:
    """The total of `score_show`."""
    return sum(i.points for i in score_show(hand, starter, crib))


def show_notes(hand: Sequence[str], starter: str, crib: bool = False) -> list[NoteKind]:
    """What did not count where players expect it to (C6.4): a crib of one suit
    without the starter's ("a crib flush needs the starter"), and four of a suit
    made with the starter ("the starter never makes a flush of four")."""
    suits = [c[1] for c in hand]
    if len(set(suits)) == 1 and starter[1] != suits[0]:
        return [NoteKind.CRIB_FLUSH_NEEDS_STARTER] if crib else []
    if suits.count(starter[1]) == 3:
        return [NoteKind.FLUSH_NEEDS_FOUR_IN_HAND]
    return []
