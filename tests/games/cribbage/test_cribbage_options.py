"""C8 options: muggins (claims, the window, the claim view), skunk lines and game
points, turn_seconds (giving simultaneous with its own deadline), the match
tally; options out of range."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from crisp.games.api import BadMessage, Ctx, GameError, Setup
from crisp.games.cribbage import GAME
from crisp.games.cribbage.board import game_points
from crisp.games.cribbage.show_score import show_points
from crisp.games.cribbage.vocabulary import Skunk
from tests.games.cribbage.helpers import Table, build_deck

P1 = ["5D", "6S", "9C", "8H"]
P2 = ["4H", "5S", "6D", "7C"]
MUGGINS = {"muggins": True}


def at_show(options: dict[str, object]) -> Table:
    deck = build_deck([[*P1, "KD", "QD"], [*P2, "KC", "QC"]], dealer=0, starter="5H")
    t = Table(2, decks=[deck], dealer=0, options=options)
    t.give("p1", "KD", "QD")
    t.give("p2", "KC", "QC")
    t.play_to(lambda s: s.status != "play")
    return t


def test_c8_1_the_claim_view_hides_the_points_until_the_window_closes() -> None:
    t = at_show(MUGGINS)
    v = t.view(None)
    assert v["show"] == [{"whose": "p2", "cards": P2, "points": None, "items": None,
                          "claimed": None, "notes": []}]
    assert v["claim"] == {"whose": "p2", "by": "p2", "deadline": t.now + 30_000,
                          "muggins_until": None}
    assert t.view("p2")["legal"] == ["claim"] and t.view("p1")["legal"] == []
    t.send("p2", {"type": "claim", "points": 3})
    v = t.view("p1")
    assert v["show"][0]["claimed"] == 3 and v["show"][0]["points"] is None
    assert v["claim"]["muggins_until"] == t.now + 5_000
    assert v["legal"] == ["muggins"] and t.view("p2")["legal"] == []


def test_c8_1_muggins_takes_the_points_overlooked() -> None:
    t = at_show(MUGGINS)
    h2 = show_points(P2, "5H")
    before = t.state.scores
    t.send("p2", {"type": "claim", "points": h2 - 2})
    with pytest.raises(GameError) as e:
        t.send("p2", {"type": "muggins"})
    assert e.value.code == "illegal" and e.value.rule == "C8.1"
    t.send("p1", {"type": "muggins"})
    assert t.of("muggins") == [{"player": "p1", "points": 2}]
    assert t.state.scores == (before[0] + 2, before[1] + h2 - 2)
    shown = t.of("shown")[-1]
    assert shown["points"] == h2 and shown["claimed"] == h2 - 2 and shown["items"]
    assert t.view(None)["claim"]["whose"] == "p1"  # the next claim is open


def test_c8_1_an_over_claim_is_cut_to_the_truth_and_the_excess_goes_to_the_opponent() -> None:
    t = at_show(MUGGINS)
    t.send("p2", {"type": "claim", "points": show_points(P2, "5H")})
    t.wait(5_001)
    h1 = show_points(P1, "5H")
    before = t.state.scores
    t.send("p1", {"type": "claim", "points": h1 + 3})
    t.wait(5_001)
    assert t.state.scores == (before[0] + h1, before[1] + 3)


def test_c8_1_a_claim_not_made_in_30_s_is_the_true_total() -> None:
    t = at_show(MUGGINS)
    h2 = show_points(P2, "5H")
    before = t.state.scores
    t.wait(30_000)
    assert t.of("claimed") == [{"player": "p2", "points": h2}]
    assert t.state.scores == (before[0], before[1] + h2)


def test_c8_1_claims_only_with_muggins() -> None:
    t = at_show({})
    with pytest.raises(GameError) as e:
        t.send("p2", {"type": "claim", "points": 3})
    assert e.value.code == "illegal" and e.value.rule == "C8.1"


def test_c8_1_with_four_players_partners_may_not_call_and_the_first_call_takes() -> None:
    t = Table(4, dealer=0, seed=21, options=MUGGINS)
    t.play_to(lambda s: s.status != "give" and s.status != "play")
    assert t.state.status == "show"
    claim = t.state.claim
    assert claim is not None and claim.by == 1
    t.send("p2", {"type": "claim", "points": 0})
    with pytest.raises(GameError):
        t.send("p4", {"type": "muggins"})  # p2's partner
    t.send("p1", {"type": "muggins"})
    with pytest.raises(GameError):
        t.send("p3", {"type": "muggins"})  # the window has closed


@pytest.mark.parametrize(("target", "skunk", "loser", "points", "kind"), [
    (121, Skunk.SKUNK, 91, 1, "none"), (121, Skunk.SKUNK, 90, 2, "skunk"),
    (121, Skunk.SKUNK, 61, 2, "skunk"), (121, Skunk.SKUNK, 60, 4, "double"),
    (121, Skunk.LURCH, 61, 1, "none"), (121, Skunk.LURCH, 60, 2, "lurch"),
    (121, Skunk.OFF, 10, 1, "none"),
    (61, Skunk.SKUNK, 46, 1, "none"), (61, Skunk.SKUNK, 45, 2, "skunk"),
    (61, Skunk.SKUNK, 30, 4, "double"), (61, Skunk.LURCH, 30, 2, "lurch"),
    (61, Skunk.LURCH, 31, 1, "none"),
])
def test_c8_2_skunk_lines(target: int, skunk: Skunk, loser: int, points: int,
                          kind: str) -> None:
    t = Table(2, options={"target": target, "skunk": skunk.value})
    st = replace(t.state, scores=(target, loser))
    gp = game_points(st, 0)
    assert (gp.points, gp.skunk) == (points, kind) and gp.winner_side == ("p1",)


def test_c8_2_with_three_players_the_highest_loser_decides() -> None:
    t = Table(3)
    assert game_points(replace(t.state, scores=(121, 95, 40)), 0).points == 1
    assert game_points(replace(t.state, scores=(121, 80, 40)), 0).points == 2


def test_c8_3_giving_has_its_own_deadline_and_the_computer_gives_on_time_out() -> None:
    t = Table(2, options={"turn_seconds": 15})
    v = t.view("p1")
    assert v["turn"] is None and v["give_deadline"] == t.now + 15_000
    t.give("p1", *t.state.held[0][:2])
    t.wait(15_000)
    assert [e["player"] for e in t.of("gave")] == ["p1", "p2"]
    assert t.state.status == "play" and t.view("p1")["give_deadline"] is None
    turn = t.view("p1")["turn"]
    assert turn["deadline"] == t.now + 15_000
    t.wait(15_000)
    assert len(t.of("laid")) == 1 and t.of("laid")[0]["player"] == turn["player"]


def test_c8_3_without_turn_seconds_there_is_no_deadline() -> None:
    t = Table(2)
    assert t.view("p1")["give_deadline"] is None and GAME.due(t.state) is None


def test_c8_4_the_match_tally_adds_the_game_points_to_both_partners() -> None:
    t = Table(4, dealer=0, seed=2, match={"p1": 3, "p2": 1})
    t.play_to(lambda s: s.status == "game_over")
    gp = t.state.game_points
    assert gp is not None
    match = t.view(None)["match"]
    for p in t.players:
        base = {"p1": 3, "p2": 1}.get(p, 0)
        assert match[p] == base + (gp.points if p in gp.winner_side else 0)
    assert len(gp.winner_side) == 2
    outcome = GAME.outcome(t.state)
    assert outcome is not None and set(outcome.winners) == set(gp.winner_side)


@pytest.mark.parametrize("options", [{"target": 100}, {"skunk": "double"},
                                     {"turn_seconds": 20}, {"muggins": 1},
                                     {"watchers": "yes"}, {"target": True}, {"nope": 1}])
def test_options_out_of_range_are_refused(options: dict[str, object]) -> None:
    with pytest.raises(BadMessage):
        GAME.start(["p1", "p2"], options, Setup(), Ctx(0, random.Random(1)))


def test_the_options_listed_for_get_api_games() -> None:
    assert GAME.options["target"].default == 121
    assert GAME.options["target"].choices == (121, 61)
    assert GAME.options["skunk"].choices == ("skunk", "lurch", "off")
    assert GAME.options["turn_seconds"].choices == (None, 15, 30, 60)
    assert GAME.options["muggins"].default is False
