"""Actions as values: the text form (`action_from_dict` / `action_to_dict`) and what
`apply()` does with a malformed action object (InvalidAction, never a crash and
never a silent reinterpretation)."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest

from crisp.engine import (
    ACTION_TYPES,
    IllegalAction,
    InvalidAction,
    Options,
    Slot,
    Source,
    action_from_dict,
    action_to_dict,
    action_type,
    apply,
)
from crisp.engine import actions as a
from crisp.engine.actions import Discard, Draw, Kick, SetOptions, Swap, UseQueen
from tests.engine.helpers import lobby, snapshot, start

HANDS = {"p1": ["AS", "2S", "3S"], "p2": ["4S", "5S", "6S"], "p3": ["7S", "8S", "9S"]}


def every_well_formed_action() -> list[Any]:
    options = [SetOptions(limit, seconds, dd, set_seconds)
               for limit in (None, 50, 100, 150) for dd in (None, False, True)
               for seconds, set_seconds in ((None, False), (None, True), (30, True),
                                            (45, True), (60, True))]
    return [
        *options, a.Start(), Kick("p2"), a.Ready(), Draw(Source.STOCK), Draw(Source.DISCARD),
        *(Swap(s) for s in Slot), Discard(), a.UseJack(),
        *(UseQueen(mine, "p3", theirs) for mine, theirs in itertools.product(Slot, Slot)),
        a.UseKing(), a.CallCrisp(), a.NextRound(), a.Rematch(),
        a.AddBot("easy"), a.AddBot("normal"), a.Leave(),  # protocol v1.1
    ]


ACTIONS = every_well_formed_action()


@pytest.mark.parametrize("action", ACTIONS, ids=repr)
def test_the_text_form_round_trips_exactly(action: Any) -> None:
    msg = action_to_dict(action)
    assert msg["type"] == action_type(action)
    assert json.loads(json.dumps(msg)) == msg  # plain JSON, the protocol's own words
    assert action_from_dict(json.loads(json.dumps(msg))) == action


def test_every_action_type_has_a_text_form() -> None:
    assert {action_to_dict(x)["type"] for x in ACTIONS} == set(ACTION_TYPES)


def test_the_text_form_uses_the_protocol_names() -> None:
    assert action_to_dict(UseQueen(Slot.LEFT, "p2", Slot.MIDDLE)) == {
        "type": "queen", "slot": "left", "target": "p2", "target_slot": "middle"}
    assert action_to_dict(Draw(Source.DISCARD)) == {"type": "draw", "source": "discard"}
    assert action_to_dict(SetOptions(draw_seconds=None, set_draw_seconds=True)) == {
        "type": "options", "draw_seconds": None}
    assert action_to_dict(SetOptions(limit=50)) == {"type": "options", "limit": 50}
    assert action_to_dict(a.AddBot()) == {"type": "add_bot", "level": "normal"}
    assert action_from_dict({"type": "add_bot"}) == a.AddBot("normal")  # v1.1 default
    assert action_to_dict(a.Leave()) == {"type": "leave"}


def test_parsing_gives_enum_members() -> None:
    swap = action_from_dict({"type": "swap", "slot": "middle"})
    assert isinstance(swap, Swap) and swap.slot is Slot.MIDDLE
    draw = action_from_dict({"type": "draw", "source": "discard"})
    assert isinstance(draw, Draw) and draw.source is Source.DISCARD


def test_invalid_and_illegal_are_distinct_errors() -> None:
    assert issubclass(InvalidAction, ValueError)
    assert not issubclass(InvalidAction, IllegalAction)
    assert not issubclass(IllegalAction, InvalidAction)
    with pytest.raises(InvalidAction) as info:
        action_from_dict({"type": "fly"})
    assert info.value.code == "bad_message" and info.value.rule is None
    with pytest.raises(InvalidAction):
        action_to_dict(Swap(7))


MALFORMED: list[tuple[str, Any]] = [
    ("a slot past the right", Swap(3)),
    ("a negative slot", Swap(-1)),  # was: the right card
    ("a bool slot", Swap(True)),
    ("a float slot", Swap(1.0)),
    ("a slot name", Swap("left")),
    ("a bogus source", Draw("x")),  # was: recorded as the source
    ("a NaN source", Draw(float("nan"))),
    ("a queen slot out of range", UseQueen(Slot.LEFT, "p3", 5)),
    ("a queen target that is no id", UseQueen(Slot.LEFT, 3, Slot.LEFT)),
    ("a limit of 7", SetOptions(limit=7)),  # was: accepted
    ("a float limit", SetOptions(limit=100.0)),
    ("draw seconds of 20", SetOptions(draw_seconds=20, set_draw_seconds=True)),
    ("draw seconds without the flag", SetOptions(draw_seconds=30)),
    ("a non-bool discard draw", SetOptions(discard_draw=1)),
    ("a kick of nobody", Kick("")),
    ("a bot of an unknown level", a.AddBot("expert")),
    ("a bot level that is no string", a.AddBot(1)),  # type: ignore[arg-type]
    ("a bot level of null", a.AddBot(None)),  # type: ignore[arg-type]
    ("a plain dict", {"type": "draw", "source": "stock"}),  # was: KeyError
    ("None", None),
    ("a class, not an instance", Discard),
    ("an object whose fields were never set", object.__new__(Swap)),
]


@pytest.mark.parametrize(("label", "action"), MALFORMED, ids=[m[0] for m in MALFORMED])
def test_apply_refuses_malformed_actions_as_invalid(label: str, action: Any) -> None:
    g = start(HANDS, stock=["5C", "KH"], dealer=2,
              options=Options(draw_seconds=30, discard_draw=True))
    g.draw()  # p1 holds 5C: swap, queen and draw are all one step away
    before = snapshot(g.state)
    with pytest.raises(InvalidAction) as info:
        apply(g.state, "p1", action, g.now)
    assert info.value.code == "bad_message", label
    assert snapshot(g.state) == before


def test_r6_1_a_bogus_source_cannot_let_a_stock_king_into_a_hand() -> None:
    g = start(HANDS, stock=["KH"], dealer=2)
    g.until_may_start()
    with pytest.raises(InvalidAction):
        apply(g.state, "p1", Draw("x"), g.now)
    g.act("p1", "draw", source="stock")
    assert g.refuse("p1", "swap", slot="left").rule == "R6.1"


def test_plain_values_that_name_a_member_are_accepted() -> None:
    """`Draw("stock")` and `Swap(1)` are what the enum members equal: accepted and
    recorded as the members."""
    g = start(HANDS, stock=["5C"], dealer=2)
    g.until_may_start()
    new, _ = apply(g.state, "p1", Draw("stock"), g.now)
    assert new.turn is not None and new.turn.drawn_from is Source.STOCK
    new, events = apply(new, "p1", Swap(1), g.now)
    assert events[0].data["slot"] == "middle"


def test_a_malformed_action_is_invalid_before_anything_else() -> None:
    """Malformed input is refused as such even from a stranger or in the wrong phase."""
    g = lobby(2)
    with pytest.raises(InvalidAction):
        apply(g.state, "p9", Swap(9), g.now)
    with pytest.raises(IllegalAction) as info:
        apply(g.state, "p9", Swap(Slot.LEFT), g.now)
    assert info.value.code == "unknown_player"
