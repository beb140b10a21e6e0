"""C5.4 scoring a laid card, and the property that a series' points depend only
on the cards since the reset (hypothesis)."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from crisp.games.cribbage.cards import DECK, value
from crisp.games.cribbage.pegging import count_of, go_items, score_lay
from tests.games.cribbage.helpers import Table


def pts(series: list[str]) -> Counter[str]:
    c: Counter[str] = Counter()
    for i in score_lay(series):
        c[str(i.kind)] += i.points
    return c


def test_c5_4_fifteen_and_thirty_one() -> None:
    assert pts(["7H", "8S"]) == {"fifteen": 2}
    assert pts(["TH", "KS", "AD"]) == {}
    assert pts(["TH", "KS", "9D", "2C"]) == {"thirty_one": 2}


def test_c5_4_pairs_pair_royal_double_pair_royal() -> None:
    assert pts(["9H", "9S"]) == {"pair": 2}
    assert pts(["4H", "4S", "4D"]) == {"pair_royal": 6}
    assert pts(["2H", "2S", "2D", "2C"]) == {"double_pair_royal": 12}
    assert pts(["9H", "8S", "9D"]) == {}  # not the card just before


def test_c5_4_runs_in_any_order_the_longest_only() -> None:
    assert pts(["4H", "6S", "5D"]) == {"fifteen": 2, "run": 3}  # the seed's 4-5-6
    assert pts(["3H", "5S", "4D", "6C"]) == {"run": 4}
    assert pts(["2H", "3S", "4D", "5C", "AH"]) == {"fifteen": 2, "run": 5}


def test_c5_4_a_run_is_broken_by_a_card_not_in_it() -> None:
    assert pts(["5H", "6S", "5D", "7C"]) == {"run": 3}  # 6-5-7, not 5-6-5-7
    assert pts(["5H", "6S", "6D", "7C"]) == {}


def test_c5_4_a_laid_card_names_its_cards() -> None:
    items = score_lay(["4H", "6S", "5D"])
    run = next(i for i in items if i.kind == "run")
    assert run.cards == ("4H", "6S", "5D")


def test_c5_5_the_go_is_one_or_nothing_after_thirty_one() -> None:
    assert [i.points for i in go_items("5H", 27)] == [1]
    assert go_items("AH", 31) == []


_series = st.lists(st.sampled_from(DECK), min_size=1, max_size=8, unique=True).filter(
    lambda s: count_of(s) <= 31)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32), st.sampled_from([2, 3, 4]))
def test_c5_3_a_series_points_depend_only_on_the_cards_since_the_reset(
        seed: int, n: int) -> None:
    """In a played hand (computer players laying at random among their best), every
    laid card scores exactly what the cards since the last reset score alone, and
    every series' go goes to its last card (or nothing after 31)."""
    t = Table(n, seed=seed, dealer=seed % n)
    t.play_to(lambda s: s.status in ("show", "hand_over", "game_over"),
              levels={p: "easy" for p in t.players})
    series: list[str] = []
    last: str | None = None
    for e in t.log:
        if e.kind == "laid":
            series.append(e.data["card"])
            last = e.data["player"]
            assert e.data["items"] == [i.to_json() for i in score_lay(series)]
            assert e.data["count"] == count_of(series) <= 31
        elif e.kind == "series_over":
            assert e.data["player"] == last
            assert e.data["items"] == [i.to_json() for i in go_items(series[-1],
                                                                     count_of(series))]
            series = []


@settings(max_examples=300, deadline=None)
@given(_series)
def test_c5_4_points_are_the_last_cards_only(series: list[str]) -> None:
    """Pairs and runs use only trailing cards; 15/31 only the count."""
    items = score_lay(series)
    for i in items:
        if i.kind in ("pair", "pair_royal", "double_pair_royal", "run"):
            assert tuple(series[-len(i.cards):]) == i.cards
    total = count_of(series)
    assert any(i.kind == "fifteen" for i in items) == (total == 15)
    assert any(i.kind == "thirty_one" for i in items) == (total == 31)
    assert all(value(c) >= 1 for c in series)
