"""Exact expected show points by rank pattern (C10.3's method; the bots use it
too): a kept hand over every starter, a crib over every draw of its unknown
cards and the starter from the unseen cards. Suits matter only for the flush
(C6.4) and nobs (C6.5), which are counted apart; the rest depends on the five
ranks alone (`rank_points`, cached)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import lru_cache
from itertools import combinations
from math import comb

from .cards import JACK, RANKS, rank, rank_value

_RANK_SUBSETS = tuple(s for k in range(2, 6) for s in combinations(range(5), k))


@lru_cache(maxsize=8192)
def rank_points(ranks: tuple[int, ...]) -> int:
    """Fifteens, pairs and runs of five ranks, sorted (C6.1-C6.3)."""
    values = [rank_value(r) for r in ranks]
    points = 2 * sum(1 for s in _RANK_SUBSETS if sum(values[i] for i in s) == 15)
    counts = [0] * 13
    for r in ranks:
        counts[r] += 1
    points += sum(c * (c - 1) for c in counts)  # 2 per pair
    r = 0
    while r < 13:
        end = r
        while end < 13 and counts[end]:
            end += 1
        if end - r >= 3:
            ways = 1
            for q in range(r, end):
                ways *= counts[q]
            points += ways * (end - r)
        r = end + 1
    return points


def _rank_counts(cards: Sequence[str]) -> list[int]:
    counts = [0] * 13
    for c in cards:
        counts[rank(c)] += 1
    return counts


def _suit_counts(cards: Sequence[str]) -> dict[str, int]:
    out = {s: 0 for s in "SHDC"}
    for c in cards:
        out[c[1]] += 1
    return out


def draws(counts: Sequence[int], m: int) -> Iterator[tuple[tuple[int, ...], int]]:
    """Every multiset of `m` ranks drawn from cards with these rank counts, with
    the number of card sets that give it."""

    def rec(r: int, left: int, acc: tuple[int, ...], ways: int) -> Iterator[
            tuple[tuple[int, ...], int]]:
        if left == 0:
            yield acc, ways
            return
        if r == 13:
            return
        for k in range(min(left, counts[r]), -1, -1):
            yield from rec(r + 1, left - k, acc + (r,) * k, ways * comb(counts[r], k))

    yield from rec(0, m, (), 1)


def hand_ev(kept: Sequence[str], unseen: Sequence[str]) -> float:
    """The mean show points of `kept` (4 cards) over every starter in `unseen`."""
    n = len(unseen)
    base = rank_key([rank(c) for c in kept])
    counts = _rank_counts(unseen)
    total = sum(c * points_by_key(base + _POW5[r]) for r, c in enumerate(counts) if c)
    suits = _suit_counts(unseen)
    kept_suits = {c[1] for c in kept}
    flush = 0.0
    if len(kept_suits) == 1:  # C6.4
        s = next(iter(kept_suits))
        flush = 4 + suits[s] / n
    nobs = sum(suits[c[1]] for c in kept if c[0] == RANKS[JACK]) / n  # C6.5
    return total / n + flush + nobs


Draws = list[tuple[tuple[int, ...], int, int]]

# A multiset of ranks as a number: the sum of 5**rank over its cards (at most 4 of
# a rank), so the key of two multisets together is the sum of their keys.
_POW5 = tuple(5**r for r in range(13))
_BY_KEY: dict[int, int] = {}


def rank_key(ranks: Sequence[int]) -> int:
    return sum(_POW5[r] for r in ranks)


def points_by_key(key: int) -> int:
    """`rank_points` of the five ranks whose key is `key` (cached by key)."""
    pts = _BY_KEY.get(key)
    if pts is None:
        ranks: list[int] = []
        k = key
        for r in range(13):
            ranks += [r] * (k % 5)
            k //= 5
        pts = _BY_KEY[key] = rank_points(tuple(ranks))
    return pts


def crib_draws(unseen: Sequence[str], m: int) -> Draws:
    """`draws` over the unseen cards with their keys, as a list to reuse for every
    choice."""
    return [(ranks, w, rank_key(ranks)) for ranks, w in draws(_rank_counts(unseen), m)]


def crib_ev(known: Sequence[str], unseen: Sequence[str],
            weights: Sequence[float] | None = None, drawn: Draws | None = None) -> float:
    """The mean show points of a crib holding `known` (the cards this player gave)
    whose other cards and the starter are every equally likely draw from `unseen`
    (C10.3). `weights` (by rank) makes the other seats' cards likelier by rank (the
    hard bot's guess at their discards; then the value is its estimate, not C10.3's).
    `drawn`: `crib_draws(unseen, 5 - len(known))`, computed once for many calls."""
    n = len(unseen)
    m = 5 - len(known)
    base = rank_key([rank(c) for c in known])
    ways_all = comb(n, m)
    if drawn is None:
        drawn = crib_draws(unseen, m)
    total = 0.0
    norm = 0.0
    by_key = _BY_KEY
    if weights is None:
        for _, w, key in drawn:
            pts = by_key.get(base + key)
            total += w * (points_by_key(base + key) if pts is None else pts)
        norm = ways_all
    else:
        for ranks, w, key in drawn:
            prod = 1.0
            for r in ranks:
                prod *= weights[r]
            # the starter is any one of the m cards; the others are the seats' discards
            wt = w * sum(prod / weights[r] for r in ranks) / m
            total += wt * points_by_key(base + key)
            norm += wt
    suits = _suit_counts(unseen)
    known_suits = {c[1] for c in known}
    flush = 0.0
    if len(known_suits) == 1:  # C6.4: a crib's flush is five cards
        flush = 5 * comb(suits[next(iter(known_suits))], m) / ways_all
    nobs = sum(suits[c[1]] for c in known if c[0] == RANKS[JACK]) / n  # C6.5
    unseen_set = set(unseen)
    for s, u in suits.items():  # a Jack among the crib's unknown cards
        if RANKS[JACK] + s in unseen_set:
            nobs += (u - 1) / n * (m - 1) / (n - 1)
    return total / norm + flush + nobs
