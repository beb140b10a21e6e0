"""R17: computer players, away seats, host hand-over, seats removed during a game,
and a table that pauses while every human is away. Durations use the injected
clock (`g.at`), scaled like R10.4's where a test says so."""

from __future__ import annotations

import pytest

from crisp.engine import (
    IllegalAction,
    Options,
    State,
    add_player,
    apply,
    computer_seats,
    new_table,
    next_deadline,
)
from crisp.engine.actions import AddBot
from tests.engine.helpers import Game, kinds, lobby, start

AWAY = 20_000  # R17.2
HOST_AWAY = 60_000  # R17.4
HANDS = {"p1": ["AS", "2S", "3S"], "p2": ["4S", "5S", "6S"], "p3": ["7S", "8S", "9S"]}
STOCK = ["5C", "6C", "7C", "8C", "9C", "2D", "3D", "4D"]


def seat(g: Game, player: str) -> dict[str, object]:
    """The player's entry in the view (as everyone sees it)."""
    return next(p for p in g.view("p1")["players"] if p["id"] == player)


def computer(g: Game) -> list[tuple[str, str]]:
    return computer_seats(g.state, g.now)


# -- R17.1 computer players ------------------------------------------------------------


def test_r17_1_the_host_adds_computer_players_in_the_lobby() -> None:
    g = lobby(2)
    assert "add_bot" in g.legal("p1") and "add_bot" not in g.legal("p2")
    g.act("p1", "add_bot", level="easy")
    assert [(e.kind, e.data) for e in g.last] == [("bot_added", {"player": "p3",
                                                                 "level": "easy"})]
    g.act("p1", "add_bot")  # the level defaults to "normal"
    assert g.last[0].data == {"player": "p4", "level": "normal"}
    assert seat(g, "p3") == {"id": "p3", "name": "Computer 1", "seat": 2, "connected": False,
                             "is_bot": True, "bot_level": "easy", "away": False, "total": 0,
                             "ready": False, "cards": [None, None, None]}
    assert seat(g, "p4")["name"] == "Computer 2"
    assert seat(g, "p2")["is_bot"] is False and seat(g, "p2")["bot_level"] is None
    assert computer(g) == []  # nothing to do in the lobby


def test_r17_1_up_to_eight_seats() -> None:
    g = lobby(7)
    g.act("p1", "add_bot", level="normal")
    assert "add_bot" not in g.legal("p1")
    err = g.refuse("p1", "add_bot", level="easy")
    assert (err.code, err.rule) == ("room_full", "R17.1")


def test_r17_1_only_the_host_in_the_lobby() -> None:
    g = lobby(2)
    assert g.refuse("p2", "add_bot").code == "not_host"
    g = start(players=2, dealer=1)
    assert g.refuse("p1", "add_bot").code == "wrong_phase"


def test_r17_1_a_computer_player_has_no_connection_and_never_leaves() -> None:
    g = lobby(2)
    g.act("p1", "add_bot")
    assert g.connect("p3") == [] and g.connect("p3", False) == []  # nothing to record
    assert g.legal("p3") == []
    err = g.refuse("p3", "leave")
    assert (err.code, err.rule) == ("illegal", "R17.5")


def test_r17_1_the_computer_confirms_and_plays_for_its_seats() -> None:
    g = lobby(2, deck=None)
    g.act("p1", "add_bot", level="easy")
    g.act("p1", "start")
    assert computer(g) == [("p3", "easy")]  # the peek confirmation (R16.2)
    g.act("p3", "ready")
    assert computer(g) == []
    g.ready_all()
    first = g.turn_player
    assert computer(g) == ([("p3", "easy")] if first == "p3" else [])


# -- R17.2 away seats ------------------------------------------------------------------


def test_r17_2_a_seat_is_away_20_seconds_after_its_last_connection_ended() -> None:
    g = start(HANDS, stock=STOCK, dealer=2)  # p1's turn
    t = g.now
    g.connect("p2", False)
    assert next_deadline(g.state) == t + AWAY
    assert seat(g, "p2")["connected"] is False and seat(g, "p2")["away"] is False
    g.at(t + AWAY - 1)
    assert seat(g, "p2")["away"] is False and g.last == []
    g.at(t + AWAY)
    assert [(e.kind, e.data) for e in g.last] == [("away", {"player": "p2"})]
    assert seat(g, "p2")["away"] is True and seat(g, "p2")["is_bot"] is False
    assert next_deadline(g.state) is None


def test_r17_2_a_late_advance_makes_the_seat_away_at_its_moment() -> None:
    g = start(HANDS, stock=STOCK, dealer=2)
    t = g.now
    g.connect("p2", False)
    g.now = t + AWAY + 5_000  # no advance(): apply() applies the due deadline first
    g.act("p1", "draw", source="stock")
    assert kinds(g.last)[:2] == ["away", "drew"]


def test_r17_2_a_reconnect_in_time_never_makes_the_seat_away() -> None:
    g = start(HANDS, stock=STOCK, dealer=2)
    t = g.now
    g.connect("p2", False)
    g.at(t + AWAY // 2)
    assert kinds(g.connect("p2")) == ["connected"]
    assert next_deadline(g.state) is None
    g.at(t + 2 * AWAY)
    assert seat(g, "p2")["away"] is False


def test_r17_2_the_computer_plays_an_away_seats_turn_and_gives_it_back_at_once() -> None:
    g = start(HANDS, stock=STOCK, dealer=2)
    g.connect("p2", False)
    g.play_turn()  # p1
    assert computer(g) == []  # p2 is not away yet: the table waits (no draw timer)
    g.at(g.now + AWAY)
    assert computer(g) == [("p2", "normal")]
    g.until_may_start()
    g.act("p2", "draw", source="stock")  # the computer draws for p2
    assert computer(g) == [("p2", "normal")]
    events = g.connect("p2")  # mid-turn: the seat is p2's again, with the card it holds
    assert kinds(events) == ["connected", "back"]
    assert computer(g) == []
    assert g.view("p2")["holding"] == "6C" and seat(g, "p2")["away"] is False
    g.act("p2", "discard")


def test_r17_2_the_computer_confirms_for_an_away_seat_and_may_call_in_its_window() -> None:
    g = start(HANDS, stock=STOCK, dealer=2, ready=False)
    g.connect("p3", False)
    g.state = _away_at_once(g, "p3")
    assert computer(g) == [("p3", "normal")]  # R16.2 for the away seat
    g.ready_all()
    g.play_turns(2)  # p1, p2
    g.at(g.now)
    assert computer(g) == [("p3", "normal")]  # its turn
    g.play_turn()
    assert ("p3", "normal") in computer(g)  # its crisp window (the computer may call)
    g.act("p3", "crisp")
    while g.state.status == "playing":
        g.play_turn()
    assert computer(g) == [("p3", "normal")]  # R16.5: the next-round confirmation


def _away_at_once(g: Game, player: str) -> State:
    """The state with `player` away now (its 20 s elapsed), through the JSON form
    (the peek phase lasts only 10 s)."""
    raw = g.state.to_json()
    for p in raw["players"]:
        if p["id"] == player:
            p["away"] = True
    return State.from_json(raw)


def test_r16_5_r17_2_the_next_round_does_not_wait_for_an_absent_player() -> None:
    g = start(HANDS, stock=STOCK, dealer=2)
    g.play_turn()
    g.act("p1", "crisp")
    g.play_turns(2)
    assert g.state.status == "round_over"
    g.connect("p2", False)
    g.act("p1", "ready")
    g.act("p3", "ready")
    assert g.state.status == "round_over" and computer(g) == []
    g.at(g.now + AWAY)
    assert computer(g) == [("p2", "normal")]
    g.act("p2", "ready")  # the computer confirms for the away seat
    assert g.state.status == "peek"


def test_r17_2_every_duration_is_scaled() -> None:
    g = start(HANDS, stock=STOCK, dealer=2, time_scale=0.1)
    t = g.now
    g.connect("p1", False)
    assert next_deadline(g.state) == t + AWAY // 10
    g.at(t + AWAY // 10)
    assert kinds(g.last) == ["away"]
    assert next_deadline(g.state) == t + (AWAY + HOST_AWAY) // 10  # R17.4
    g.at(t + (AWAY + HOST_AWAY) // 10)
    assert [(e.kind, e.data) for e in g.last] == [("host_changed", {"player": "p2"})]


# -- R17.4 host hand-over --------------------------------------------------------------


def test_r17_4_a_host_away_60_s_hands_over_to_the_connected_human_who_joined_first() -> None:
    g = lobby(4)
    g.act("p1", "add_bot")  # p5: never a host
    t = g.now
    g.connect("p1", False)
    g.connect("p2", False)  # not connected: passed over
    g.at(t + AWAY)
    assert [e.data["player"] for e in g.last if e.kind == "away"] == ["p1", "p2"]
    g.at(t + AWAY + HOST_AWAY - 1)
    assert g.view("p3")["host"] == "p1"
    g.at(t + AWAY + HOST_AWAY)
    assert [(e.kind, e.data) for e in g.last] == [("host_changed", {"player": "p3"})]
    assert g.view("p3")["host"] == "p3" and "start" in g.legal("p3")
    assert g.refuse("p1", "start").code == "not_host"


def test_r17_4_a_host_back_in_time_keeps_the_role() -> None:
    g = lobby(3)
    t = g.now
    g.connect("p1", False)
    g.at(t + AWAY + HOST_AWAY // 2)
    g.connect("p1")
    g.at(t + 3 * HOST_AWAY)
    assert g.view("p2")["host"] == "p1" and "host_changed" not in kinds(g.log)


def test_r17_4_with_no_human_connected_the_first_human_who_connects_is_host() -> None:
    g = start(HANDS, stock=STOCK, dealer=2)
    t = g.now
    for p in ("p1", "p2", "p3"):
        g.connect(p, False)
    g.at(t + AWAY + HOST_AWAY)
    assert g.state.host_pending and "host_changed" not in kinds(g.log)
    g.connect("p3")
    assert [(e.kind, e.data) for e in g.last][-1] == ("host_changed", {"player": "p3"})
    assert g.view("p3")["host"] == "p3" and not g.state.host_pending


def test_r17_4_while_the_role_is_pending_nobody_is_host() -> None:
    g = lobby(2)
    t = g.now
    g.connect("p2", False)
    g.connect("p1", False)
    g.at(t + AWAY + HOST_AWAY)
    assert g.state.host_pending
    assert g.refuse("p1", "start").code == "not_host"
    assert kinds(g.connect("p1")) == ["connected", "back"]  # the first to connect: p1
    assert g.view("p1")["host"] == "p1" and "start" in g.legal("p1")


def test_r17_4_a_host_who_leaves_the_lobby_hands_over_at_once() -> None:
    g = lobby(3)
    g.connect("p2", False)
    g.act("p1", "leave")
    assert [(e.kind, e.data) for e in g.last] == [("left", {"player": "p1"}),
                                                  ("host_changed", {"player": "p3"})]
    assert [p["id"] for p in g.view("p3")["players"]] == ["p2", "p3"]
    assert g.view("p3")["host"] == "p3"


# -- R17.5 removal and leaving ---------------------------------------------------------


def test_r17_5_a_seat_removed_during_a_game_is_played_by_a_normal_computer_player() -> None:
    g = start(HANDS, stock=STOCK, dealer=2)
    assert "kick" in g.legal("p1") and "kick" not in g.legal("p2")
    g.act("p1", "kick", player="p2")
    assert [(e.kind, e.data) for e in g.last] == [("took_over", {"player": "p2"})]
    assert seat(g, "p2") | {"cards": None} == {
        "id": "p2", "name": "P2", "seat": 1, "connected": False, "is_bot": True,
        "bot_level": "normal", "away": False, "total": 0, "ready": False, "cards": None}
    err = g.refuse("p1", "kick", player="p2")
    assert (err.code, err.rule) == ("illegal", "R17.5")
    assert g.refuse("p1", "kick", player="p1").code == "illegal"  # not the host
    assert g.refuse("p1", "kick", player="p9").code == "unknown_player"
    g.play_turn()  # p1
    assert computer(g) == [("p2", "normal")]


def test_r17_5_a_player_who_leaves_a_game_hands_the_seat_to_the_computer() -> None:
    g = start(HANDS, stock=STOCK, dealer=2)
    g.draw()  # p1 holds 5C
    g.act("p1", "leave")
    assert [(e.kind, e.data) for e in g.last] == [("took_over", {"player": "p1"}),
                                                  ("host_changed", {"player": "p2"})]
    assert computer(g) == [("p1", "normal")]  # it finishes the turn
    assert g.view("p1")["holding"] == "5C"
    g.act("p1", "discard")
    assert g.view("p2")["host"] == "p2"


def test_r17_5_kick_in_a_game_needs_another_human_seat() -> None:
    g = start(players=2, dealer=1)
    g.act("p1", "kick", player="p2")
    assert "kick" not in g.legal("p1")
    err = g.refuse("p1", "kick", player="p2")
    assert err.code == "illegal"


def test_r17_5_the_lobby_frees_the_seat_a_computer_players_too() -> None:
    g = lobby(3)
    g.act("p1", "add_bot")
    g.act("p1", "kick", player="p4")
    assert [(e.kind, e.data) for e in g.last] == [("left", {"player": "p4"})]
    g.act("p2", "leave")
    assert [(e.kind, e.data) for e in g.last] == [("left", {"player": "p2"})]
    assert [p.id for p in g.state.players] == ["p1", "p3"] and not g.state.abandoned


def test_r17_5_a_lobby_with_no_human_left_is_abandoned() -> None:
    g = lobby(1)
    g.act("p1", "add_bot")
    g.act("p1", "leave")
    assert [(e.kind, e.data) for e in g.last] == [("left", {"player": "p1"})]
    assert g.state.abandoned and g.state.host_pending


def test_r17_5_a_game_with_no_human_left_is_abandoned() -> None:
    g = start(players=2, dealer=1)
    g.act("p2", "leave")
    assert not g.state.abandoned
    g.act("p1", "leave")
    assert g.state.abandoned and computer(g) == []  # R17.6: nobody watches: nothing acts


# -- R17.6 a paused table --------------------------------------------------------------


def _timed_with_a_bot() -> Game:
    g = lobby(2, options=Options(draw_seconds=30), dealer=2)  # p1 plays first
    g.act("p1", "add_bot")
    g.act("p1", "start")
    g.ready_all()  # the computer player's confirmation too
    return g


def test_r17_6_while_every_human_is_away_nothing_acts_and_draw_timers_stop() -> None:
    g = _timed_with_a_bot()
    assert g.state.status == "playing" and g.turn_player == "p1"
    t = g.now
    g.connect("p1", False)
    g.connect("p2", False)
    g.at(t + AWAY)
    assert kinds(g.last) == ["away", "away"]
    assert computer(g) == []  # bots and away seats alike
    assert next_deadline(g.state) == t + AWAY + HOST_AWAY  # the host hand-over only
    g.at(t + AWAY + HOST_AWAY)
    assert next_deadline(g.state) is None
    g.at(t + 10 * HOST_AWAY)
    assert "timeout" not in kinds(g.log)


def test_r17_6_a_returning_human_gives_the_draw_in_progress_its_full_time() -> None:
    g = _timed_with_a_bot()
    turn = g.state.turn
    assert turn is not None
    g.until_may_start()
    g.connect("p1", False)
    g.connect("p2", False)
    g.at(g.now + AWAY)
    back = g.now + 5 * 60_000
    g.at(back)
    assert kinds(g.connect("p2")) == ["connected", "back", "host_changed"]  # R17.4 too
    assert g.deadline() == back + 30_000
    assert next_deadline(g.state) == back + 30_000
    assert computer(g) == [("p1", "normal")]  # p1 is still away: the computer plays it


def test_r17_6_no_human_connected_means_nothing_acts_even_before_everyone_is_away() -> None:
    """Issue 23: p2 leaves at 0 s, p1 at 5 s; at 20 s p2 is away but nobody is
    connected: the computer does not play p2's seat (nor the bot), and no draw timer
    fires; p1's return at 30 s resumes the table."""
    g = _timed_with_a_bot()
    t = g.now
    g.connect("p2", False)
    g.at(t + 5_000)
    g.connect("p1", False)
    g.at(t + AWAY)
    assert kinds(g.last) == ["away"] and computer(g) == []
    g.at(t + AWAY + 10_000)
    assert "timeout" not in kinds(g.log)
    g.connect("p1")  # somebody is here again: p1's own draw timer runs (R14.2)
    g.at(g.deadline())
    assert kinds(g.last)[:1] == ["timeout"]


def test_r17_6_a_short_pause_keeps_the_time_left_a_reload_buys_none() -> None:
    """The last human reconnects 2 s after leaving, before anyone became away: the
    draw keeps the time it had left (its deadline moves by the pause), not a full 30 s."""
    g = _timed_with_a_bot()
    g.until_may_start()
    deadline = g.deadline()
    g.at(deadline - 3_000)  # 3 s left
    g.connect("p2", False)
    g.connect("p1", False)
    g.at(g.now + 2_000)
    g.connect("p1")
    assert g.deadline() == deadline + 2_000
    g.at(deadline + 2_000)
    assert kinds(g.last)[:1] == ["timeout"]


def test_r17_6_one_human_present_keeps_the_table_going() -> None:
    g = start(HANDS, stock=STOCK, dealer=2, options=Options(draw_seconds=30))
    g.connect("p1", False)  # p1's turn; p2 and p3 are here
    g.at(g.now + AWAY)
    assert computer(g) == [("p1", "normal")]
    deadline = g.deadline()
    g.at(deadline)  # nobody acted for p1: its draw timed out as usual (R14.2)
    assert kinds(g.last)[:1] == ["timeout"]


def test_r17_events_are_public() -> None:
    g = lobby(2)
    g.act("p1", "add_bot")
    g.connect("p2", False)
    g.at(g.now + AWAY)
    g.connect("p2")
    for e in g.log:
        if e.kind in ("bot_added", "away", "back", "host_changed", "took_over"):
            assert e.to is None and not e.secret


def test_r17_1_add_bot_is_refused_from_a_stranger() -> None:
    g = lobby(2)
    with pytest.raises(IllegalAction) as info:
        apply(g.state, "p9", AddBot(), g.now)
    assert info.value.code == "unknown_player"


def test_r17_1_a_computer_player_takes_a_name_no_human_has_in_any_case() -> None:
    """Issue 23: names of a room are unique compared case-insensitively (and after
    NFKC); a human "computer 1" keeps the computer player off that name."""
    state = new_table("Ana", options=None, now=0)
    state, _pid, _ = add_player(state, "computer 1", 0)
    state, _ = apply(state, "p1", AddBot(), 0)
    assert [p.name for p in state.players] == ["Ana", "computer 1", "Computer 2"]
