"""`hard`: the normal discard, with the crib's unknown cards weighted by what the
other seats are likely to give (good cards to their own crib, poor ones to an
opponent's); in the play, a look-ahead over the unseen cards: each card's points
now, minus the next player's best expected reply, plus its own best answer."""

from __future__ import annotations

from collections.abc import Sequence
from math import comb

from ...api import Rng
from ..cards import rank, value
from ..expect import crib_draws, crib_ev, hand_ev
from ..items import total
from ..pegging import fits, score_lay
from ..vocabulary import BotLevel
from .common import BaseBot, View, give_choices, own_crib, unseen

# By rank (A..K): how likely a seat gives a card of that rank to its own (side's)
# crib, and to an opponent's. Fives and touching low cards go to one's own crib;
# an opponent's crib gets Kings and far-apart cards.
TO_OWN = (1.2, 1.2, 1.3, 1.3, 2.0, 1.1, 1.1, 1.1, 1.0, 1.1, 1.0, 1.0, 1.0)
TO_OPPONENT = (1.0, 0.9, 0.8, 0.8, 0.3, 0.8, 0.9, 0.9, 1.1, 1.0, 0.8, 1.1, 1.3)


def _p_holds(k: int, n_unseen: int, h: int) -> float:
    """The chance that `h` cards drawn from `n_unseen` hold one of `k` given cards."""
    if h <= 0 or k <= 0 or n_unseen <= 0:
        return 0.0
    return 1 - comb(n_unseen - k, h) / comb(n_unseen, h)


def best_reply(series: Sequence[str], rest: Sequence[str], held: int) -> float:
    """The expected points of the next player's best card after `series`, who holds
    `held` cards drawn from `rest` (one card a rank is enough to reply)."""
    if held <= 0 or not rest:
        return 0.0
    count = sum(value(c) for c in series)
    by_rank: dict[int, list[str]] = {}
    for c in rest:
        by_rank.setdefault(rank(c), []).append(c)
    options = []
    for cards in by_rank.values():
        if fits(cards[0], count):
            pts = total(score_lay([*series, cards[0]]))
            if pts:
                options.append((pts, _p_holds(len(cards), len(rest), held)))
    options.sort(reverse=True)
    expected, none_yet = 0.0, 1.0
    for pts, p in options:
        expected += none_yet * p * pts
        none_yet *= 1 - p
    return expected


class HardBot(BaseBot):
    level = BotLevel.HARD

    def choose_give(self, view: View, seat: int, rng: Rng) -> tuple[str, ...]:
        hand = list(view["hand"])
        n = len(view["players"])
        rest = unseen(view)
        own = own_crib(view, seat)
        weights = self._weights(view, seat, own)
        sign = 1.0 if own else -1.0
        give_n = 2 if n == 2 else 1
        drawn = crib_draws(rest, 5 - give_n)
        best, best_v = None, float("-inf")
        for g in give_choices(hand, n):
            kept = [c for c in hand if c not in g]
            v = hand_ev(kept, rest) + sign * crib_ev(g, rest, weights, drawn)
            if v > best_v:
                best, best_v = g, v
        assert best is not None
        return best

    @staticmethod
    def _weights(view: View, seat: int, own: bool) -> tuple[float, ...]:
        """The others give to the dealer's crib: to their own side's (TO_OWN) or to an
        opponent's (TO_OPPONENT); mixed with 3 players (the dealer's own and the rest)."""
        players = view["players"]
        if len(players) == 3:
            return tuple((a + 2 * b) / 3 for a, b in zip(TO_OWN, TO_OPPONENT, strict=True))
        return TO_OPPONENT if own else TO_OWN

    def choose_lay(self, view: View, seat: int, rng: Rng) -> str:
        series = [e["card"] for e in view["play"]["series"]]
        rest = unseen(view)
        players = view["players"]
        nxt = players[(seat + 1) % len(players)]
        hand = list(view["hand"])

        def worth(c: str) -> tuple[float, int]:
            after = [*series, c]
            now = total(score_lay(after))
            reply = best_reply(after, rest, int(nxt["held"]))
            mine = [x for x in hand if x != c]
            # my best answer to a likely low reply: the points left in my own hand
            answer = max((total(score_lay([*after, x])) for x in mine
                          if fits(x, sum(value(y) for y in after))), default=0)
            return now - reply + 0.25 * answer, value(c)

        cards: list[str] = sorted(view["playable"])
        return max(cards, key=worth)


