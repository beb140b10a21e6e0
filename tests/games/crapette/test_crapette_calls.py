"""K6: "Crapette!" calls, judged by the server on the version the caller saw."""

from __future__ import annotations

import random
from dataclasses import dataclass

import pytest

from crisp.games.api import Ctx, GameError
from crisp.games.crapette import GAME
from crisp.games.crapette.board import Board
from crisp.games.crapette.vocabulary import Calls
from tests.games.crapette.helpers import Play, full


def k9_table() -> Board:
    """K9's first example: foundations A♥ 2♥, my crapette top 3♥, my 8♣ on the tableau."""
    return full(["KS 8C", "9H"], foundations=["2H"], crapette=("5S 3H", "KD"), turned="4D",
                stock=("", "7S 6S"))


def test_k6_2_k9_moving_8c_while_3h_could_go_up_is_a_fault_and_a_right_call_ends_the_turn() -> None:
    g = Play(k9_table(), Calls.OBVIOUS)
    g.move("p1", "tableau:0", "tableau:1")
    version = g.last_version()
    assert g.view("p2")["turn"]["can_call"] is True
    out = g.send("p2", "crapette", version=version)
    called = out[0]
    assert (called["kind"], called["right"], called["fault"]) == ("called", True, "obvious")
    assert called["missed"] == {"from": "crapette", "to": "foundation:0"}
    ended = [e for e in out if e["kind"] == "ended"]
    assert ended == [{"kind": "ended", "player": "p1", "card": "4D", "why": "call"}]
    v = g.view("p2")
    assert v["turn"]["player"] == "p2" and v["turn"]["turned"] == "6S"
    assert v["players"][0]["waste"] == {"count": 1, "top": "4D"}


def test_k6_3_every_obvious_fault_is_one_under_combination_without_show() -> None:
    g = Play(k9_table(), Calls.COMBINATION)
    g.move("p1", "tableau:0", "tableau:1")
    assert g.send("p2", "crapette", version=g.last_version())[0]["fault"] == "obvious"


def test_k6_6_a_wrong_call_changes_nothing_and_bars_the_caller_until_the_next_move() -> None:
    g = Play(full(["KS 8C", "9H", "KS 7D"], crapette=("5S 3H", "KD"), turned="4D"),
             Calls.OBVIOUS)
    g.move("p1", "tableau:0", "tableau:1")  # nothing could go up: no fault
    v1 = g.last_version()
    before = g.view("p1")["tableau"]
    out = g.send("p2", "crapette", version=v1)
    assert out == [{"kind": "called", "player": "p2", "version": v1, "right": False,
                    "fault": None, "shown": None, "missed": None}]
    assert g.view("p1")["tableau"] == before and g.state.mover == "p1"
    assert g.view("p2")["turn"]["can_call"] is False
    assert g.view("p2")["calls"] == [{"player": "p2", "version": v1, "right": False,
                                      "fault": None, "missed": None}]
    err = g.refuse("p2", "crapette", version=v1)
    assert (err.code, err.rule) == ("illegal", "K6.6")
    g.move("p1", "tableau:2", "tableau:1")  # 7D on 8C: the mover's next move
    assert g.view("p2")["turn"]["can_call"] is True
    g.send("p2", "crapette", version=v1)  # open again (still wrong)


def test_k6_6_a_call_by_the_mover_is_refused() -> None:
    g = Play(k9_table(), Calls.OBVIOUS)
    g.move("p1", "tableau:0", "tableau:1")
    err = g.refuse("p1", "crapette", version=g.last_version())
    assert (err.code, err.rule) == ("illegal", "K6.6")


def test_k6_6_a_call_naming_a_version_of_another_turn_is_refused() -> None:
    g = Play(k9_table(), Calls.OBVIOUS)
    g.move("p1", "tableau:0", "tableau:1")
    old = g.last_version()
    g.send("p1", "end")
    g.send("p2", "end")
    err = g.refuse("p2", "crapette", version=old)
    assert (err.code, err.rule) == ("illegal", "K6.6")
    err = g.refuse("p2", "crapette", version=old + 1000)
    assert (err.code, err.rule) == ("illegal", "K6.6")


def test_k6_6_a_call_from_a_watcher_is_not_a_player() -> None:
    g = Play(k9_table(), Calls.OBVIOUS)
    g.move("p1", "tableau:0", "tableau:1")
    err = g.refuse("w9", "crapette", version=g.last_version())
    assert err.code == "not_a_player"


def test_k6_1_off_refuses_every_call() -> None:
    g = Play(k9_table(), Calls.OFF)
    g.move("p1", "tableau:0", "tableau:1")
    assert g.view("p2")["turn"]["can_call"] is False and g.view("p2")["legal"] == []
    err = g.refuse("p2", "crapette", version=g.last_version())
    assert (err.code, err.rule) == ("illegal", "K6.1")


def k9_combination() -> Board:
    """K9: a pile ends 6♣ 5♦, 5♣ is on a foundation, another pile's top is 6♠; my
    turned card 9H can load the opponent's waste (10H)."""
    return full(["6C 5D", "6S"], foundations=["5C"], crapette=("KS", "QD"), turned="9H",
                waste=("", "TH"), stock=("2D", "3D"))


def test_k6_3_k9_loading_the_turned_card_while_a_combination_existed_is_caught_with_show() -> None:
    g = Play(k9_combination(), Calls.COMBINATION)
    g.move("p1", "turned", "opponent_waste")
    version = g.last_version()
    show = [{"from": "tableau:0", "to": "tableau:1"}, {"from": "tableau:0", "to": "foundation:0"}]
    out = g.send("p2", "crapette", version=version, show=show)
    assert (out[0]["right"], out[0]["fault"], out[0]["shown"]) == (True, "combination", show)
    assert out[0]["missed"] == show[0]
    assert g.state.mover == "p2"


def test_k6_3_without_show_a_combination_fault_is_judged_as_obvious_and_is_wrong() -> None:
    g = Play(k9_combination(), Calls.COMBINATION)
    g.move("p1", "turned", "opponent_waste")
    out = g.send("p2", "crapette", version=g.last_version())
    assert (out[0]["right"], out[0]["fault"]) == (False, None)


def test_k6_3_a_show_that_is_legal_but_does_not_qualify_makes_a_wrong_call() -> None:
    g = Play(k9_combination(), Calls.COMBINATION)
    g.move("p1", "turned", "opponent_waste")
    show = [{"from": "tableau:0", "to": "tableau:1"}]
    assert g.send("p2", "crapette", version=g.last_version(), show=show)[0]["right"] is False


def test_k6_3_a_show_with_an_illegal_step_is_refused_naming_the_rule() -> None:
    g = Play(k9_combination(), Calls.COMBINATION)
    g.move("p1", "turned", "opponent_waste")
    show = [{"from": "tableau:0", "to": "foundation:0"}]  # 5D on 5C
    err = g.refuse("p2", "crapette", version=g.last_version(), show=show)
    assert (err.code, err.rule) == ("illegal", "K6.3") and "K4.2" in err.message
    bad = g.refuse("p2", "crapette", version=g.last_version(), show=[{"from": "x", "to": "y"}])
    assert bad.code == "bad_message"
    assert g.view("p2")["turn"]["can_call"] is True  # a refused call uses nothing up


def test_k6_3_a_tableau_move_that_begins_a_qualifying_sequence_is_no_fault() -> None:
    g = Play(k9_combination(), Calls.COMBINATION)
    g.move("p1", "tableau:0", "tableau:1")
    show = [{"from": "tableau:0", "to": "tableau:1"}, {"from": "tableau:0", "to": "foundation:0"}]
    assert g.send("p2", "crapette", version=g.last_version(), show=show)[0]["right"] is False


def test_k6_4_strict_crapette_to_tableau_comes_before_the_turned_card() -> None:
    """Priority 2 (the crapette top to the tableau) beats 3 (the turned card)."""
    g = Play(full(["8C", "9H"], crapette=("KS 7H", "KD"), turned="7D"), Calls.STRICT)
    g.move("p1", "turned", "tableau:0")  # 7D on 8C while 7H could go there
    out = g.send("p2", "crapette", version=g.last_version())
    assert (out[0]["right"], out[0]["fault"]) == (True, "priority")
    assert out[0]["missed"] == {"from": "crapette", "to": "tableau:0"}


def test_k6_4_strict_when_only_a_sequence_was_better_the_call_must_show_it() -> None:
    start = full(["6C 5D", "6S", "TS"], foundations=["5C"], crapette=("KS", "QD"),
                 turned="9H", waste=("", "TH"), stock=("2D", "3D"))
    show = [{"from": "tableau:0", "to": "tableau:1"}, {"from": "tableau:0", "to": "foundation:0"}]
    g = Play(start, Calls.STRICT)
    g.move("p1", "turned", "tableau:2")  # priority 3; only the sequence's first step was better
    assert g.send("p2", "crapette", version=g.last_version())[0]["right"] is False
    g = Play(start, Calls.STRICT)
    g.move("p1", "turned", "tableau:2")
    out = g.send("p2", "crapette", version=g.last_version(), show=show)
    assert (out[0]["right"], out[0]["fault"]) == (True, "combination")


def test_k6_5_a_call_names_an_earlier_move_of_the_turn_after_the_mover_moved_on() -> None:
    g = Play(full(["KS 8C", "9H", "KS 7D"], foundations=["2H"], crapette=("5S 3H", "KD"),
                  turned="4D"), Calls.OBVIOUS)
    g.move("p1", "tableau:0", "tableau:1")  # a fault: 3H could go up
    faulty = g.last_version()
    g.move("p1", "crapette", "foundation:0")  # the mover goes on
    out = g.send("p2", "crapette", version=faulty)
    assert out[0]["right"] is True and g.state.mover == "p2"


def test_k6_5_end_is_never_a_fault() -> None:
    g = Play(k9_table(), Calls.OBVIOUS)
    g.send("p1", "end")  # 3H could have gone up; the turn is over
    assert g.view("p1")["turn"]["can_call"] is False


def test_k6_5_a_call_names_the_table_version_when_the_table_gives_one() -> None:
    """The proposed `Ctx.version` (the table version an action's update produces):
    `moved` carries it and a call names it; without it, the game's own move count."""
    @dataclass(frozen=True)
    class Versioned(Ctx):
        version: int | None = None

    g = Play(k9_table(), Calls.OBVIOUS)
    rng = random.Random(1)
    action = GAME.parse({"type": "move", "from": "tableau:0", "to": "tableau:1"})
    state, evs = GAME.apply(g.state, "p1", action, Versioned(0, rng, version=412))
    assert evs[0].data["version"] == 412
    with pytest.raises(GameError):  # the game's own count names no move now
        GAME.apply(state, "p2", GAME.parse({"type": "crapette", "version": 1}),
                   Versioned(1, rng, version=413))
    state, evs = GAME.apply(state, "p2", GAME.parse({"type": "crapette", "version": 412}),
                            Versioned(1, rng, version=413))
    assert evs[0].data["right"] is True
