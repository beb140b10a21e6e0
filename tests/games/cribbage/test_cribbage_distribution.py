"""C6.7: the show scorer over all 12,994,800 hands + starters, for hands and for
cribs, against the rulebook's table; counted by rank pattern and suit pattern.

For each hand's ranks (a multiset of 4, at most 4 of a rank) and starter rank,
the hand's suit choices (the cards of one rank have different suits; a hand is a
set, so they are chosen, not ordered) and the starter's suit are grouped by all
that suits can change (C6.4, C6.5): whether the hand's four suits are one,
whether the starter's is that one too, and how many of the hand's Jacks are of the
starter's suit. The real scorer is called once per group on a representative;
the group's size multiplies it. The grouping depends only on the shape of the
ranks (which cards share a rank, which are Jacks), so it is computed once a shape.
"""

from __future__ import annotations

import time
from collections import Counter
from functools import cache
from itertools import combinations_with_replacement, product

from crisp.games.cribbage.cards import RANKS, SUITS
from crisp.games.cribbage.show_score import show_points

HANDS = {0: 1_009_008, 1: 99_792, 2: 2_813_796, 3: 505_008, 4: 2_855_676, 5: 697_508,
         6: 1_800_268, 7: 751_324, 8: 1_137_236, 9: 361_224, 10: 388_740, 11: 51_680,
         12: 317_340, 13: 19_656, 14: 90_100, 15: 9_168, 16: 58_248, 17: 11_196,
         18: 2_708, 20: 8_068, 21: 2_496, 22: 444, 23: 356, 24: 3_680, 28: 76, 29: 4}
CRIBS = {0: 1_022_208, 1: 99_792, 2: 2_839_800, 3: 508_908, 4: 2_868_960, 5: 703_496,
         6: 1_787_176, 7: 755_320, 8: 1_118_336, 9: 358_368, 10: 378_240, 11: 43_880,
         12: 310_956, 13: 16_548, 14: 88_132, 15: 9_072, 16: 57_288, 17: 11_196,
         18: 2_264, 20: 7_828, 21: 2_472, 22: 444, 23: 356, 24: 3_680, 28: 76, 29: 4}
JACK = RANKS.index("J")

Shape = tuple[tuple[int, ...], tuple[bool, ...], int, bool]


def shape_of(hand: tuple[int, ...], starter: int) -> Shape:
    """Which hand cards share a rank (class ids, hand sorted), which classes are
    Jacks, the starter's class (-1: a rank not in the hand), whether it is a Jack."""
    ids: dict[int, int] = {}
    classes = tuple(ids.setdefault(r, len(ids)) for r in hand)
    jacks = tuple(r == JACK for r in ids)
    return classes, jacks, ids.get(starter, -1), starter == JACK


@cache
def suit_groups(shape: Shape) -> tuple[tuple[tuple[int, ...], int], ...]:
    """Each group's representative suits (hand's, then starter's) and its size."""
    classes, jacks, starter_class, starter_jack = shape
    groups: dict[tuple[bool, bool, int], list[object]] = {}
    for suits in product(range(4), repeat=5):
        hand = suits[:4]
        if any(classes[i] == classes[j] and hand[i] >= hand[j]
               for i in range(4) for j in range(i + 1, 4)):
            continue  # one rank's cards: different suits, chosen as a set
        if starter_class >= 0 and any(classes[i] == starter_class and hand[i] == suits[4]
                                      for i in range(4)):
            continue  # the starter is not a card of the hand
        one = len(set(hand)) == 1
        nobs = sum(1 for i in range(4) if jacks[classes[i]] and hand[i] == suits[4])
        key = (one, one and suits[4] == hand[0], nobs)
        if key in groups:
            groups[key][1] += 1  # type: ignore[operator]
        else:
            groups[key] = [suits, 1]
    _ = starter_jack
    return tuple((tuple(s), n) for s, n in groups.values())  # type: ignore[arg-type]


def distribution(crib: bool) -> Counter[int]:
    out: Counter[int] = Counter()
    for hand in combinations_with_replacement(range(13), 4):
        counts = Counter(hand)
        if max(counts.values()) > 4:
            continue
        for starter in range(13):
            if counts[starter] == 4:
                continue
            for suits, size in suit_groups(shape_of(hand, starter)):
                cards = [RANKS[r] + SUITS[s]
                         for r, s in zip((*hand, starter), suits, strict=True)]
                out[show_points(cards[:4], cards[4], crib)] += size
    return out


def test_c6_7_the_whole_distribution_for_hands_and_cribs() -> None:
    t = time.process_time()
    hands, cribs = distribution(False), distribution(True)
    elapsed = time.process_time() - t
    assert sum(hands.values()) == sum(cribs.values()) == 270_725 * 48 == 12_994_800
    assert dict(hands) == HANDS
    assert dict(cribs) == CRIBS
    for impossible in (19, 25, 26, 27):
        assert hands[impossible] == cribs[impossible] == 0
    assert elapsed <= 15, elapsed
