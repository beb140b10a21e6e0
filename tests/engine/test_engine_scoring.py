"""R12 scoring and the end of the game, R15 the game limit option."""

from __future__ import annotations

import pytest

from crisp.engine import Options
from tests.engine.helpers import Game, call_and_finish, kinds, lobby, start, with_totals


def _round(hands: dict[str, list[str]], caller: str, *, dealer: int = 0,
           options: Options | None = None, totals: dict[str, int] | None = None) -> Game:
    """One round where every turn discards a 2..9 card (hands never change) and
    `caller` calls at the end of its first turn."""
    stock = ["2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "2D", "3D"]
    stock = [c for c in stock if all(c not in h for h in hands.values())]
    g = start(hands, stock=stock, dealer=dealer, options=options)
    if totals:
        with_totals(g, totals)
    call_and_finish(g, caller)
    return g


def test_r12_1_each_player_scores_the_total_of_their_three_cards() -> None:
    hands = {"p1": ["AS", "KS", "5H"], "p2": ["TD", "JD", "QD"], "p3": ["2S", "2H", "9H"]}
    g = _round(hands, "p3", dealer=2)
    assert g.state.last_round is not None
    assert g.state.last_round.sums == {"p1": 16, "p2": 30, "p3": 13}
    assert g.state.last_round.scores == {"p1": 16, "p2": 30, "p3": 8}


def test_r12_2_a_strictly_lowest_caller_scores_total_minus_five() -> None:
    hands = {"p1": ["AS", "AH", "2S"], "p2": ["AD", "AC", "3S"], "p3": ["9S", "9H", "9D"]}
    g = _round(hands, "p1", dealer=2)
    over = next(e for e in g.log if e.kind == "round_over").data
    assert over["sums"] == {"p1": 4, "p2": 5, "p3": 27}
    assert over["scores"] == {"p1": -1, "p2": 5, "p3": 27}
    assert over["totals"] == {"p1": -1, "p2": 5, "p3": 27}
    assert over["caller"] == "p1"


def test_r12_3_a_caller_tied_for_lowest_scores_total_plus_five() -> None:
    hands = {"p1": ["AS", "AH", "3S"], "p2": ["AD", "AC", "3H"], "p3": ["9S", "9H", "9D"]}
    g = _round(hands, "p1", dealer=2)
    assert g.state.last_round is not None
    assert g.state.last_round.sums == {"p1": 5, "p2": 5, "p3": 27}
    assert g.state.last_round.scores == {"p1": 10, "p2": 5, "p3": 27}


def test_r12_3_a_caller_higher_than_someone_scores_total_plus_five() -> None:
    hands = {"p1": ["AS", "AH", "4S"], "p2": ["9S", "9H", "9D"], "p3": ["AD", "AC", "3H"]}
    g = _round(hands, "p1", dealer=2)
    assert g.state.last_round is not None
    assert g.state.last_round.sums == {"p1": 6, "p2": 27, "p3": 5}
    assert g.state.last_round.scores == {"p1": 11, "p2": 27, "p3": 5}


def test_r12_3_sheet_example_tie_or_higher_is_plus_five_in_two_player_game() -> None:
    hands = {"p1": ["5S", "5H", "5D"], "p2": ["5C", "TS", "AH"]}  # 15 vs 16
    g = _round(hands, "p2", dealer=0)
    assert g.state.last_round is not None
    assert g.state.last_round.scores == {"p1": 15, "p2": 21}


def test_r12_4_round_scores_add_up_into_running_totals() -> None:
    hands = {"p1": ["AS", "AH", "2S"], "p2": ["9S", "9H", "9D"]}
    g = _round(hands, "p1", dealer=1)  # p1: 4 - 5 = -1, p2: 27
    assert {p.id: p.total for p in g.state.players} == {"p1": -1, "p2": 27}
    g.act("p1", "next_round")
    g.ready_all()
    call_and_finish(g)
    lr = g.state.last_round
    assert lr is not None and lr.round == 2
    assert {p.id: p.total for p in g.state.players} == {
        "p1": -1 + lr.scores["p1"], "p2": 27 + lr.scores["p2"]}
    over = [e.data for e in g.log if e.kind == "round_over"][-1]
    assert over["totals"] == {p.id: p.total for p in g.state.players}
    assert {pl["id"]: pl["total"] for pl in g.view("p2")["players"]} == over["totals"]


@pytest.mark.parametrize("limit", [50, 100, 150])
def test_r12_5_the_game_ends_when_a_total_reaches_the_limit(limit: int) -> None:
    hands = {"p1": ["AS", "AH", "2S"], "p2": ["TS", "TH", "4D"]}  # p2 scores 24
    g = _round(hands, "p1", dealer=1, options=Options(limit=limit),
               totals={"p1": 0, "p2": limit - 24})
    assert g.state.status == "game_over"
    assert kinds(g.last)[-2:] == ["round_over", "game_over"]
    assert g.last[-1].data == {"totals": {"p1": -1, "p2": limit}, "winners": ["p1"]}
    v = g.view("p2")
    assert v["status"] == "game_over" and v["winners"] == ["p1"]
    assert {pl["id"]: pl["cards"] for pl in v["players"]} == hands  # still revealed
    assert g.plays("p1") == ["rematch"] and g.plays("p2") == []
    assert g.refuse("p1", "next_round").code == "wrong_phase"


@pytest.mark.parametrize("limit", [50, 100, 150])
def test_r12_5_the_game_goes_on_below_the_limit(limit: int) -> None:
    hands = {"p1": ["AS", "AH", "2S"], "p2": ["TS", "TH", "4D"]}
    g = _round(hands, "p1", dealer=1, options=Options(limit=limit),
               totals={"p1": 0, "p2": limit - 25})
    assert g.state.status == "round_over"
    assert "game_over" not in kinds(g.last)
    assert {p.id: p.total for p in g.state.players} == {"p1": -1, "p2": limit - 1}
    assert g.view("p1")["winners"] == []
    assert g.plays("p1") == ["ready", "next_round"]


def test_r12_5_the_caller_bonus_counts_towards_the_limit() -> None:
    hands = {"p1": ["9S", "9H", "9D"], "p2": ["AS", "AH", "2S"]}
    g = _round(hands, "p1", dealer=1, totals={"p1": 68, "p2": 0})  # 68 + 27 + 5 = 100
    assert g.state.status == "game_over"
    assert g.state.winners == ["p2"]


def test_r12_6_the_lowest_running_total_wins() -> None:
    hands = {"p1": ["AS", "AH", "2S"], "p2": ["TS", "TH", "TD"], "p3": ["5S", "5H", "5D"]}
    g = _round(hands, "p1", dealer=2, totals={"p1": 40, "p2": 80, "p3": 30})
    assert g.state.status == "game_over"
    assert {p.id: p.total for p in g.state.players} == {"p1": 39, "p2": 110, "p3": 45}
    assert g.state.winners == ["p1"]


def test_r12_6_players_tied_for_lowest_share_the_win() -> None:
    hands = {"p1": ["AS", "AH", "2S"], "p2": ["TS", "TH", "TD"], "p3": ["5S", "5H", "5D"]}
    g = _round(hands, "p1", dealer=2, totals={"p1": 40, "p2": 80, "p3": 24})
    assert {p.id: p.total for p in g.state.players} == {"p1": 39, "p2": 110, "p3": 39}
    assert g.state.winners == ["p1", "p3"]
    for p in g.ids:
        assert g.view(p)["winners"] == ["p1", "p3"]
        assert {"kind": "game_over", "totals": {"p1": 39, "p2": 110, "p3": 39},
                "winners": ["p1", "p3"]} in g.seen(p)


# -- R15 -------------------------------------------------------------------------------


@pytest.mark.parametrize("limit", [50, 100, 150])
def test_r15_1_the_host_picks_50_100_or_150(limit: int) -> None:
    g = lobby(2)
    g.act("p1", "options", limit=limit)
    assert g.view("p2")["options"]["limit"] == limit
    assert g.seen("p2") == [{"kind": "options", "options": {
        "limit": limit, "draw_seconds": None, "discard_draw": False, "watchers": True}}]


@pytest.mark.parametrize("limit", [0, 75, 99, 200, "100", 100.0, None, True])
def test_r15_1_other_limits_are_bad_messages(limit: object) -> None:
    from crisp.engine import InvalidAction, action_from_dict

    with pytest.raises(InvalidAction) as info:
        action_from_dict({"type": "options", "limit": limit})
    assert info.value.code == "bad_message"


def test_r15_1_the_default_limit_is_100() -> None:
    assert lobby(2).view("p1")["options"]["limit"] == 100


def test_history_lists_this_games_finished_rounds_oldest_first() -> None:
    # protocol v1.1 `history`: {round, caller, scores, totals} per finished round
    hands = {"p1": ["AS", "AH", "2S"], "p2": ["TS", "TH", "4D"]}
    g = _round(hands, "p1", dealer=1, options=Options(limit=50))
    first = {"round": 1, "caller": "p1", "scores": {"p1": -1, "p2": 24},
             "totals": {"p1": -1, "p2": 24}}
    for p in g.ids:
        assert g.view(p)["history"] == [first]
    g.act("p1", "next_round")
    assert g.view("p2")["history"] == [first]  # kept through the next round
    g.ready_all()
    call_and_finish(g, g.turn_player)
    history = g.view("p1")["history"]
    assert [h["round"] for h in history] == [1, 2] and history[0] == first
    last = g.state.last_round
    assert last is not None
    assert history[1] == {"round": 2, "caller": last.caller, "scores": dict(last.scores),
                          "totals": {p.id: p.total for p in g.state.players}}


def test_history_runs_to_game_over_and_a_rematch_empties_it() -> None:
    hands = {"p1": ["AS", "AH", "2S"], "p2": ["TS", "TH", "4D"]}
    g = _round(hands, "p1", dealer=1, options=Options(limit=50), totals={"p1": 0, "p2": 30})
    assert g.state.status == "game_over"
    assert g.view("p2")["history"] == [{"round": 1, "caller": "p1",
                                        "scores": {"p1": -1, "p2": 24},
                                        "totals": {"p1": -1, "p2": 54}}]
    g.act("p1", "rematch")
    assert g.view("p2")["history"] == []


@pytest.mark.parametrize(("hands", "bonus"), [
    ({"p1": ["AS", "AH", "2S"], "p2": ["AD", "AC", "3S"], "p3": ["9S", "9H", "9D"]}, -5),
    ({"p1": ["AS", "AH", "3S"], "p2": ["AD", "AC", "3H"], "p3": ["9S", "9H", "9D"]}, 5),
    ({"p1": ["AS", "AH", "4S"], "p2": ["9S", "9H", "9D"], "p3": ["AD", "AC", "3H"]}, 5),
])
def test_r12_2_r12_3_history_tells_why_the_caller_got_minus_or_plus_five(
        hands: dict[str, list[str]], bonus: int) -> None:
    # docs/protocol-additions.md: -5 (R12.2) exactly when the caller's round score + 5
    # is below every other player's round score, else +5 (R12.3, a tie included)
    g = _round(hands, "p1", dealer=2)
    (entry,) = g.view("p2")["history"]
    scores = entry["scores"]
    assert entry["caller"] == "p1"
    assert (scores["p1"] + 5 < min(scores["p2"], scores["p3"])) == (bonus == -5)
    assert g.state.last_round is not None
    assert scores["p1"] == g.state.last_round.sums["p1"] + bonus
