"""C1 players and teams, C3 the first dealer, the deal and the crib, C4 the
starter and his heels."""

from __future__ import annotations

import random
from collections.abc import MutableSequence
from dataclasses import replace
from typing import Any

import pytest

from crisp.games.api import Ctx, Event, GameError, Setup
from crisp.games.cribbage import GAME, rematch_dealer
from crisp.games.cribbage.cards import DECK
from crisp.games.cribbage.hand import cut_for_dealer
from tests.games.cribbage.helpers import Table, build_deck

H2 = [["AS", "2S", "3S", "4S", "5S", "6S"], ["AH", "2H", "3H", "4H", "5H", "6H"]]


class StackedRng(random.Random):
    """Shuffles put the given cards on top, in turn (for the cut)."""

    def __init__(self, tops: list[list[str]]) -> None:
        super().__init__(0)
        self.tops = tops

    def shuffle(self, x: MutableSequence[Any]) -> None:  # type: ignore[override]
        top = self.tops.pop(0)
        rest = [c for c in x if c not in top]
        x[:] = [*top, *rest]


def test_c1_1_two_three_or_four_players_and_no_fifth() -> None:
    for n in (2, 3, 4):
        assert Table(n).state.n == n
    for players in (["p1"], ["p1", "p2", "p3", "p4", "p5"]):
        with pytest.raises(GameError) as e:
            GAME.start(players, {}, Setup(dealer=0), Ctx(0, random.Random(1)))
        assert e.value.code == "illegal" and e.value.rule == "C1.1"


def test_c1_1_partners_sit_opposite_and_share_one_score() -> None:
    t = Table(4)
    v = t.view("p1")
    assert [p["team"] for p in v["players"]] == [0, 1, 0, 1]
    assert len(t.state.scores) == 2
    t.state = replace(t.state, scores=(7, 3))
    assert [p["score"] for p in t.view(None)["players"]] == [7, 3, 7, 3]
    assert [p["team"] for p in Table(2).view(None)["players"]] == [None, None]


def test_c3_1_the_lowest_cut_deals_and_ties_cut_again() -> None:
    events: list[Event] = []
    rng = StackedRng([["5H", "5D", "KS"], ["9C", "2C"]])
    dealer = cut_for_dealer(["p1", "p2", "p3"], rng, events)
    assert dealer == 1
    assert [e.data["cuts"] for e in events] == [{"p1": "5H", "p2": "5D", "p3": "KS"},
                                                {"p1": "9C", "p2": "2C"}]
    assert [e.data["dealer"] for e in events] == [None, "p2"]


def test_c3_1_the_server_cuts_at_start_and_shows_the_cuts_before_the_deal() -> None:
    t = Table(3, dealer=None, seed=4)
    cuts = t.of("cut")
    assert cuts and cuts[-1]["dealer"] == t.state.players[t.state.dealer]
    assert t.state.hand_no == 0 and t.view("p1")["hand"] == []
    t.until_due()
    assert t.state.hand_no == 1 and t.state.status == "give"
    assert t.view("p1")["dealer"] == cuts[-1]["dealer"]


def test_c3_2_the_deal_passes_clockwise_and_the_loser_deals_the_rematch() -> None:
    t = Table(3, dealer=2)
    t.play_to(lambda s: s.status == "hand_over")
    for p in t.players:
        t.send(p, {"type": "ready"})
    assert t.state.hand_no == 2 and t.state.dealer == 0
    over = replace(t.state, scores=(121, 80, 95))
    assert rematch_dealer(over) == 1
    over = replace(t.state, scores=(90, 121, 90))
    assert rematch_dealer(over) == 0  # a tie: the lowest seat


def test_c3_3_the_deal_one_at_a_time_from_the_player_after_the_dealer() -> None:
    deck = build_deck(H2, dealer=1, starter="KD")
    t = Table(2, decks=[deck], dealer=1)
    assert deck[:12:2] == H2[0] and deck[1:12:2] == H2[1]  # pone 0, 2, 4..., dealer 1, 3...
    assert t.view("p1")["hand"] == H2[0] and t.view("p2")["hand"] == H2[1]
    t3 = Table(3, seed=3)
    assert [len(t3.state.held[s]) for s in range(3)] == [5, 5, 5]
    assert len(t3.state.crib) == 1  # C3.3: one card from the deck to the crib
    t4 = Table(4, seed=3)
    assert [len(t4.state.held[s]) for s in range(4)] == [5] * 4 and t4.state.crib == ()


def test_c3_4_giving_is_simultaneous_final_and_private() -> None:
    t = Table(2, decks=[build_deck(H2, dealer=0, starter="KD")])
    assert t.view("p1")["turn"] is None and t.state.status == "give"
    t.give("p2", "5H", "6H")
    assert [p["gave"] for p in t.view(None)["players"]] == [0, 2]
    assert t.view("p2")["gave"] == ["5H", "6H"] and t.view("p1")["gave"] == []
    with pytest.raises(GameError) as e:
        t.give("p2", "AH", "2H")
    assert e.value.code == "illegal" and e.value.rule == "C3.4"
    t.give("p1", "AS", "2S")
    crib = t.view("p1")["crib"]
    assert crib == {"owner": "p1", "count": 4, "cards": None}
    assert t.state.status == "play"


def test_c3_4_three_players_give_one_each_to_a_crib_of_four() -> None:
    t = Table(3, seed=9)
    for s, p in enumerate(t.players):
        t.give(p, t.state.held[s][0])
    assert len(t.state.crib) == 4 and t.state.status == "play"


def test_c4_1_the_starter_is_the_card_after_the_deal() -> None:
    for n, dealt in ((2, 12), (3, 16), (4, 20)):
        rng = random.Random(n)
        deck = list(DECK)
        rng.shuffle(deck)
        t = Table(n, decks=[deck], dealer=n - 1)
        for s, p in enumerate(t.players):
            t.give(p, *t.state.held[s][: 2 if n == 2 else 1])
        assert t.state.starter == deck[dealt]
        assert t.of("starter")[-1]["card"] == deck[dealt]
        # C4.1: cut by the player before the dealer (the pone with 2 players)
        assert t.of("starter")[-1]["cut_by"] == t.players[(n - 1 - 1) % n]


def test_c4_2_his_heels_scores_two_for_the_dealer_at_once() -> None:
    t = Table(2, decks=[build_deck(H2, dealer=0, starter="JD")])
    t.give("p1", "AS", "2S")
    t.give("p2", "AH", "2H")
    assert t.of("starter")[-1]["items"] == [{"kind": "heels", "cards": ["JD"], "points": 2}]
    assert t.state.scores == (2, 0)


def test_c4_2_his_heels_can_win_the_game() -> None:
    t = Table(2, decks=[build_deck(H2, dealer=0, starter="JD")])
    t.state = replace(t.state, scores=(120, 100))
    t.give("p1", "AS", "2S")
    t.give("p2", "AH", "2H")
    assert t.state.status == "game_over" and t.state.scores == (121, 100)
    assert t.of("game_over")[-1]["winners"] == ["p1"]
