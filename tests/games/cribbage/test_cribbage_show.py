"""C1.2, C1.3, C6.1-C6.6, C9.3: the show scorer, item by item."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from crisp.games.cribbage.cards import DECK, value
from crisp.games.cribbage.expect import rank_points
from crisp.games.cribbage.show_score import score_show, show_notes, show_points


def kinds(hand: list[str], starter: str, crib: bool = False) -> Counter[str]:
    c: Counter[str] = Counter()
    for i in score_show(hand, starter, crib):
        c[str(i.kind)] += i.points
    return c


def test_c1_2_the_ace_is_low_and_k_a_2_is_no_run() -> None:
    assert "run" not in kinds(["KS", "AH", "2D", "7C"], "9S")
    assert kinds(["AS", "2H", "3D", "9C"], "QS")["run"] == 3
    assert kinds(["JS", "QH", "KD", "9C"], "4S")["run"] == 3


def test_c1_3_count_values() -> None:
    assert [value(c) for c in ("AS", "2S", "9S", "TS", "JS", "QS", "KS")] == [
        1, 2, 9, 10, 10, 10, 10]


def test_c6_1_every_combination_making_fifteen_scores_two() -> None:
    items = [i for i in score_show(["5H", "TS", "JD", "QC"], "KS") if i.kind == "fifteen"]
    assert len(items) == 4 and all(i.points == 2 and len(i.cards) == 2 for i in items)
    # 2 to 5 cards: A+2+3+4+5 is fifteen with all five
    assert any(len(i.cards) == 5 for i in score_show(["AH", "2C", "3D", "4S"], "5H"))


def test_c6_2_pairs_pair_royal_double_pair_royal() -> None:
    assert kinds(["7H", "7C", "2D", "9S"], "KS")["pair"] == 2
    assert kinds(["7H", "7C", "7D", "9S"], "KS")["pair_royal"] == 6
    assert kinds(["7H", "7C", "7D", "7S"], "KS")["double_pair_royal"] == 12


def test_c6_3_double_run_of_three() -> None:
    k = kinds(["3H", "4S", "4D", "5C"], "KS")
    assert k["run"] == 6 and k["pair"] == 2
    assert show_points(["3H", "4S", "4D", "5C"], "KS") == 10  # and 5+K is fifteen two
    runs = [i for i in score_show(["3H", "4S", "4D", "5C"], "KS") if i.kind == "run"]
    assert len(runs) == 2 and {len(r.cards) for r in runs} == {3}


def test_c6_3_only_the_longest_run_counts() -> None:
    runs = [i for i in score_show(["3H", "4S", "5D", "6C"], "9S") if i.kind == "run"]
    assert [r.points for r in runs] == [4]


def test_c6_4_hand_flush_four_or_five_crib_five_only() -> None:
    assert kinds(["2H", "4H", "8H", "QH"], "KS")["flush"] == 4
    assert kinds(["2H", "4H", "8H", "QH"], "KH")["flush"] == 5
    assert kinds(["2H", "4H", "8H", "QH"], "KS", crib=True)["flush"] == 0
    assert kinds(["2H", "4H", "8H", "QH"], "KH", crib=True)["flush"] == 5
    assert kinds(["2H", "4H", "8H", "QS"], "KH")["flush"] == 0  # the starter never makes 4


def test_c6_5_his_nobs() -> None:
    items = [i for i in score_show(["JS", "2H", "4D", "8C"], "KS") if i.kind == "nobs"]
    assert len(items) == 1 and items[0].points == 1 and items[0].cards == ("JS", "KS")
    assert kinds(["JS", "2H", "4D", "8C"], "KH")["nobs"] == 0
    assert kinds(["2H", "4D", "8C", "9S"], "JS")["nobs"] == 0  # the starter Jack is heels


@pytest.mark.parametrize(("hand", "starter", "crib", "points"), [
    (["5H", "5C", "JD", "TS"], "5S", False, 20),
    (["5H", "5C", "5S", "JD"], "5D", False, 29),
    (["3H", "4S", "5D", "6C"], "6H", False, 16),
    (["4H", "6H", "9H", "TH"], "KS", False, 6),
    (["4H", "6H", "9H", "TH"], "KS", True, 2),
    (["AH", "2C", "3D", "4S"], "5H", False, 7),
    (["2H", "4C", "6D", "8S"], "TH", False, 0),
])
def test_c6_6_the_examples(hand: list[str], starter: str, crib: bool, points: int) -> None:
    assert show_points(hand, starter, crib) == points


def test_c6_6_the_seed_example_items() -> None:
    k = kinds(["5H", "5C", "JD", "TS"], "5S")
    assert k["fifteen"] == 14 and k["pair_royal"] == 6


def test_c9_3_every_item_names_its_cards_and_the_counting_order() -> None:
    items = score_show(["5H", "5C", "5S", "JD"], "5D")
    order = [str(i.kind) for i in items]
    assert order == sorted(order, key=["fifteen", "pair", "pair_royal", "double_pair_royal",
                                       "run", "flush", "nobs"].index)
    assert sum(i.points for i in items) == 29
    for i in items:
        assert set(i.cards) <= {"5H", "5C", "5S", "JD", "5D"} and i.cards


def test_rank_points_plus_flush_and_nobs_is_the_scorer() -> None:
    """The fast rank-pattern scorer the coach uses agrees with the item scorer."""
    rng = random.Random(5)
    for _ in range(3000):
        cards = rng.sample(DECK, 5)
        hand, starter = cards[:4], cards[4]
        items = score_show(hand, starter)
        suited = sum(i.points for i in items if i.kind in ("flush", "nobs"))
        ranks = tuple(sorted("A23456789TJQK".index(c[0]) for c in cards))
        assert rank_points(ranks) + suited == show_points(hand, starter)


def test_c6_4_what_did_not_count_is_said() -> None:
    """A four-card flush in the crib ("a crib flush needs the starter") and four of a
    suit made with the starter are named in the show entry's `notes`."""
    assert show_notes(["4H", "6H", "9H", "TH"], "KS", crib=True) == [
        "crib_flush_needs_starter"]
    assert show_notes(["4H", "6H", "9H", "TH"], "KS") == []  # a hand's four-card flush counts
    assert show_notes(["4H", "6H", "9H", "TH"], "KH", crib=True) == []
    assert show_notes(["4H", "6H", "9H", "TC"], "KH") == ["flush_needs_four_in_hand"]
    assert show_notes(["4H", "6S", "9H", "TC"], "KH") == []
