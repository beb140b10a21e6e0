"""R10 calling crisp (the 3-second window, the 2-second start delay, the late call)
and R11 the end of a round (final turns, the reveal)."""

from __future__ import annotations

from typing import Any

from crisp.engine import Options, next_deadline
from tests.engine.helpers import START_DELAY, WINDOW, Game, kinds, start

HANDS = {"p1": ["AS", "2S", "3S"], "p2": ["4S", "5S", "6S"], "p3": ["7S", "8S", "9S"]}


def _p1_played(**kw: Any) -> tuple[Game, int]:
    """3 players, dealer p3: p1 has just ended its turn (discarded 5C) at the returned time."""
    g = start(HANDS, stock=["5C", "6C", "7C", "8C", "9C", "TC", "AC", "2C"], dealer=2,
              **kw)
    g.play_turn()
    return g, g.now


# -- R10.1 -----------------------------------------------------------------------------


def test_r10_1_a_player_calls_right_at_the_end_of_their_own_turn() -> None:
    g, t = _p1_played()
    v = g.view("p3")
    window = {"player": "p1", "closes_at": t + WINDOW}
    assert v["crisp"] == {"caller": None, "window": window, "windows": [window],
                          "final_turns_left": []}
    assert g.plays("p1") == ["crisp"]
    g.act("p1", "crisp")
    for p in g.ids:
        assert g.seen(p) == [{"kind": "crisp", "player": "p1"}]
        assert g.view(p)["crisp"] == {"caller": "p1", "window": None, "windows": [],
                                      "final_turns_left": ["p2", "p3"]}
        assert g.view(p)["turn"]["final"] is True
    assert g.plays("p1") == []


def test_r10_1_nobody_else_may_call_in_a_players_window() -> None:
    g, _ = _p1_played()
    for p in ("p2", "p3"):
        assert "crisp" not in g.legal(p)
        err = g.refuse(p, "crisp")
        assert (err.code, err.rule) == ("illegal", "R10.4")


def test_r10_1_no_call_during_ones_own_turn_or_before_any_turn() -> None:
    g = start(HANDS, stock=["5C"], dealer=2)
    assert g.refuse("p1", "crisp").code == "illegal"
    g.draw()
    assert "crisp" not in g.legal("p1")
    assert g.refuse("p1", "crisp").rule == "R10.4"


def test_r10_1_no_call_outside_play() -> None:
    g = start(HANDS, dealer=2, ready=False)
    err = g.refuse("p1", "crisp")
    assert (err.code, err.rule) == ("wrong_phase", "R10.1")


# -- R10.2 / R10.4 ---------------------------------------------------------------------


def test_r10_4_the_next_player_may_start_two_seconds_after_the_turn_ended() -> None:
    g, t = _p1_played()
    assert g.view("p2")["turn"]["may_start_at"] == t + START_DELAY
    g.at(t + START_DELAY - 1)
    assert g.plays("p2") == []
    err = g.refuse("p2", "draw", source="stock")
    assert (err.code, err.rule) == ("too_early", "R10.4")
    g.at(t + START_DELAY)
    assert g.plays("p2") == ["draw"]
    g.act("p2", "draw", source="stock")


def test_r10_4_the_window_lasts_three_seconds() -> None:
    g, t = _p1_played()
    assert next_deadline(g.state) == t + WINDOW
    g.at(t + WINDOW - 1)
    assert g.plays("p1") == ["crisp"]
    g.at(t + WINDOW)
    assert g.last == []  # closing a window emits nothing
    assert g.view("p1")["crisp"]["window"] is None
    assert g.plays("p1") == []
    err = g.refuse("p1", "crisp")
    assert (err.code, err.rule) == ("illegal", "R10.4")
    assert next_deadline(g.state) is None


def test_r10_4_a_call_after_the_window_closed_is_refused_even_without_advance() -> None:
    g, t = _p1_played()
    g.now = t + WINDOW + 500  # no advance(): apply() applies the due close itself
    err = g.refuse("p1", "crisp")
    assert (err.code, err.rule) == ("illegal", "R10.4")
    assert g.plays("p1") == []


def test_r10_4_sheet_example_three_seconds_two_then_one_more() -> None:
    # "After your turn you have 3 seconds to call crisp. The next player can start after
    #  2 seconds, and for 1 more second you can still call it."
    g, t = _p1_played()
    g.at(t + 2000)
    g.act("p2", "draw", source="stock")
    g.at(t + 2999)
    g.act("p1", "crisp")  # still in time: p2's started turn becomes the first final turn
    assert g.view("p3")["turn"] == {"player": "p2", "may_start_at": t + 2000,
                                    "draw_deadline": None, "drawn_from": "stock",
                                    "extra_draws": 0, "final": True, "kings": []}


def test_r10_2_a_late_call_makes_the_next_players_started_turn_the_first_final_turn() -> None:
    g, t = _p1_played()
    g.at(t + 2000)
    g.act("p2", "draw", source="stock")
    held = g.holding
    g.at(t + 2500)
    g.act("p1", "crisp")
    assert g.holding == held  # p2 keeps playing the same turn
    assert g.plays("p2") == ["swap", "discard"]
    assert g.view("p2")["crisp"]["final_turns_left"] == ["p2", "p3"]
    g.at(t + 2700)
    g.act("p2", "discard")
    # R10.3: no window after a final turn; the next final turn may start at once
    assert g.view("p1")["crisp"]["window"] is None
    assert g.view("p3")["turn"]["may_start_at"] == t + 2700
    assert g.view("p3")["turn"]["final"] is True
    assert {"kind": "turn_started", "player": "p3", "final": True} in g.seen("p1")
    assert g.plays("p3") == ["draw"]
    g.play_turn()
    assert g.state.status == "round_over"  # R11.3: the caller takes no final turn


def test_r10_2_a_call_before_the_next_player_starts() -> None:
    g, t = _p1_played()
    g.at(t + 1000)
    g.act("p1", "crisp")
    turn = g.view("p2")["turn"]
    assert turn["player"] == "p2" and turn["final"] is True
    # Decision: the call does not move the start: p2 still may start 2 s after p1's turn
    assert turn["may_start_at"] == t + START_DELAY
    assert g.refuse("p2", "draw", source="stock").code == "too_early"


def _p2_played_inside_p1s_window() -> tuple[Game, int]:
    """p1's turn ended at t; p2 drew at t+2.0 s and discarded at t+2.3 s (issue 10)."""
    g, t = _p1_played()
    g.at(t + 2000)
    g.act("p2", "draw", source="stock")
    g.at(t + 2300)
    g.act("p2", "discard")
    return g, t


def test_r10_4_revised_a_turn_ending_leaves_the_previous_window_open() -> None:
    g, t = _p2_played_inside_p1s_window()
    mine = {"player": "p1", "closes_at": t + WINDOW}
    newest = {"player": "p2", "closes_at": t + 2300 + WINDOW}
    for p in g.ids:
        assert g.view(p)["crisp"]["windows"] == [mine, newest]  # oldest first
    assert g.view("p1")["crisp"]["window"] == mine  # the viewer's own window
    assert g.view("p2")["crisp"]["window"] == newest
    assert g.view("p3")["crisp"]["window"] == newest  # else the newest one
    assert g.plays("p1") == ["crisp"] and g.plays("p2") == ["crisp"]
    assert next_deadline(g.state) == t + WINDOW
    g.at(t + WINDOW)  # p1's window closes on its own time, p2's stays open
    assert g.view("p1")["crisp"]["windows"] == [newest]
    assert g.view("p1")["crisp"]["window"] == newest
    assert g.plays("p1") == [] and g.plays("p2") == ["crisp"]
    assert g.refuse("p1", "crisp").rule == "R10.4"
    assert next_deadline(g.state) == t + 2300 + WINDOW


def test_r10_4_revised_issue_example_a_call_after_the_next_turn_ended_is_accepted() -> None:
    # p1 calls 2.6 s after its turn ended; p2 already drew and discarded at 2.0-2.3 s.
    g, t = _p2_played_inside_p1s_window()
    g.at(t + 2600)
    g.act("p1", "crisp")
    assert kinds(g.last) == ["crisp"]
    for p in g.ids:  # p2's finished turn was its final turn; the final turns go on with p3
        v = g.view(p)
        assert v["crisp"] == {"caller": "p1", "window": None, "windows": [],
                              "final_turns_left": ["p3"]}
        assert v["turn"]["player"] == "p3" and v["turn"]["final"] is True
    assert g.plays("p2") == []  # the round's one call is taken (R10.3)
    assert g.refuse("p2", "crisp").rule == "R10.3"
    assert g.view("p3")["turn"]["may_start_at"] == t + 2300 + START_DELAY  # unchanged
    g.play_turn()
    assert g.state.status == "round_over"
    assert [e.data["player"] for e in g.log if e.kind == "turn_started"] == ["p1", "p2", "p3"]


def test_r10_4_revised_with_two_players_a_late_call_ends_the_round_at_once() -> None:
    g = start(players=2, dealer=1)  # p1 starts
    g.play_turn()
    t = g.now
    g.at(t + 2000)
    g.play_turn()  # p2's turn ends inside p1's window: it was p2's final turn
    g.at(t + 2900)
    g.act("p1", "crisp")
    assert kinds(g.last) == ["crisp", "round_over"]
    assert g.state.status == "round_over" and g.state.last_round is not None
    assert g.state.last_round.caller == "p1"


def test_r10_4_revised_the_next_players_call_made_first_takes_the_one_call() -> None:
    g, t = _p2_played_inside_p1s_window()
    g.at(t + 2400)
    g.act("p2", "crisp")  # in its own window, before p1 calls (R10.3)
    assert g.view("p1")["crisp"]["final_turns_left"] == ["p3", "p1"]
    assert g.plays("p1") == []
    err = g.refuse("p1", "crisp")
    assert (err.code, err.rule) == ("illegal", "R10.3")
    g.play_turns(2)  # p3, then p1: their final turns
    assert g.state.status == "round_over"


def test_r10_4_revised_a_call_while_the_next_turn_is_in_progress_still_makes_it_final() -> None:
    g, t = _p1_played()
    g.at(t + 2000)
    g.act("p2", "draw", source="stock")
    g.at(t + 2900)
    g.act("p1", "crisp")
    assert g.view("p2")["crisp"]["final_turns_left"] == ["p2", "p3"]
    assert g.view("p2")["turn"]["final"] is True


def test_r10_3_only_one_call_per_round_and_none_during_final_turns() -> None:
    g, _t = _p1_played()
    g.act("p1", "crisp")
    err = g.refuse("p1", "crisp")
    assert (err.code, err.rule) == ("illegal", "R10.3")
    g.play_turn()  # p2's final turn
    assert g.state.windows == []
    assert g.view("p2")["crisp"]["window"] is None
    err = g.refuse("p2", "crisp")
    assert (err.code, err.rule) == ("illegal", "R10.3")
    assert g.plays("p2") == []
    assert g.view("p3")["turn"]["may_start_at"] == g.now  # R10.3: no window, at once


def test_r10_5_a_turn_that_ran_out_of_time_opens_no_window() -> None:
    g = start(HANDS, stock=["5C", "6C"], dealer=2, options=Options(draw_seconds=30))
    turn = g.state.turn
    assert turn is not None and turn.draw_deadline == g.now + 30_000
    g.at(turn.draw_deadline)
    assert kinds(g.last) == ["timeout", "discarded", "turn_started"]
    assert g.view("p1")["crisp"]["window"] is None
    assert g.plays("p1") == []
    err = g.refuse("p1", "crisp")
    assert (err.code, err.rule) == ("illegal", "R10.4")
    # the next player may start at once
    assert g.view("p2")["turn"]["may_start_at"] == g.now
    assert g.plays("p2") == ["draw"]


# -- R11 -------------------------------------------------------------------------------


def test_r11_1_every_other_player_takes_one_final_turn_in_clockwise_order() -> None:
    g = start(players=5, dealer=4)  # p1 starts
    g.play_turns(2)  # p1, p2
    assert g.turn_player == "p3"
    g.play_turn()
    g.act("p3", "crisp")
    finals = []
    while g.state.status == "playing":
        v = g.view("p1")
        assert v["turn"]["final"] is True
        assert v["crisp"]["final_turns_left"][0] == v["turn"]["player"]
        finals.append(g.turn_player)
        g.play_turn()
    assert finals == ["p4", "p5", "p1", "p2"]
    started = [e.data for e in g.log if e.kind == "turn_started" and e.data["final"]]
    assert [d["player"] for d in started] == ["p5", "p1", "p2"]  # p4's began before the call


def test_r11_1_a_final_turn_is_a_whole_turn_king_draws_included() -> None:
    g = start(HANDS, stock=["5C", "KH", "6C", "7C", "8C"], dealer=2)
    g.play_turn()
    g.act("p1", "crisp")
    g.draw()
    g.act("p2", "king")
    assert g.turn_player == "p2" and g.view("p2")["turn"]["final"] is True
    g.act("p2", "draw", source="stock")
    g.act("p2", "discard")
    g.act("p2", "draw", source="stock")
    g.act("p2", "discard")
    assert g.turn_player == "p3" and g.view("p3")["turn"]["final"] is True


def test_r11_1_a_final_turn_that_times_out_passes_to_the_next_final_turn() -> None:
    g = start(HANDS, stock=["5C", "6C", "7C"], dealer=2, options=Options(draw_seconds=45))
    g.play_turn()
    g.act("p1", "crisp")
    turn = g.state.turn
    assert turn is not None and turn.draw_deadline is not None
    g.at(turn.draw_deadline)
    assert kinds(g.last) == ["timeout", "discarded", "turn_started"]
    assert g.last[-1].data == {"player": "p3", "final": True}
    assert g.view("p3")["turn"]["draw_deadline"] == g.now + 45_000
    g.at(g.now + 45_000)
    assert kinds(g.last) == ["timeout", "discarded", "round_over"]
    assert g.state.status == "round_over"


def test_r11_2_after_the_last_final_turn_all_cards_are_revealed() -> None:
    g = start(HANDS, stock=["5C", "6C", "7C"], dealer=2)
    g.play_turn()
    g.act("p1", "crisp")
    for p in g.ids:
        assert all(pl["cards"] == [None, None, None] for pl in g.view(p)["players"])
    g.play_turns(2)
    assert g.state.status == "round_over"
    over = {"kind": "round_over", "hands": HANDS, "sums": {"p1": 6, "p2": 15, "p3": 24},
            "scores": {"p1": 1, "p2": 15, "p3": 24}, "totals": {"p1": 1, "p2": 15, "p3": 24},
            "caller": "p1"}
    for p in g.ids:
        assert over in g.seen(p)
        v = g.view(p)
        assert v["status"] == "round_over" and v["turn"] is None
        assert {pl["id"]: pl["cards"] for pl in v["players"]} == HANDS
        assert v["last_round"] == {"round": 1, "caller": "p1", "hands": HANDS,
                                   "sums": over["sums"], "scores": over["scores"]}
        assert v["holding"] is None
    assert kinds(g.last)[-1] == "round_over"


def test_r11_3_the_caller_takes_no_final_turn() -> None:
    g = start(players=2, dealer=0)  # p2 starts
    g.play_turn()
    g.act("p2", "crisp")
    assert g.view("p1")["crisp"]["final_turns_left"] == ["p1"]
    g.play_turn()
    assert g.state.status == "round_over"
    assert [e.data["player"] for e in g.log if e.kind == "turn_started"] == ["p2", "p1"]
