"""★ The discard coach (C10.3): what each choice of cards for the crib was worth
on average, from the player's own point of view at the moment of giving (only
their dealt cards known): the kept hand's show points over every starter, plus
the crib's if it is theirs (or their team's), minus it if not. Exact, by rank
pattern (`expect`); pegging is not counted."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from .cards import unseen
from .expect import crib_draws, crib_ev, hand_ev
from .state import Coach

TOLERANCE = 1e-9


def choice_values(dealt: Sequence[str], give_n: int, own_crib: bool) -> list[
        tuple[tuple[str, ...], float]]:
    """Every choice of `give_n` cards from `dealt` (in dealt order) with its exact
    expected value (C10.3)."""
    rest = unseen(dealt)
    sign = 1.0 if own_crib else -1.0
    drawn = crib_draws(rest, 5 - give_n)
    out = []
    for gave in combinations(dealt, give_n):
        kept = [c for c in dealt if c not in gave]
        out.append((gave, hand_ev(kept, rest) + sign * crib_ev(gave, rest, drawn=drawn)))
    return out


def coach(dealt: Sequence[str], gave: Sequence[str], own_crib: bool) -> Coach:
    """The coach's entry: the choice made and the best, each rounded to 0.1."""
    values = choice_values(dealt, len(gave), own_crib)
    chosen_key = frozenset(gave)
    chosen = next(v for g, v in values if frozenset(g) == chosen_key)
    best_gave, best = max(values, key=lambda gv: gv[1])
    if chosen >= best - TOLERANCE:
        best_gave, best = tuple(gave), chosen
    return Coach(tuple(gave), round(chosen, 1), tuple(best_gave), round(best, 1))
