"""`normal`: discards by the exact expected value of hand + crib over every
starter (C10.3's numbers); pegs for immediate points without leaving an easy 15
or 31 (or a pair) to the next player."""

from __future__ import annotations

from collections.abc import Sequence

from ...api import Rng
from ..cards import rank, value
from ..coach import choice_values
from ..items import total
from ..pegging import MAX_COUNT, score_lay
from ..vocabulary import BotLevel
from .common import BaseBot, View, own_crib, unseen


def reply_risk(card: str, count: int, rest: Sequence[str]) -> float:
    """The points the next player may expect to take off `card` laid at `count`:
    2 for a 15 or a 31 and 2 for a pair, times the chance that one unseen card is
    the right one."""
    new = count + value(card)
    if new == MAX_COUNT or not rest:
        return 0.0
    n = len(rest)
    need = {15 - new, MAX_COUNT - new}
    p_sum = sum(1 for c in rest if value(c) in need) / n
    p_pair = sum(1 for c in rest if rank(c) == rank(card)) / n
    return 2 * p_sum + 2 * p_pair


class NormalBot(BaseBot):
    level = BotLevel.NORMAL

    def choose_give(self, view: View, seat: int, rng: Rng) -> tuple[str, ...]:
        hand = list(view["hand"])
        n = len(view["players"])
        values = choice_values(hand, 2 if n == 2 else 1, own_crib(view, seat))
        return max(values, key=lambda gv: gv[1])[0]

    def choose_lay(self, view: View, seat: int, rng: Rng) -> str:
        series = [e["card"] for e in view["play"]["series"]]
        count = view["play"]["count"]
        rest = unseen(view)

        def worth(c: str) -> tuple[float, int]:
            return total(score_lay([*series, c])) - reply_risk(c, count, rest), value(c)

        cards: list[str] = sorted(view["playable"])
        return max(cards, key=worth)
