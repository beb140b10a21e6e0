"""`easy`: legal and plausible, as a beginner plays. It keeps the four cards that
score most as they are (fifteens, pairs, runs, a flush, without thinking of the
starter or the crib; ties at random) and lays a card at random, except that it
never misses a 15 or a 31."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations, pairwise

from ...api import Rng
from ..cards import rank, value
from ..pegging import score_lay
from ..vocabulary import BotLevel, ItemKind
from .common import BaseBot, View, give_choices


def points_as_they_are(cards: Sequence[str]) -> int:
    """The fifteens, pairs, runs and flush of the kept cards alone."""
    pts = 2 * sum(1 for k in range(2, len(cards) + 1) for s in combinations(cards, k)
                  if sum(value(c) for c in s) == 15)
    pts += 2 * sum(1 for a, b in combinations(cards, 2) if rank(a) == rank(b))
    ranks = sorted(rank(c) for c in cards)
    for k in range(len(cards), 2, -1):
        runs = sum(1 for s in combinations(ranks, k)
                   if all(y == x + 1 for x, y in pairwise(s)))
        if runs:
            pts += runs * k
            break
    if len({c[1] for c in cards}) == 1:
        pts += len(cards)
    return pts


class EasyBot(BaseBot):
    level = BotLevel.EASY
    calls_muggins = False

    def choose_give(self, view: View, seat: int, rng: Rng) -> tuple[str, ...]:
        hand = list(view["hand"])
        choices = give_choices(hand, len(view["players"]))
        worth = [points_as_they_are([c for c in hand if c not in g]) for g in choices]
        top = max(worth)
        best = [g for g, w in zip(choices, worth, strict=True) if w == top]
        return best[rng.randrange(len(best))]

    def choose_lay(self, view: View, seat: int, rng: Rng) -> str:
        series = [e["card"] for e in view["play"]["series"]]
        cards: list[str] = sorted(view["playable"])
        sure = [c for c in cards if any(i.kind in (ItemKind.FIFTEEN, ItemKind.THIRTY_ONE)
                                        for i in score_lay([*series, c]))]
        pick = sure or cards
        return pick[rng.randrange(len(pick))]
