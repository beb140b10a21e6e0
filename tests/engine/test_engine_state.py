"""The state's data classes: every field is in the JSON form, `copy()` shares
nothing that can change, and a round's result is an immutable value."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

from crisp.engine import Options, RoundResult, State, Turn
from crisp.engine.state import Player, Window
from tests.engine.helpers import call_and_finish, snapshot, start

HANDS = {"p1": ["AS", "2S", "3S"], "p2": ["4S", "5S", "6S"], "p3": ["7S", "8S", "9S"]}


def busy_state() -> State:
    """A state where every optional part is set: a finished round, a turn in play
    with a held card, an open crisp window."""
    g = start(HANDS, stock=["5C", "6C", "7C", "8C", "9C"], dealer=2,
              options=Options(draw_seconds=30, discard_draw=True))
    call_and_finish(g, "p1")
    g.act("p1", "next_round")
    g.ready_all()
    g.play_turn()
    g.draw()
    s = g.state
    assert s.last_round is not None and s.turn is not None and s.windows
    assert s.holding is not None
    return s


STATE = busy_state()


def field_names(cls: type) -> set[str]:
    return {f.name for f in dataclasses.fields(cls)}


@pytest.mark.parametrize(("cls", "value"), [
    (State, STATE), (Player, STATE.players[0]), (Turn, STATE.turn), (Window, STATE.windows[0]),
    (Options, STATE.options), (RoundResult, STATE.last_round),
], ids=lambda x: x.__name__ if isinstance(x, type) else "")
def test_the_json_form_has_exactly_the_fields(cls: type, value: Any) -> None:
    assert field_names(cls) == set(value.to_json())


def test_the_json_round_trip_is_exact() -> None:
    raw = json.loads(json.dumps(STATE.to_json()))
    assert State.from_json(raw) == STATE
    assert snapshot(State.from_json(raw)) == snapshot(STATE)


def test_copy_is_equal_and_shares_nothing_mutable() -> None:
    copy = STATE.copy()
    assert copy == STATE and copy is not STATE
    for f in dataclasses.fields(State):
        mine, theirs = getattr(copy, f.name), getattr(STATE, f.name)
        if isinstance(mine, (list, dict, Player, Turn)):
            assert mine is not theirs, f.name
    for a, b in zip(copy.players, STATE.players, strict=True):
        assert a.hand is not b.hand
    before = snapshot(STATE)
    copy.players[0].hand[0] = None
    copy.turn.extra_draws += 1
    copy.stock.pop()
    copy.winners.append("p1")
    assert snapshot(STATE) == before


def test_r12_a_round_result_is_an_immutable_value() -> None:
    result = STATE.last_round
    assert result is not None and result.round == 1 and result.caller == "p1"
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.caller = "p2"
    with pytest.raises(TypeError):
        result.sums["p1"] = 0
    with pytest.raises(TypeError):
        result.hands["p1"] = ()
    assert isinstance(result.hands["p1"], tuple)
    assert STATE.copy().last_round is result  # shared, never copied by hand


def test_r12_a_round_result_keeps_its_view_shape() -> None:
    shown = STATE.last_round.to_json()
    assert list(shown) == ["round", "caller", "hands", "sums", "scores"]
    assert all(isinstance(c, str) for h in shown["hands"].values() for c in h)
    assert RoundResult.from_json(shown) == STATE.last_round
    shown["sums"]["p1"] = 99  # a fresh copy every time
    assert STATE.last_round.sums["p1"] != 99
