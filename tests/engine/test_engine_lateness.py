"""R18.4: a crisp call brought late by a slow connection counts when it arrives within
the caller's allowance (the server's measure of its delay, handed in with the
action) after the window's announced end, at most 300 ms; later calls are refused
as before (R10.4). Times are injected: the engine reads no clock and no socket."""

from __future__ import annotations

import json

import pytest

from crisp.engine import IllegalAction, InvalidAction, State, apply, next_deadline
from crisp.engine.actions import CallCrisp
from crisp.engine.events import Event
from crisp.engine.lateness import LATE_CAP_MS
from tests.engine.helpers import START_DELAY, WINDOW, Game, kinds, snapshot, start

HANDS = {"p1": ["AS", "2S", "3S"], "p2": ["4S", "5S", "6S"], "p3": ["7S", "8S", "9S"]}
STOCK = ["5C", "6C", "7C", "8C", "9C", "TC", "AC", "2C"]


def _p1_played(**kw: object) -> tuple[Game, int]:
    """3 players, dealer p3: p1 has just ended its turn at the returned time."""
    g = start(HANDS, stock=STOCK, dealer=2, **kw)  # type: ignore[arg-type]
    g.play_turn()
    return g, g.now


def call(g: Game, player: str, allowance_ms: int) -> list[Event]:
    """apply() a crisp call carrying `allowance_ms`, at g.now (checked like g.act)."""
    before = snapshot(g.state)
    new, events = apply(g.state, player, CallCrisp(allowance_ms), g.now, g.rng)
    return g._took(new, events, before)


def refused(g: Game, player: str, allowance_ms: int) -> IllegalAction:
    before = snapshot(g.state)
    with pytest.raises(IllegalAction) as info:
        apply(g.state, player, CallCrisp(allowance_ms), g.now, g.rng)
    assert snapshot(g.state) == before
    return info.value


def test_r18_4_a_call_within_the_allowance_after_the_close_counts() -> None:
    g, t = _p1_played()
    g.at(t + START_DELAY)
    g.act("p2", "draw", source="stock")
    g.at(t + WINDOW)  # the window closed on time: the table was told, nothing is shown
    assert g.view("p1")["crisp"]["windows"] == [] and g.plays("p1") == []
    g.at(t + WINDOW + 149)
    assert kinds(call(g, "p1", 150)) == ["crisp"]
    # a late call is a call like any other after the next player started (R10.2)
    v = g.view("p3")
    assert v["crisp"]["caller"] == "p1"
    assert v["crisp"]["final_turns_left"] == ["p2", "p3"]
    assert v["turn"]["player"] == "p2" and v["turn"]["final"] is True
    assert v["turn"]["may_start_at"] == t + START_DELAY  # the next player's start never moves
    assert g.state.late_windows == []


def test_r18_4_a_call_at_or_beyond_the_allowance_is_refused_as_before() -> None:
    g, t = _p1_played()
    g.at(t + WINDOW + 150)  # exactly the allowance past the close: too late
    err = refused(g, "p1", 150)
    assert (err.code, err.rule) == ("illegal", "R10.4")
    g.at(t + WINDOW + 250)
    assert refused(g, "p1", 150).rule == "R10.4"


def test_r18_4_no_allowance_means_the_plain_window() -> None:
    g, t = _p1_played()
    g.now = t + WINDOW  # apply() closes the due window itself
    assert refused(g, "p1", 0).rule == "R10.4"
    g, t = _p1_played()
    g.at(t + WINDOW - 1)
    assert kinds(call(g, "p1", 0)) == ["crisp"]  # inside the window: no allowance needed


def test_r18_4_the_allowance_is_capped_at_300_ms() -> None:
    assert LATE_CAP_MS == 300
    g, t = _p1_played()
    g.at(t + WINDOW + LATE_CAP_MS)
    assert refused(g, "p1", 2_000).rule == "R10.4"  # a 2 s delay earns 300 ms, no more
    g, t = _p1_played()
    g.now = t + WINDOW + LATE_CAP_MS - 1  # without advance(): the close is applied first
    assert kinds(call(g, "p1", 2_000)) == ["crisp"]


def test_r18_4_the_window_is_the_callers_alone() -> None:
    g, t = _p1_played()
    g.at(t + WINDOW + 10)
    for other in ("p2", "p3"):
        assert refused(g, other, 300).rule == "R10.4"


def test_r18_4_the_one_call_of_a_round_is_not_taken_twice() -> None:
    """p2 called in its own window before p1's late call arrived: R10.3."""
    g, t = _p1_played()
    g.at(t + START_DELAY)
    g.act("p2", "draw", source="stock")
    g.at(t + START_DELAY + 100)
    g.act("p2", "discard")
    g.at(t + WINDOW + 50)
    g.act("p2", "crisp")
    assert refused(g, "p1", 300).rule == "R10.3"


def test_r18_4_with_two_players_a_late_call_after_the_next_turn_ended_ends_the_round() -> None:
    """R10.4 revised: the next player's finished turn was their final turn."""
    g = start(players=2, dealer=1)
    g.play_turn()
    t = g.now
    g.at(t + START_DELAY)
    g.play_turn()  # p2's whole turn inside p1's window
    g.at(t + WINDOW + 200)
    assert kinds(call(g, "p1", 250)) == ["crisp", "round_over"]
    assert g.state.last_round is not None and g.state.last_round.caller == "p1"


def test_r18_4_late_windows_are_never_shown_and_have_no_deadline() -> None:
    g, t = _p1_played()
    g.at(t + WINDOW)
    assert [w.player for w in g.state.late_windows] == [0]
    for p in g.ids:
        assert g.view(p)["crisp"]["window"] is None
        assert "crisp" not in g.legal(p)
    assert next_deadline(g.state) is None  # p2 may draw; nothing else falls due
    snap = g.state.to_json()
    assert snap["late_windows"] == [{"player": 0, "closes_at": t + WINDOW}]
    assert State.from_json(json.loads(json.dumps(snap))).to_json() == snap


def test_r18_4_a_late_window_goes_once_its_credit_ran_out() -> None:
    g, t = _p1_played()
    g.at(t + START_DELAY)
    g.play_turn()  # p2: its window opens at the turn's end
    p2_end = g.now
    g.at(p2_end + WINDOW)  # p2's window closes: p1's (closed long before) is dropped
    assert [w.player for w in g.state.late_windows] == [1]
    assert refused(g, "p1", 300).rule == "R10.4"


def test_r18_4_the_call_clears_late_windows() -> None:
    g, t = _p1_played()
    g.at(t + START_DELAY)
    g.play_turn()
    g.at(g.now + WINDOW - 1)
    g.act("p2", "crisp")  # p1's window closed 2.3 s ago; p2 calls in its own window
    assert g.state.late_windows == [] and g.state.windows == []


def test_r18_4_documents_saved_before_late_windows_load() -> None:
    g, _t = _p1_played()
    raw = g.state.to_json()
    del raw["late_windows"]
    assert State.from_json(raw).late_windows == []


def test_r18_4_the_cap_is_a_game_duration_scaled_like_the_window() -> None:
    g, t = _p1_played(time_scale=0.1)  # window 300 ms, cap 30 ms
    g.at(t + 300 + 29)
    assert kinds(call(g, "p1", 150)) == ["crisp"]
    g, t = _p1_played(time_scale=0.1)
    g.at(t + 300 + 30)
    assert refused(g, "p1", 150).rule == "R10.4"


@pytest.mark.parametrize("allowance", [-1, True, 1.5, "150", None])
def test_r18_4_a_malformed_allowance_is_invalid(allowance: object) -> None:
    g, _t = _p1_played()
    with pytest.raises(InvalidAction):
        apply(g.state, "p1", CallCrisp(allowance), g.now)  # type: ignore[arg-type]
