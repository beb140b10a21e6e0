"""The engine's vocabulary as enums (Status, Source, Slot, ErrorCode): each member
reaches the wire as exactly the protocol string it replaces - through
`json.dumps`, the view, `State.to_json` and the events - and comes back as the
same member."""

from __future__ import annotations

import json
from typing import Any

import pytest

from crisp.engine import (
    GAME_OVER,
    LOBBY,
    PEEK,
    PLAYING,
    ROUND_OVER,
    SLOTS,
    ErrorCode,
    IllegalAction,
    Options,
    Slot,
    Source,
    State,
    Status,
    action_from_dict,
    action_to_dict,
    redact,
)
from crisp.engine.actions import Swap
from tests.engine.helpers import Game, call_and_finish, lobby, start, with_totals

HANDS = {"p1": ["AS", "2S", "3S"], "p2": ["4S", "5S", "6S"]}
# protocol.md, "Error codes": the codes a refused message may get
PROTOCOL_CODES = {"bad_message", "too_large", "rate_limited", "not_host", "not_your_turn",
                  "too_early", "wrong_phase", "illegal", "unknown_player", "room_full",
                  "game_started"}


def wire(value: Any) -> Any:
    """What a client receives: the value written as JSON text and read back."""
    return json.loads(json.dumps(value))


def game_in(status: Status) -> Game:
    if status is Status.LOBBY:
        return lobby(2)
    g = start(HANDS, stock=["5C", "6C"], dealer=1, ready=status is not Status.PEEK)
    if status in (Status.ROUND_OVER, Status.GAME_OVER):
        if status is Status.GAME_OVER:
            with_totals(g, {"p1": 99})
        call_and_finish(g)
    return g


@pytest.mark.parametrize("status", list(Status))
def test_status_reaches_the_wire_as_its_string(status: Status) -> None:
    g = game_in(status)
    assert g.state.status is status
    assert json.dumps(status) == json.dumps(status.value)
    assert wire(g.view("p2"))["status"] == status.value
    raw = wire(g.state.to_json())
    assert raw["status"] == status.value
    assert State.from_json(raw).status is status


def test_the_old_status_names_are_the_members() -> None:
    assert tuple(Status) == (LOBBY, PEEK, PLAYING, ROUND_OVER, GAME_OVER)
    assert [s.value for s in Status] == ["lobby", "peek", "playing", "round_over", "game_over"]
    assert all(s == s.value and str(s) == s.value and f"{s}" == s.value for s in Status)


@pytest.mark.parametrize("source", list(Source))
def test_source_reaches_the_wire_as_its_string(source: Source) -> None:
    g = start(HANDS, stock=["5C", "6C"], dealer=1, options=Options(discard_draw=True))
    g.play_turn()  # p2 discards 5C, so the discard pile has a card
    g.draw(source.value)
    turn = g.state.turn
    assert turn is not None and turn.drawn_from is source
    assert json.dumps(source) == json.dumps(source.value)
    assert wire(g.view("p2"))["turn"]["drawn_from"] == source.value
    assert State.from_json(wire(g.state.to_json())).turn.drawn_from is source
    drew = [e for e in g.last if e.kind == "drew"]
    assert wire(redact(drew[0], "p2"))["source"] == source.value
    assert wire(drew[0].to_json())["data"]["source"] == source.value


@pytest.mark.parametrize("slot", list(Slot))
def test_slot_reaches_the_wire_as_its_name(slot: Slot) -> None:
    assert slot.label == SLOTS[slot] == slot.name.lower()
    assert Slot.parse(slot.label) is slot
    msg = wire(action_to_dict(Swap(slot)))
    assert msg == {"type": "swap", "slot": slot.label}
    parsed = action_from_dict(msg)
    assert isinstance(parsed, Swap) and parsed.slot is slot
    g = start(HANDS, stock=["5C"], dealer=1)
    g.draw()
    g.act("p1", "swap", slot=slot.label)
    assert wire(g.seen("p2"))[0]["slot"] == slot.label


def test_slot_parse_refuses_everything_else() -> None:
    for text in ("LEFT", "Middle", "", 0, 1, None, ["left"]):
        assert Slot.parse(text) is None


def test_error_codes_reach_the_wire_as_their_strings() -> None:
    assert {c.value for c in ErrorCode} == PROTOCOL_CODES - {"too_large", "rate_limited"}
    g = lobby(2)
    err = g.refuse("p2", "start")
    assert err.code is ErrorCode.NOT_HOST
    for code in ErrorCode:
        assert json.dumps(code) == json.dumps(code.value) and str(code) == code.value
        assert wire({"code": IllegalAction(code, "m").code}) == {"code": code.value}
