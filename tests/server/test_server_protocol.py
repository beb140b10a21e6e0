"""The server's wire vocabulary and its one parser per direction: enums serialise as
their values, every client message becomes its engine action, failures are answered
from one table, summaries and documents are read explicitly."""

from __future__ import annotations

import json
import logging
import random
from enum import Enum
from typing import Any, get_args

import pytest

from crisp import engine
from crisp.bots import random_move
from crisp.bots.selfplay import play_game, random_options
from crisp.engine import Event, IllegalAction, Options, State
from crisp.server.rooms.document import DOC_VERSION, RoomDoc, UnknownDocVersion
from crisp.server.rooms.service import room_summary
from crisp.server.wire import client, frames
from crisp.server.wire.client import parse_client
from crisp.server.wire.failures import (
    FAILURES,
    HTTP_INTERNAL,
    ApiError,
    NameTaken,
    RateLimited,
    RoomBusy,
    RoomLocked,
    RoomNotFound,
    SeatGone,
    TooManyRooms,
    failure_of,
)
from crisp.server.wire.frames import SERVER_ADAPTER
from crisp.server.wire.projection import room_fields
from crisp.server.wire.schema import protocol_schema
from crisp.server.wire.vocabulary import (
    SOCKET_ERRORS,
    CloseCode,
    EndReason,
    Refusal,
    ServerErrorCode,
)
from crisp.store import OutcomeUnknown, StoreUnavailable

ENUMS: list[type[Enum]] = [CloseCode, ServerErrorCode, EndReason, Refusal]


@pytest.mark.parametrize("kind", ENUMS, ids=lambda e: e.__name__)
def test_each_enum_serialises_as_its_value(kind: type[Enum]) -> None:
    for member in kind:
        value = member.value
        assert json.dumps({"x": member}) == json.dumps({"x": value})
        assert str(member) == str(value) and f"{member}" == f"{value}"
        record = logging.LogRecord("crisp", logging.INFO, "", 0, "%s", (member,), None)
        assert record.getMessage() == str(value)  # log lines
        assert member == value and hash(member) == hash(value)  # label and dict keys


def test_close_codes_have_one_name_each() -> None:
    values = [int(c) for c in CloseCode]
    assert len(values) == len(set(values))
    assert CloseCode.TRY_LATER == 1013 and CloseCode(1013) is CloseCode.TRY_LATER


def test_end_reasons_that_keep_presence() -> None:
    keep = {r for r in EndReason if r.keeps_presence}
    assert keep == {"replaced", "kicked", "room_gone", "bad_hello", "shutdown"}


# ---- client messages -> engine actions: the protocol model is the one parser ----

VALID_MESSAGES: list[dict[str, Any]] = [
    {"type": "options", "limit": 50},
    {"type": "options", "draw_seconds": None, "discard_draw": True},
    {"type": "options", "limit": 150, "draw_seconds": 45, "discard_draw": False, "id": "o1"},
    {"type": "options"},
    {"type": "start"},
    {"type": "kick", "player": "p3"},
    {"type": "ready"},
    {"type": "draw", "source": "stock"},
    {"type": "draw", "source": "discard"},
    {"type": "swap", "slot": "left"},
    {"type": "swap", "slot": "right"},
    {"type": "discard"},
    {"type": "jack"},
    {"type": "queen", "slot": "middle", "target": "p2", "target_slot": "right"},
    {"type": "king"},
    {"type": "crisp", "id": "c"},
    {"type": "next_round"},
    {"type": "rematch"},
    {"type": "add_bot", "level": "easy"},  # protocol v1.1
    {"type": "add_bot", "level": "normal"},
    {"type": "leave"},
]


@pytest.mark.parametrize("data", VALID_MESSAGES, ids=lambda d: str(d["type"]))
def test_every_client_message_becomes_the_engines_action(data: dict[str, Any]) -> None:
    action = parse_client(data).to_action()  # type: ignore[union-attr]
    assert action == engine.action_from_dict(data)
    assert engine.action_type(action) == data["type"]


@pytest.mark.parametrize("data", VALID_MESSAGES, ids=lambda d: str(d["type"]))
def test_the_engines_text_form_gives_the_message_back(data: dict[str, Any]) -> None:
    action = parse_client(data).to_action()  # type: ignore[union-attr]
    assert engine.action_to_dict(action) == {k: v for k, v in data.items() if k != "id"}


def test_the_wire_literals_are_the_engines_vocabulary() -> None:
    assert get_args(client.Slot) == tuple(slot.label for slot in engine.Slot)
    assert set(get_args(client.Source)) == set(engine.Source)
    assert set(get_args(frames.StatusName)) == set(engine.Status)
    assert set(get_args(frames.SocketErrorCode)) == set(engine.ErrorCode) | SOCKET_ERRORS


def test_every_action_type_has_a_message() -> None:
    assert {d["type"] for d in VALID_MESSAGES} == set(engine.ACTION_TYPES)


def test_option_values_are_never_null_except_draw_seconds() -> None:
    for bad in ({"type": "options", "limit": None}, {"type": "options", "discard_draw": None}):
        with pytest.raises(ValueError):
            parse_client(bad)
    msg = parse_client({"type": "options", "limit": 100.0})  # JSON numbers by value
    assert msg.to_action() == engine.action_from_dict({"type": "options", "limit": 100})  # type: ignore[union-attr]


def test_a_draw_must_name_its_source() -> None:
    """protocol.md: `source` is required (the engine's text form defaults it)."""
    with pytest.raises(ValueError):
        parse_client({"type": "draw"})


# ---- server messages ----


def test_the_schema_is_closed_and_lists_every_event_kind() -> None:
    server = protocol_schema()["server"]
    defs = server["$defs"]
    assert defs["View"]["additionalProperties"] is False
    assert {"peek_ends_at", "code"} <= set(defs["View"]["properties"])
    assert "ready" in defs["PlayerView"]["properties"]
    kinds: set[str] = set()
    for model in defs.values():
        kind = model.get("properties", {}).get("kind")
        if kind is not None:
            kinds |= set(kind.get("enum") or [kind["const"]])
    assert kinds == {
        "joined", "left", "connected", "disconnected", "ready", "crisp", "timeout", "options",
        "round_started", "peek", "turn_started", "drew", "swapped", "discarded", "jack",
        "queen", "king", "stock_rebuilt", "round_over", "game_over",
        "away", "back", "host_changed", "bot_added", "took_over",  # protocol v1.1 (R17)
        "rematch",  # docs/protocol-additions.md
    }


def test_the_models_describe_every_view_and_event_of_random_games() -> None:
    """Fast and in-process, next to the leak test's real sockets: whole random games
    (every timeout, King, Queen, reshuffle...) projected for every seat."""
    seen: set[str] = set()
    rng_lag = random.Random(25)

    def check(state: State, events: list[Event], now: int) -> None:
        for pid in [*(p.id for p in state.players), None]:  # None: a watcher (R18.1)
            redacted = [e for e in (engine.redact(ev, pid) for ev in events) if e]
            view = engine.view_for(state, pid, now)
            room_fields(view, "K7QX", False, rng_lag.randrange(3))  # R18.1, R18.2
            view["lag_ms"] = rng_lag.choice((None, 0, 180))  # per connection (R18.4)
            SERVER_ADAPTER.validate_python(
                {"type": "update", "seq": 2, "now": now, "view": view, "events": redacted}
            )
            seen.update(e["kind"] for e in redacted)

    def apply(state: State, player: str, action: Any, now: int, rng: Any) -> Any:
        new, events = engine.apply(state, player, action, now, rng)
        check(new, events, now)
        return new, events

    def advance(state: State, now: int) -> tuple[State, list[Event]]:
        new, events = engine.advance(state, now)
        check(new, events, now)
        return new, events

    def rarely_calls(view: dict[str, Any], memory: Any, now: int, rng: Any) -> Any:
        return random_move(view, rng, crisp_chance=0.01)

    rng = random.Random(8)
    for players in range(2, 9):
        play_game(["random"] * players, rng, options=random_options(rng), stall_chance=0.03,
                  apply_fn=apply, advance_fn=advance)
    # rare crisp calls make long rounds that use up the stock (R4.2 reshuffle)
    play_game(["random"] * 8, random.Random(8), options=Options(50, None, False),
              policy=rarely_calls, apply_fn=apply, advance_fn=advance)
    assert {"stock_rebuilt", "timeout", "round_over", "game_over", "peek", "queen"} <= seen


def test_the_models_refuse_a_field_they_do_not_know() -> None:
    error = {"type": "error", "code": "illegal", "message": "no"}
    SERVER_ADAPTER.validate_python(error)
    with pytest.raises(ValueError):
        SERVER_ADAPTER.validate_python({**error, "extra": 1})


# ---- one table of failures ----


def test_failures_of_the_table() -> None:
    gone = failure_of(RoomNotFound("K7QX"))
    assert gone is not None and (gone.error_code, gone.http_status) == ("not_found", 404)
    assert gone.close is not None and gone.close.close_code == CloseCode.ROOM_GONE
    kicked = failure_of(SeatGone("p2"))
    assert kicked is not None and kicked.close is not None
    assert (kicked.close.close_code, kicked.close.end_reason) == (4403, "kicked")
    for exc, code in (
        (RoomBusy("K7QX"), "busy"),
        (StoreUnavailable("down"), "store_unavailable"),
        (OutcomeUnknown("sent, no answer"), "outcome_unknown"),
    ):
        found = failure_of(exc)
        assert found is not None and (found.error_code, found.http_status) == (code, 503)
        assert found.close is None  # the socket stays open
    assert failure_of(ValueError("?")) is None  # unexpected: answered `internal`
    assert HTTP_INTERNAL.http_status == 500
    for exc, code, status in (
        (RoomLocked("K7QX"), "room_locked", 409),
        (NameTaken("Ana"), "name_taken", 409),
        (RateLimited("lookups", 2.5), "rate_limited", 429),
        (TooManyRooms(60.0), "too_many_rooms", 503),  # the server's cap (issue 23)
    ):
        found = failure_of(exc)
        assert found is not None and (found.error_code, found.http_status) == (code, status)
    assert set(FAILURES) == {
        RoomNotFound, SeatGone, RoomBusy, StoreUnavailable, OutcomeUnknown, RoomLocked, NameTaken,
        RateLimited, TooManyRooms,
    }


def test_engine_refusals_keep_their_code_and_rule() -> None:
    full = failure_of(IllegalAction("room_full", "the room has 8 players", "R1.1"))
    assert full is not None and full.http_status == 409 and full.rule == "R1.1"
    assert full.message == "the room has 8 players (R1.1)"
    turn = failure_of(IllegalAction("not_your_turn", "wait"))
    assert turn is not None and (turn.error_code, turn.http_status) == ("not_your_turn", 422)
    api = failure_of(ApiError(403, "origin_refused", "no"))
    assert api is not None and (api.http_status, api.error_code) == (403, "origin_refused")


# ---- room documents and summaries ----


def _room() -> RoomDoc:
    state, _, _ = engine.add_player(engine.new_table("Ana", options=None), "Ben", 0)
    return RoomDoc(room_code="K7QX", state=state, token_hashes={"p1": "a", "p2": "b"})


def test_an_unknown_document_version_is_refused_clearly() -> None:
    doc = _room()
    assert RoomDoc.loads(doc.dumps()) == doc
    stored = json.loads(doc.dumps())
    assert stored["v"] == DOC_VERSION
    for version in (DOC_VERSION + 1, None, "1"):
        with pytest.raises(UnknownDocVersion, match="room document version"):
            RoomDoc.loads(json.dumps({**stored, "v": version}))


def test_the_summary_is_its_own_projection() -> None:
    doc = _room()
    summary = room_summary("K7QX", doc.state, now=0)
    assert summary == {
        "code": "K7QX",
        "game": "crisp",  # v2
        "status": "lobby",
        "options": {"limit": 100, "draw_seconds": None, "discard_draw": False,
                    "watchers": True},  # R18.1
        "players": [
            {"id": "p1", "name": "Ana", "connected": False, "is_host": True},
            {"id": "p2", "name": "Ben", "connected": False, "is_host": False},
        ],
        "locked": False,
        "watchers": 0,  # R18.1: none watching
    }


def test_the_summary_tells_the_status_at_the_moment_asked() -> None:
    """R16.2: the peek phase ends by the clock, even before the scheduler saves it."""
    doc = _room()
    state, _ = engine.apply(doc.state, "p1", engine.action_from_dict({"type": "start"}), 0)
    assert state.status == "peek" and state.peek_ends_at is not None
    assert room_summary("K7QX", state, state.peek_ends_at - 1)["status"] == "peek"
    assert room_summary("K7QX", state, state.peek_ends_at)["status"] == "playing"
