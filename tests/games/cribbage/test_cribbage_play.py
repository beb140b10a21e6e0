"""C5 the play (pegging) through the game, and C2 the board: counting out at the
moment of the target, the two pegs."""

from __future__ import annotations

from dataclasses import replace

import pytest

from crisp.games.api import GameError
from tests.games.cribbage.helpers import Table, build_deck


def dealt(p1_keep: list[str], p2_keep: list[str], starter: str = "AS",
          p1_give: tuple[str, str] = ("KD", "QD"),
          p2_give: tuple[str, str] = ("KC", "QC")) -> Table:
    """2 players, p1 deals; both have given; the play starts with p2 (the pone)."""
    deck = build_deck([[*p1_keep, *p1_give], [*p2_keep, *p2_give]], dealer=0, starter=starter)
    t = Table(2, decks=[deck], dealer=0)
    t.give("p1", *p1_give)
    t.give("p2", *p2_give)
    return t


def items(events: list, kind: str = "laid") -> list[dict]:  # type: ignore[type-arg]
    e = [x for x in events if x.kind == kind]
    return [dict(i) for x in e for i in x.data["items"]]


def test_c5_1_the_player_after_the_dealer_leads_and_turns_go_clockwise() -> None:
    t = dealt(["5D", "6S", "9C", "8H"], ["4H", "5S", "6D", "7C"])
    assert t.view("p2")["turn"]["player"] == "p2"
    assert t.view("p2")["playable"] == ["4H", "5S", "6D", "7C"]
    assert t.view("p1")["playable"] == []
    with pytest.raises(GameError) as e:
        t.lay("p1", "5D")
    assert e.value.code == "not_your_turn"
    t.lay("p2", "4H")
    assert t.view("p1")["turn"]["player"] == "p1"
    assert t.view(None)["play"] == {"count": 4, "series": [{"player": "p2", "card": "4H"}]}


def test_c5_2_the_server_says_go_for_a_player_who_cannot_lay() -> None:
    t = dealt(["5D", "6S", "9C", "8H"], ["4H", "5S", "6D", "7C"])
    for p, c in (("p2", "4H"), ("p1", "5D"), ("p2", "6D"), ("p1", "6S"), ("p2", "7C")):
        t.lay(p, c)
    assert t.of("go") == [{"player": "p1"}]
    over = t.of("series_over")[-1]
    assert over["player"] == "p2"
    assert over["items"] == [{"kind": "go", "cards": ["7C"], "points": 1}]
    assert t.state.scores == (2, 6)  # p1 a pair; p2 fifteen 2 + run 3 + go 1
    assert t.view(None)["play"]["count"] == 0


def test_c5_2_laying_past_31_or_a_card_not_held_is_refused_and_changes_nothing() -> None:
    t = dealt(["5D", "6S", "9C", "8H"], ["4H", "5S", "6D", "7C"],
              p1_give=("KD", "QD"), p2_give=("KC", "QC"))
    for p, c in (("p2", "4H"), ("p1", "5D"), ("p2", "6D"), ("p1", "6S"), ("p2", "7C")):
        t.lay(p, c)
    # the series reset; p1 leads
    before = t.state
    with pytest.raises(GameError) as e:
        t.lay("p1", "AH")
    assert e.value.code == "illegal" and e.value.rule == "C5.1" and t.state is before
    t.lay("p1", "9C")
    t.lay("p2", "5S")
    t.lay("p1", "8H")
    assert t.state.status == "show"


def test_c5_3_after_a_go_the_others_keep_laying_and_31_scores_two_and_no_go() -> None:
    t = dealt(["TS", "9S", "8S", "7S"], ["KH", "QH", "AH", "2H"])
    t.lay("p2", "KH")
    t.lay("p1", "TS")
    t.lay("p2", "QH")
    assert t.of("go") == [{"player": "p1"}]
    assert t.view("p2")["turn"]["player"] == "p2"  # p2 keeps laying
    ev = t.lay("p2", "AH")
    assert {"kind": "thirty_one", "cards": ["KH", "TS", "QH", "AH"], "points": 2} in items(ev)
    assert items(ev, "series_over") == []  # 31 is never scored twice
    assert t.state.scores == (0, 2)
    t.lay("p1", "9S")  # the player after the last to lay leads
    t.lay("p2", "2H")
    t.lay("p1", "8S")
    with pytest.raises(GameError) as e:
        t.lay("p2", "2H")
    assert e.value.code in ("not_your_turn", "illegal")
    ev = t.lay("p1", "7S")  # p2 has no cards: p1 lays on
    assert items(ev, "series_over") == [{"kind": "go", "cards": ["7S"], "points": 1}]


def test_c5_3_over_31_is_refused() -> None:
    t = dealt(["TS", "9S", "8S", "7S"], ["KH", "QH", "AH", "2H"])
    t.lay("p2", "KH")
    t.lay("p1", "TS")
    t.lay("p2", "QH")
    before = t.state
    with pytest.raises(GameError) as e:
        t.lay("p2", "2H")
    assert e.value.code == "illegal" and e.value.rule == "C5.2" and t.state is before


def test_c5_4_the_seeds_four_five_six() -> None:
    t = dealt(["5D", "6S", "9C", "8H"], ["4H", "5S", "6D", "7C"])
    t.lay("p2", "4H")
    t.lay("p1", "5D")
    ev = t.lay("p2", "6D")
    assert sorted(i["kind"] for i in items(ev)) == ["fifteen", "run"]
    assert sum(i["points"] for i in items(ev)) == 5


def test_c5_5_the_last_card_scores_one_or_two_for_31() -> None:
    t = dealt(["KS", "2C", "8C", "7S"], ["TH", "9H", "3H", "4H"])
    for p, c in (("p2", "TH"), ("p1", "KS"), ("p2", "9H")):
        t.lay(p, c)
    ev = t.lay("p1", "2C")
    assert [i["kind"] for i in items(ev)] == ["thirty_one"]
    for p, c in (("p2", "3H"), ("p1", "8C"), ("p2", "4H")):
        t.lay(p, c)
    ev = t.lay("p1", "7S")
    assert items(ev, "series_over") == [{"kind": "go", "cards": ["7S"], "points": 1}]


def test_c5_6_after_the_play_each_hand_is_its_laid_cards() -> None:
    t = dealt(["KS", "2C", "8C", "7S"], ["TH", "9H", "3H", "4H"])
    for p, c in (("p2", "TH"), ("p1", "KS"), ("p2", "9H"), ("p1", "2C"), ("p2", "3H"),
                 ("p1", "8C"), ("p2", "4H"), ("p1", "7S")):
        t.lay(p, c)
    assert t.state.status == "show"
    assert sorted(t.view("p1")["hand"]) == sorted(["KS", "2C", "8C", "7S"])
    assert t.view("p2")["players"][0]["laid"] == ["KS", "2C", "8C", "7S"]
    t.until_due()
    assert t.state.show[0].whose == "p2" and sorted(t.state.show[0].cards) == sorted(
        ["TH", "9H", "3H", "4H"])


def test_c2_1_counting_out_in_the_play_at_the_moment_of_the_target() -> None:
    t = dealt(["5D", "6S", "9C", "8H"], ["4H", "5S", "6D", "7C"])
    t.state = replace(t.state, scores=(100, 118))
    t.lay("p2", "4H")
    t.lay("p1", "5D")
    t.lay("p2", "6D")  # 5 points: 123, shown as 121
    assert t.state.status == "game_over"
    v = t.view(None)
    assert [p["score"] for p in v["players"]] == [100, 121]
    assert v["game_points"] == {"winner_side": ["p2"], "points": 1, "skunk": "none"}
    assert v["turn"] is None
    with pytest.raises(GameError):
        t.lay("p1", "6S")


def test_c2_2_the_back_peg_is_the_score_before_the_last_scoring() -> None:
    t = dealt(["5D", "6S", "9C", "8H"], ["4H", "5S", "6D", "7C"])
    t.lay("p2", "4H")
    t.lay("p1", "5D")
    t.lay("p2", "6D")
    p2 = t.view(None)["players"][1]
    assert (p2["peg_from"], p2["score"]) == (0, 5)
    t.lay("p1", "6S")
    t.lay("p2", "7C")  # p2's go: 5 -> 6
    p2 = t.view(None)["players"][1]
    assert (p2["peg_from"], p2["score"]) == (5, 6)
