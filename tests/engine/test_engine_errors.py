"""Error codes (protocol.md), refusals that leave the state as it was, and the
reducer's promise never to mutate its input; the lobby (join, kick)."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest

from crisp.engine import (
    IllegalAction,
    InvalidAction,
    Options,
    action_from_dict,
    add_player,
    advance,
    apply,
    legal,
    new_table,
    redact,
    remove_player,
    set_connected,
    view_for,
)
from tests.engine.helpers import T0, WINDOW, call_and_finish, lobby, snapshot, start, with_totals

HANDS = {"p1": ["AS", "2S", "3S"], "p2": ["4S", "5S", "6S"], "p3": ["7S", "8S", "9S"]}


def test_not_your_turn() -> None:
    g = start(HANDS, stock=["5C"], dealer=2)
    err = g.refuse("p2", "draw", source="stock")
    assert (err.code, err.rule) == ("not_your_turn", "R3.1")
    g.draw()
    for kind in ("swap", "discard"):
        fields = {"slot": "left"} if kind == "swap" else {}
        assert g.refuse("p3", kind, **fields).code == "not_your_turn"


def test_too_early() -> None:
    g = start(HANDS, stock=["5C"], dealer=2)
    g.play_turn()
    err = g.refuse("p2", "draw", source="stock")
    assert (err.code, err.rule) == ("too_early", "R10.4")


@pytest.mark.parametrize(("phase", "kind", "fields"), [
    ("lobby", "draw", {"source": "stock"}),
    ("lobby", "ready", {}),
    ("lobby", "crisp", {}),
    ("lobby", "next_round", {}),
    ("lobby", "rematch", {}),
    ("peek", "draw", {"source": "stock"}),
    ("peek", "start", {}),
    ("peek", "add_bot", {"level": "easy"}),
    ("peek", "options", {"limit": 50}),
    ("playing", "start", {}),
    ("playing", "ready", {}),
    ("playing", "next_round", {}),
    ("playing", "rematch", {}),
    ("round_over", "draw", {"source": "stock"}),
    ("round_over", "start", {}),
    ("round_over", "rematch", {}),
    ("game_over", "next_round", {}),
    ("game_over", "ready", {}),
    ("game_over", "draw", {"source": "stock"}),
])
def test_wrong_phase(phase: str, kind: str, fields: dict[str, object]) -> None:
    if phase == "lobby":
        g = lobby(3)
    else:
        g = start(HANDS, stock=["5C", "6C", "7C"], dealer=2, ready=phase != "peek")
        if phase in ("round_over", "game_over"):
            if phase == "game_over":
                with_totals(g, {"p3": 120})
            call_and_finish(g, "p1")
    assert g.state.status == phase
    who = "p1" if kind != "draw" or g.turn_player is None else g.turn_player
    assert g.refuse(who, kind, **fields).code == "wrong_phase"


def test_illegal_carries_the_rule_id() -> None:
    g = start(HANDS, stock=["KH"], dealer=2)
    g.draw()
    err = g.refuse("p1", "discard")
    assert (err.code, err.rule) == ("illegal", "R6.3")
    assert "R6.3" in err.message and str(err).startswith("illegal:")


@pytest.mark.parametrize("kind", ["options", "start", "kick"])
def test_not_host_in_the_lobby(kind: str) -> None:
    g = lobby(3)
    fields = {"player": "p3"} if kind == "kick" else {}
    assert g.refuse("p2", kind, **fields).code == "not_host"


def test_not_host_after_the_game() -> None:
    g = start(HANDS, stock=["5C", "6C", "7C"], dealer=2)
    call_and_finish(g, "p1")
    assert g.refuse("p3", "next_round").code == "not_host"
    with_totals(g, {"p2": 500})
    g.act("p1", "next_round")
    g.ready_all()
    call_and_finish(g)
    assert g.refuse("p3", "rematch").code == "not_host"


def test_unknown_player() -> None:
    g = start(HANDS, stock=["QC"], dealer=2)
    calls: list[Callable[[], object]] = [
        lambda: apply(g.state, "p9", action_from_dict({"type": "ready"}), g.now),
        lambda: set_connected(g.state, "p9", True, g.now),
        lambda: remove_player(lobby(2).state, "p9", T0),
    ]
    for call in calls:
        with pytest.raises(IllegalAction) as info:
            call()
        assert info.value.code == "unknown_player"
    assert legal(g.state, "p9", g.now) == []
    g.draw()
    assert g.refuse("p1", "queen", slot="left", target="p9", target_slot="left").code \
        == "unknown_player"
    g2 = lobby(2)
    assert g2.refuse("p1", "kick", player="p7").code == "unknown_player"


def test_room_full_for_a_ninth_player() -> None:
    g = lobby(8)
    before = snapshot(g.state)
    with pytest.raises(IllegalAction) as info:
        add_player(g.state, "Nina", g.now)
    assert info.value.code == "room_full"
    assert snapshot(g.state) == before


@pytest.mark.parametrize("phase", ["peek", "playing", "round_over", "game_over"])
def test_game_started(phase: str) -> None:
    g = start(HANDS, stock=["5C", "6C", "7C"], dealer=2, ready=phase != "peek")
    if phase == "game_over":
        with_totals(g, {"p2": 500})
    if phase in ("round_over", "game_over"):
        call_and_finish(g, "p1")
    assert g.state.status == phase
    with pytest.raises(IllegalAction) as info:
        add_player(g.state, "Late", g.now)
    assert info.value.code == "game_started"


@pytest.mark.parametrize("msg", [
    {},
    {"type": None},
    {"type": "dance"},
    {"type": 7},
    {"type": "Draw"},
    {"type": "draw", "source": "hand"},
    {"type": "draw", "source": None},
    {"type": "swap"},
    {"type": "swap", "slot": 0},
    {"type": "swap", "slot": "top"},
    {"type": "swap", "slot": "LEFT"},
    {"type": "queen", "slot": "left", "target": "p2"},
    {"type": "queen", "slot": "left", "target_slot": "left"},
    {"type": "queen", "slot": "left", "target": "", "target_slot": "left"},
    {"type": "queen", "slot": "left", "target": 2, "target_slot": "left"},
    {"type": "queen", "slot": "centre", "target": "p2", "target_slot": "left"},
    {"type": "kick"},
    {"type": "kick", "player": None},
    {"type": "options", "limit": 75},
    {"type": "options", "draw_seconds": 20},
    {"type": "options", "draw_seconds": 30.0},
    {"type": "options", "draw_seconds": "30"},
    {"type": "options", "draw_seconds": True},
    {"type": "options", "discard_draw": 1},
    {"type": "options", "discard_draw": "yes"},
])
def test_bad_message(msg: dict[str, object]) -> None:
    with pytest.raises(InvalidAction) as info:
        action_from_dict(msg)
    assert info.value.code == "bad_message"


@pytest.mark.parametrize("msg", [
    {"type": "draw", "source": "stock"},
    {"type": "draw", "source": "discard"},
    {"type": "swap", "slot": "middle", "id": "m1"},
    {"type": "queen", "slot": "right", "target": "p3", "target_slot": "middle"},
    {"type": "options", "limit": 50, "draw_seconds": None, "discard_draw": True},
    {"type": "options"},
    {"type": "kick", "player": "p2"},
    {"type": "start"}, {"type": "ready"}, {"type": "discard"}, {"type": "jack"},
    {"type": "king"}, {"type": "crisp"}, {"type": "next_round"}, {"type": "rematch"},
])
def test_well_formed_messages_parse(msg: dict[str, object]) -> None:
    action_from_dict(msg)


def test_a_refused_action_leaves_the_state_unchanged_even_with_a_deadline_due() -> None:
    g = start(HANDS, stock=["5C", "6C"], dealer=2, options=Options(draw_seconds=30))
    g.play_turn()
    g.now += WINDOW + 60_000  # the window closed and p2's draw timed out meanwhile
    before = snapshot(g.state)
    version = g.state.version
    g.refuse("p1", "crisp")
    g.refuse("p1", "rematch")
    assert snapshot(g.state) == before and g.state.version == version


def test_no_call_mutates_its_input() -> None:
    """Deep copies before and after every entry point, on states of every phase."""
    def check(fn: Callable[..., Any], *args: Any) -> Any:
        frozen = [copy.deepcopy(a.to_json()) if hasattr(a, "to_json") else copy.deepcopy(a)
                  for a in args]
        out = fn(*args)
        after = [a.to_json() if hasattr(a, "to_json") else a for a in args]
        assert json.dumps(frozen, sort_keys=True, default=str) == \
            json.dumps(after, sort_keys=True, default=str)
        return out

    state = new_table("A", Options(draw_seconds=30, discard_draw=True))
    state, _, _ = check(add_player, state, "B", T0)
    state, _, _ = check(add_player, state, "C", T0)
    state, _ = check(remove_player, state, "p3", T0)
    state, _, _ = check(add_player, state, "D", T0)
    for p in ("p1", "p2", "p4"):
        state, _ = check(set_connected, state, p, True, T0)
    state, events = check(apply, state, "p1", action_from_dict({"type": "start"}), T0)
    for e in events:
        for p in ("p1", "p2", "p4"):
            check(redact, e, p)
    for p in ("p1", "p2", "p4"):
        check(view_for, state, p, T0)
        check(legal, state, p, T0)
    state, _ = check(advance, state, T0 + 10_000)
    for t in (T0 + 50_000, T0 + 200_000):
        for p in ("p1", "p2", "p4"):
            check(view_for, state, p, t)
            check(legal, state, p, t)
        state, _ = check(advance, state, t)
    assert state.status == "playing"


def test_outputs_never_alias_the_state() -> None:
    g = start(HANDS, stock=["5C", "6C", "7C"], dealer=2)
    call_and_finish(g, "p1")
    state = g.state
    before = snapshot(state)
    over = next(e for e in g.log if e.kind == "round_over")
    view_for(state, "p2", g.now)["last_round"]["sums"]["p1"] = 99
    state.to_json()["last_round"]["hands"]["p1"][0] = "KH"
    r = redact(over, "p3")
    assert r is not None
    r["hands"]["p2"][1] = "QH"
    assert snapshot(state) == before
    raw = json.loads(json.dumps(state.to_json()))
    from crisp.engine import State

    restored = State.from_json(raw)
    raw["last_round"]["scores"]["p3"] = -40
    assert snapshot(restored) == before


# -- the lobby -------------------------------------------------------------------------


def test_join_order_gives_ids_and_seats() -> None:
    g = lobby(4)
    v = g.view("p3")
    assert [(pl["id"], pl["seat"], pl["name"]) for pl in v["players"]] == [
        ("p1", 0, "P1"), ("p2", 1, "P2"), ("p3", 2, "P3"), ("p4", 3, "P4")]
    assert v["host"] == "p1" and v["you"] == "p3" and v["status"] == "lobby"
    assert [e.kind for e in g.log[:3]] == ["joined"] * 3


def test_kick_in_the_lobby_moves_the_seats_behind_up() -> None:
    g = lobby(4)
    g.act("p1", "kick", player="p2")
    assert g.seen("p3") == [{"kind": "left", "player": "p2"}]
    assert [(p.id, i) for i, p in enumerate(g.state.players)] == [("p1", 0), ("p3", 1),
                                                                  ("p4", 2)]
    _, new_id, _ = add_player(g.state, "E", g.now)
    assert new_id == "p5"  # ids are never reused
    err = g.refuse("p1", "kick", player="p1")
    assert err.code == "illegal"


def test_kick_needs_someone_to_kick() -> None:
    g = lobby(1)
    assert "kick" not in g.legal("p1")
    assert g.refuse("p1", "kick", player="p1").code == "illegal"


def test_remove_player_only_in_the_lobby() -> None:
    g = start(HANDS, dealer=2)
    with pytest.raises(IllegalAction) as info:
        remove_player(g.state, "p2", g.now)
    assert info.value.code == "wrong_phase"
    # a kick in a game hands the seat to the computer (R17.5): test_engine_seats.py


def test_a_draw_without_a_source_is_refused() -> None:
    """protocol.md: `draw` takes `source`; the one parser of an action's text (used by
    the server after its edge validation, the bots and the bench) has no default."""
    with pytest.raises(InvalidAction) as refused:
        action_from_dict({"type": "draw"})
    assert refused.value.code == "bad_message"
