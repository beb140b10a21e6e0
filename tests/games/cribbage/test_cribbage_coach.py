"""C10.3 the discard coach: its exact numbers against a slow brute force of the
same definition (every starter, every draw of the crib's unknown cards from the
unseen ones), and the coach in the view at hand_over."""

from __future__ import annotations

import random
from itertools import combinations

import pytest

from crisp.games.cribbage.cards import DECK, unseen
from crisp.games.cribbage.coach import choice_values, coach
from crisp.games.cribbage.expect import crib_ev, hand_ev
from crisp.games.cribbage.show_score import show_points
from tests.games.cribbage.helpers import Table


def brute_hand(kept: list[str], rest: list[str]) -> float:
    return sum(show_points(kept, s) for s in rest) / len(rest)


_CRIBS: dict[tuple[object, ...], int] = {}


def crib_points(crib: list[str], starter: str) -> int:
    """`show_points(crib, starter, crib=True)`, computed once for all the cribs the
    suits cannot tell apart (C6.4, C6.5: a crib flush is its four cards and the
    starter of one suit; nobs a Jack of the starter's suit; the rest is ranks): the
    key of test_cribbage_distribution.py's groups, which checks the scorer on every
    hand of each group against the rulebook's table. The brute force calls the
    scorer ~10x less often."""
    suits = [c[1] for c in crib]
    one = suits.count(suits[0]) == 4
    key = (tuple(sorted(c[0] for c in crib)), starter[0], one, one and starter[1] == suits[0],
           sum(1 for c in crib if c[0] == "J" and c[1] == starter[1]))
    points = _CRIBS.get(key)
    if points is None:
        points = _CRIBS[key] = show_points(crib, starter, crib=True)
    return points


def brute_crib(known: list[str], rest: list[str]) -> float:
    """Every starter, then every set of the crib's other cards from what is left."""
    m = 4 - len(known)
    total, count = 0, 0
    for s in rest:
        others = [c for c in rest if c != s]
        for extra in combinations(others, m):
            total += crib_points([*known, *extra], s)
            count += 1
    return total / count


@pytest.mark.parametrize("seed", [1, 2])
def test_c10_3_two_players_exact_against_brute_force(seed: int) -> None:
    rng = random.Random(seed)
    dealt = rng.sample(DECK, 6)
    rest = unseen(dealt)
    values = dict(choice_values(dealt, 2, own_crib=True))
    for gave in list(values)[:: 7]:  # a few choices: the brute force is slow
        kept = [c for c in dealt if c not in gave]
        slow = brute_hand(kept, rest) + brute_crib(list(gave), rest)
        assert values[gave] == pytest.approx(slow, abs=1e-9)
    against = dict(choice_values(dealt, 2, own_crib=False))
    for gave, v in against.items():  # the hand part for every choice; the crib subtracted
        kept = [c for c in dealt if c not in gave]
        assert v + crib_ev(gave, rest) == pytest.approx(brute_hand(kept, rest), abs=1e-9)


def test_c10_3_the_crib_of_four_unknown_cards_exact_on_a_small_deck() -> None:
    """With 3 or 4 players a crib has one known card and four unknown (the starter
    among them); the formula is exact for any set of unseen cards: checked on 18."""
    rng = random.Random(4)
    cards = rng.sample(DECK, 19)
    known, rest = cards[:1], cards[1:]
    rest += ["JS", "JH", "5D"] if "JS" not in cards else []
    rest = [c for c in dict.fromkeys(rest) if c not in known]
    assert crib_ev(known, rest) == pytest.approx(brute_crib(known, rest), abs=1e-9)
    flush_known = ["2H"]
    rest2 = [*[c for c in DECK if c[1] == "H" and c != "2H"][:8], "JS", "5C", "KD"]
    assert crib_ev(flush_known, rest2) == pytest.approx(brute_crib(flush_known, rest2),
                                                        abs=1e-9)


def test_c10_3_the_coach_names_the_choice_and_the_best_rounded() -> None:
    dealt = ["5H", "5C", "JD", "TS", "2C", "9D"]
    c = coach(dealt, ["2C", "9D"], own_crib=True)
    values = dict(choice_values(dealt, 2, own_crib=True))
    assert c.expected == round(values[("2C", "9D")], 1)
    assert c.best_expected == round(max(values.values()), 1)
    assert c.best_expected >= c.expected
    j = c.to_json()
    assert set(j) == {"gave", "expected", "best"} and set(j["best"]) == {"gave", "expected"}
    worse = coach(dealt, ["5H", "5C"], own_crib=False)
    assert worse.expected < worse.best_expected


def test_c10_3_the_coach_is_in_each_seats_view_at_hand_over_only() -> None:
    t = Table(2, dealer=0, seed=5)
    assert t.view("p1")["coach"] is None
    t.play_to(lambda s: s.status in ("hand_over", "game_over"))
    for s, p in enumerate(t.players):
        c = t.view(p)["coach"]
        assert c is not None and sorted(c["gave"]) == sorted(t.state.gave[s])
        own = s == t.state.dealer
        assert c == coach(t.state.dealt[s], t.state.gave[s], own).to_json()
    assert t.view(None)["coach"] is None
    t.send("p1", {"type": "ready"})
    t.send("p2", {"type": "ready"})
    assert t.view("p1")["coach"] is None


def test_c10_3_normal_discards_are_the_coachs_best() -> None:
    t = Table(2, dealer=0, seed=6)
    t.play_to(lambda s: s.status in ("hand_over", "game_over"))
    for p in t.players:
        c = t.view(p)["coach"]
        assert c["expected"] == c["best"]["expected"]


def test_c10_3_hand_ev_exact() -> None:
    rest = unseen(["5H", "5C", "5S", "JD", "2C", "3C"])
    assert hand_ev(["5H", "5C", "5S", "JD"], rest) == pytest.approx(
        brute_hand(["5H", "5C", "5S", "JD"], rest))
