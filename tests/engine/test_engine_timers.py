"""R14 host option: time per draw (every R14.2 case, the R14.3 start of each
draw's time) and the time scale of the test hooks."""

from __future__ import annotations

from typing import Any

import pytest

from crisp.engine import Options, next_deadline
from tests.engine.helpers import PEEK, START_DELAY, T0, WINDOW, Game, kinds, start

HANDS = {"p1": ["AS", "2S", "3S"], "p2": ["4S", "5S", "6S"], "p3": ["7S", "8S", "9S"]}
STOCK = ["5C", "6C", "7C", "8C", "9C", "2D", "3D", "4D"]


def _timed(seconds: int = 30, stock: list[str] | None = None, **kw: Any) -> Game:
    return start(HANDS, stock=STOCK if stock is None else stock, dealer=2,
                 options=Options(draw_seconds=seconds), **kw)


# -- R14.1 -----------------------------------------------------------------------------


@pytest.mark.parametrize("seconds", [30, 45, 60])
def test_r14_1_each_draw_has_its_own_time(seconds: int) -> None:
    g = _timed(seconds)
    assert g.view("p2")["turn"]["draw_deadline"] == g.now + seconds * 1000
    assert next_deadline(g.state) == g.now + seconds * 1000
    g.play_turn()
    t = g.now
    assert g.view("p3")["turn"]["draw_deadline"] == t + START_DELAY + seconds * 1000


def test_r14_1_no_limit_by_default() -> None:
    g = start(HANDS, stock=STOCK, dealer=2)
    assert g.view("p1")["options"]["draw_seconds"] is None
    assert g.view("p1")["turn"]["draw_deadline"] is None
    assert next_deadline(g.state) is None
    g.at(g.now + 3_600_000)  # an hour later nothing has happened
    assert g.last == [] and g.turn_player == "p1"


@pytest.mark.parametrize("seconds", [30, 45, 60, None])
def test_r14_1_the_host_sets_the_time_in_the_lobby(seconds: int | None) -> None:
    from tests.engine.helpers import lobby

    g = lobby(2, options=Options(draw_seconds=45))
    g.act("p1", "options", draw_seconds=seconds)
    assert g.view("p2")["options"] == {"limit": 100, "draw_seconds": seconds,
                                       "discard_draw": False, "watchers": True}


def test_r14_1_king_extra_draws_each_have_their_own_time() -> None:
    g = _timed(30, stock=["KH", "5C", "6C", "7C"])
    g.at(g.now + 10_000)
    g.draw()
    g.at(g.now + 5_000)
    g.act("p1", "king")
    t1 = g.now
    assert g.view("p1")["turn"]["draw_deadline"] == t1 + 30_000
    g.at(t1 + 29_000)
    g.act("p1", "draw", source="stock")
    g.at(t1 + 29_500)
    g.act("p1", "discard")
    t2 = g.now
    assert g.view("p1")["turn"]["draw_deadline"] == t2 + 30_000
    g.at(t2 + 29_999)
    g.act("p1", "draw", source="stock")
    g.act("p1", "discard")
    assert g.turn_player == "p2"
    assert "timeout" not in kinds(g.log)


# -- R14.2 -----------------------------------------------------------------------------


def test_r14_2a_not_drawn_yet_the_top_card_is_drawn_and_discarded() -> None:
    g = _timed(30)
    deadline = g.deadline()
    g.at(deadline - 1)
    assert g.last == []
    g.at(deadline)
    assert [(e.kind, e.data) for e in g.last] == [
        ("timeout", {"player": "p1"}),
        ("discarded", {"player": "p1", "card": "5C", "timeout": True}),
        ("turn_started", {"player": "p2", "final": False}),
    ]
    assert g.discard == ["5C"] and g.stock[0] == "6C"
    assert g.hands() == HANDS
    for p in g.ids:
        assert g.seen(p) == [e.data | {"kind": e.kind} for e in g.last]  # all public


def test_r14_2a_an_action_at_the_deadline_is_too_late() -> None:
    g = _timed(30)
    deadline = g.deadline()
    g.now = deadline  # no advance(): apply() applies the timeout first
    assert g.refuse("p1", "draw", source="stock").code == "not_your_turn"
    assert g.plays("p1") == [] and g.plays("p2") == ["draw"]


@pytest.mark.parametrize("card", ["9D", "JD", "QD"])
def test_r14_2b_a_drawn_card_not_acted_on_is_discarded_unused(card: str) -> None:
    g = _timed(30, stock=[card, *STOCK])
    g.draw()
    g.at(g.deadline())
    assert [(e.kind, e.data) for e in g.last] == [
        ("timeout", {"player": "p1"}),
        ("discarded", {"player": "p1", "card": card, "timeout": True}),
        ("turn_started", {"player": "p2", "final": False}),
    ]
    assert g.hands() == HANDS and g.holding is None and g.discard == [card]


def test_r14_2b_a_king_discarded_by_timeout_grants_no_extra_draws() -> None:
    g = _timed(30, stock=["KD", *STOCK])
    g.draw()
    g.at(g.deadline())
    assert kinds(g.last) == ["timeout", "discarded", "turn_started"]
    assert g.last[1].data["card"] == "KD"
    assert "king" not in kinds(g.log)
    assert g.turn_player == "p2" and g.view("p2")["turn"]["extra_draws"] == 0
    assert g.discard == ["KD"] and g.stock[0] == STOCK[0]


def test_r14_2b_a_card_taken_from_the_pile_goes_back_on_it() -> None:
    # Decision: R14.2b discards it unused, R13.2 notwithstanding
    g = start(HANDS, stock=STOCK, dealer=2, options=Options(draw_seconds=30, discard_draw=True))
    g.play_turn()  # p1 discards 5C
    g.draw(source="discard")
    assert g.holding == "5C"
    g.at(g.deadline())
    assert g.last[1].data == {"player": "p2", "card": "5C", "timeout": True}
    assert g.discard == ["5C"] and g.hand("p2") == HANDS["p2"]


def test_r14_2c_remaining_king_extra_draws_are_lost() -> None:
    g = _timed(30, stock=["KH", "5C", "6C", "7C"])
    g.draw()
    g.act("p1", "king")
    g.act("p1", "draw", source="stock")  # 5C held; one extra draw still owed
    g.at(g.deadline())
    assert [(e.kind, e.data) for e in g.last] == [
        ("timeout", {"player": "p1"}),
        ("discarded", {"player": "p1", "card": "5C", "timeout": True}),
        ("turn_started", {"player": "p2", "final": False}),
    ]
    assert g.stock[0] == "6C"  # the owed draw was not made
    assert g.view("p2")["turn"]["extra_draws"] == 0
    assert g.discard == ["5C", "KH"]  # R9.3: the King goes on the pile as the turn ends


def test_r14_2c_revised_no_card_is_drawn_for_a_timed_out_king_extra_draw() -> None:
    # Decision (revised): an extra draw not made yet draws nothing when its time runs
    # out; it and the draws still owed after it are lost. The King goes on the pile (R9.3).
    g = _timed(30, stock=["KH", "5C", "6C", "7C"])
    g.draw()
    g.act("p1", "king")
    g.at(g.deadline())
    assert [(e.kind, e.data) for e in g.last] == [
        ("timeout", {"player": "p1"}),
        ("turn_started", {"player": "p2", "final": False}),
    ]
    assert g.discard == ["KH"] and g.stock[0] == "5C"
    assert g.view("p2")["turn"]["kings"] == []


def test_r14_2c_revised_a_timeout_after_an_extra_draw_was_resolved_draws_nothing() -> None:
    g = _timed(30, stock=["KH", "5C", "6C", "7C"])
    g.draw()
    g.act("p1", "king")
    g.act("p1", "draw", source="stock")
    g.act("p1", "discard")  # 5C; the second extra draw is never made
    g.at(g.deadline())
    assert kinds(g.last) == ["timeout", "turn_started"]
    assert g.discard == ["5C", "KH"] and g.stock[0] == "6C"


def test_r9_3_a_timeout_during_extra_draws_puts_the_kings_on_the_pile_last() -> None:
    # R14.2b: the held card is discarded unused, then the turn's Kings go on top (R9.3)
    g = _timed(30, stock=["KH", "KD", "5C", "6C", "7C"])
    g.draw()
    g.act("p1", "king")
    g.act("p1", "draw", source="stock")
    g.act("p1", "king")
    g.act("p1", "draw", source="stock")  # 5C held when the time runs out
    g.at(g.deadline())
    assert kinds(g.last) == ["timeout", "discarded", "turn_started"]
    assert g.discard == ["5C", "KH", "KD"]
    assert g.view("p2")["discard_top"] == "KD" and g.view("p2")["turn"]["kings"] == []


def test_r14_2d_a_timed_out_turn_ends_without_a_crisp_call() -> None:
    g = _timed(30, stock=["KH", *STOCK])
    g.draw()
    g.act("p1", "king")
    g.act("p1", "draw", source="stock")
    g.at(g.deadline())
    assert g.state.windows == [] and g.view("p3")["crisp"]["window"] is None
    err = g.refuse("p1", "crisp")
    assert (err.code, err.rule) == ("illegal", "R10.4")
    assert g.view("p2")["turn"]["may_start_at"] == g.now  # R10.5: at once
    assert g.view("p2")["turn"]["draw_deadline"] == g.now + 30_000


# -- R14.3 -----------------------------------------------------------------------------


def test_r14_3_a_turns_time_starts_when_the_player_may_start() -> None:
    g = _timed(30)
    g.play_turn()
    t = g.now  # p1's turn ended; p2 may start at t + 2 s, its 30 s start then
    assert g.view("p2")["turn"]["may_start_at"] == t + START_DELAY
    assert g.view("p2")["turn"]["draw_deadline"] == t + START_DELAY + 30_000
    g.at(t + START_DELAY + 29_999)
    assert g.turn_player == "p2"
    g.act("p2", "draw", source="stock")
    g.act("p2", "discard")
    assert "timeout" not in kinds(g.log)


def test_r14_3_first_turn_time_starts_when_the_peek_phase_ends_by_time() -> None:
    g = _timed(30, ready=False)
    assert g.view("p1")["peek_ends_at"] == T0 + PEEK
    assert next_deadline(g.state) == T0 + PEEK
    g.at(T0 + PEEK)
    assert g.state.status == "playing"
    assert g.view("p1")["turn"]["may_start_at"] == T0 + PEEK
    assert g.view("p1")["turn"]["draw_deadline"] == T0 + PEEK + 30_000


def test_r14_3_first_turn_time_starts_when_everyone_is_ready() -> None:
    g = _timed(30, ready=False)
    g.at(T0 + 4_000)
    g.ready_all()
    assert g.view("p1")["turn"]["may_start_at"] == T0 + 4_000
    assert g.view("p1")["turn"]["draw_deadline"] == T0 + 4_000 + 30_000


def test_r14_3_a_late_advance_still_times_the_peek_end_and_the_turn_exactly() -> None:
    # the deadline itself is the moment of the change, however late advance() runs
    g = _timed(30, ready=False)
    g.at(T0 + PEEK + 30_000 + 2 * 30_000 + 5)  # three whole draws' time after the peek
    assert kinds(g.last) == ["turn_started"] + ["timeout", "discarded", "turn_started"] * 3
    assert g.turn_player == "p1"
    assert g.view("p1")["turn"]["may_start_at"] == T0 + PEEK + 90_000
    assert g.discard == STOCK[:3]


def test_r14_3_each_king_extra_draws_time_starts_when_the_previous_draw_is_resolved() -> None:
    g = _timed(30, stock=["KH", "5C", "6C", "7C"])
    g.at(g.now + 20_000)
    g.draw()
    g.at(g.now + 9_000)  # 29 s into the first draw
    g.act("p1", "king")
    assert g.view("p1")["turn"]["draw_deadline"] == g.now + 30_000
    g.at(g.now + 29_999)
    assert g.turn_player == "p1" and "timeout" not in kinds(g.log)


def test_r14_time_scale_scales_every_duration() -> None:
    g = start(HANDS, stock=STOCK, dealer=2, options=Options(draw_seconds=30), time_scale=0.01,
              ready=False)
    assert g.view("p1")["peek_ends_at"] == T0 + PEEK // 100
    g.at(T0 + PEEK // 100)
    t = g.now
    assert g.view("p1")["turn"]["draw_deadline"] == t + 300
    g.play_turn()
    t = g.now
    assert g.view("p2")["turn"]["may_start_at"] == t + START_DELAY // 100
    assert g.view("p2")["crisp"]["window"]["closes_at"] == t + WINDOW // 100
    assert g.view("p2")["turn"]["draw_deadline"] == t + 20 + 300


def test_r14_2a_the_timeout_draw_is_from_the_stock_even_with_discard_draws() -> None:
    g = start(HANDS, stock=STOCK, dealer=2, options=Options(draw_seconds=30, discard_draw=True))
    g.play_turn()  # p1 discards 5C
    g.at(g.deadline())
    assert g.last[1].data == {"player": "p2", "card": "6C", "timeout": True}
    assert g.discard == ["5C", "6C"]
