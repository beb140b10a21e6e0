"""`easy`: legal and plausible. Keeps the hand worth most on average and ignores
the crib; lays the card that scores most now (ties at random)."""

from __future__ import annotations

from ...api import Rng
from ..expect import hand_ev
from ..items import total
from ..pegging import score_lay
from ..vocabulary import BotLevel
from .common import BaseBot, View, give_choices, unseen


class EasyBot(BaseBot):
    level = BotLevel.EASY
    calls_muggins = False

    def choose_give(self, view: View, seat: int, rng: Rng) -> tuple[str, ...]:
        hand = list(view["hand"])
        rest = unseen(view)
        best = max(give_choices(hand, len(view["players"])),
                   key=lambda g: hand_ev([c for c in hand if c not in g], rest))
        return best

    def choose_lay(self, view: View, seat: int, rng: Rng) -> str:
        series = [e["card"] for e in view["play"]["series"]]
        cards: list[str] = sorted(view["playable"])
        points = {c: total(score_lay([*series, c])) for c in cards}
        top = max(points.values())
        options = [c for c in cards if points[c] == top]
        return options[rng.randrange(len(options))]
