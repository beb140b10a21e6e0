"""Unit tests of the server's small parts: settings, origins, codes, names, rate
limits, message models, the rooms service (CAS) and the scheduler, on the real
stores."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Iterator
from typing import Any, cast

import pytest
from pydantic import ValidationError

from crisp.engine import IllegalAction
from crisp.engine import actions as engine_actions
from crisp.server.edge.names import clean_name
from crisp.server.edge.origin import origin_allowed
from crisp.server.edge.ratelimit import RateLimiter, TokenBucket
from crisp.server.ops.logs import JsonFormatter, log_config, uvicorn_level
from crisp.server.ops.settings import Settings, describe_error
from crisp.server.rooms import service as rooms_module
from crisp.server.rooms.changes import RoomEvents
from crisp.server.rooms.codes import (
    ALPHABET,
    CODE_LEN,
    display_code,
    hash_token,
    new_code,
    new_token,
    normalize_code,
    player_of_token,
)
from crisp.server.rooms.document import RoomDoc, parse_message
from crisp.server.rooms.loops import Wakeup
from crisp.server.rooms.scheduler import Scheduler
from crisp.server.rooms.serverclock import ManualClock
from crisp.server.rooms.service import Rooms
from crisp.server.sockets.connection import Connection
from crisp.server.sockets.hub import Hub, _LocalRoom
from crisp.server.wire.client import CLIENT_ADAPTER, Draw, OptionsMsg, parse_client
from crisp.server.wire.schema import protocol_schema
from crisp.store import Store, create_store

# ---------------------------------------------------------------- settings


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    import os

    for key in list(os.environ):
        if key.startswith("CRISP_"):
            monkeypatch.delenv(key)
    yield monkeypatch


def test_settings_defaults(clean_env: pytest.MonkeyPatch) -> None:
    s = Settings()
    assert (s.host, s.port, s.workers, s.redis_url) == ("127.0.0.1", 8000, 1, None)
    assert s.allowed_origins == [] and s.room_idle_ttl_s == 6 * 3600
    assert (s.max_message_bytes, s.rate_per_s, s.rate_burst, s.rate_strikes) == (4096, 10, 20, 4)
    assert s.hello_timeout_s == 5 and s.log_format == "text" and s.log_level == "info"
    assert s.test_hooks is False and s.effective_time_scale == 1.0


def test_settings_from_the_environment(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("CRISP_ALLOWED_ORIGINS", "https://A.example, https://b.example/")
    clean_env.setenv("CRISP_PORT", "9000")
    clean_env.setenv("CRISP_LOG_LEVEL", "DEBUG")
    clean_env.setenv("CRISP_REDIS_URL", "  ")
    clean_env.setenv("CRISP_TIME_SCALE", "0.1")
    s = Settings()
    assert s.allowed_origins == ["https://a.example", "https://b.example"]
    assert s.port == 9000 and s.log_level == "debug" and s.redis_url is None
    assert s.effective_time_scale == 1.0  # honoured only with test hooks
    clean_env.setenv("CRISP_TEST_HOOKS", "1")
    clean_env.setenv("CRISP_ALLOWED_ORIGINS", '["*"]')
    s = Settings()
    assert s.effective_time_scale == 0.1 and s.allowed_origins == ["*"]


@pytest.mark.parametrize(
    ("env", "name"),
    [
        ({"CRISP_PORT": "0"}, "CRISP_PORT"),
        ({"CRISP_PORT": "http"}, "CRISP_PORT"),
        ({"CRISP_WORKERS": "3"}, "CRISP_WORKERS"),
        ({"CRISP_REDIS_URL": "mysql://x"}, "CRISP_REDIS_URL"),
        ({"CRISP_ALLOWED_ORIGINS": "evil.example"}, "CRISP_ALLOWED_ORIGINS"),
        ({"CRISP_MAX_MESSAGE_BYTES": "100"}, "CRISP_MAX_MESSAGE_BYTES"),
        ({"CRISP_RATE_PER_S": "-1"}, "CRISP_RATE_PER_S"),
        ({"CRISP_HELLO_TIMEOUT_S": "0"}, "CRISP_HELLO_TIMEOUT_S"),
        ({"CRISP_LOG_FORMAT": "xml"}, "CRISP_LOG_FORMAT"),
        ({"CRISP_LOG_LEVEL": "loud"}, "CRISP_LOG_LEVEL"),
        ({"CRISP_TEST_HOOKS": "maybe"}, "CRISP_TEST_HOOKS"),
        ({"CRISP_TIME_SCALE": "0"}, "CRISP_TIME_SCALE"),
    ],
)
def test_bad_settings_are_named(
    clean_env: pytest.MonkeyPatch, env: dict[str, str], name: str
) -> None:
    for k, v in env.items():
        clean_env.setenv(k, v)
    with pytest.raises(ValidationError) as info:
        Settings()
    message = describe_error(info.value)
    assert message.startswith("invalid Crisp server settings:")
    assert name in message or (name == "CRISP_WORKERS" and "CRISP_REDIS_URL" in message)


def test_workers_need_redis(clean_env: pytest.MonkeyPatch) -> None:
    assert Settings(workers=4, redis_url="redis://localhost:6379/0").workers == 4


def test_log_config_never_lets_uvicorn_log_frames() -> None:
    s = Settings(log_level="debug", log_format="json")
    cfg = log_config(s)
    assert uvicorn_level(s) == "info"
    assert cfg["loggers"]["uvicorn.error"]["level"] == "INFO"
    assert cfg["loggers"]["crisp"]["level"] == "DEBUG"
    record = logging.LogRecord("crisp.x", logging.INFO, __file__, 1, "room %s", ("K7QX",), None)
    out = json.loads(JsonFormatter().format(record))
    assert out["msg"] == "room K7QX" and out["level"] == "info" and out["logger"] == "crisp.x"


# ---------------------------------------------------------------- origins, codes, names


@pytest.mark.parametrize(
    ("origin", "host", "allowed", "ok"),
    [
        (None, "x:8000", [], True),  # non-browser client
        ("http://x:8000", "x:8000", [], True),
        ("http://X:8000", "x:8000", [], True),
        ("https://crisp.example", "crisp.example", [], True),  # default port 443
        ("http://crisp.example", "crisp.example:80", [], True),
        ("https://crisp.example", "crisp.example:8443", [], False),
        ("http://x:8001", "x:8000", [], False),
        ("http://evil.example", "x:8000", [], False),
        ("null", "x:8000", [], False),
        ("file://", "x:8000", [], False),
        ("http://x:8000", None, [], False),
        ("https://app.example", "api.example", ["https://app.example"], True),
        ("https://app.example/", "api.example", ["https://app.example"], True),
        ("https://other.example", "api.example", ["https://app.example"], False),
        ("https://anything.example", "api.example", ["*"], True),
    ],
)
def test_origin_allowed(origin: str | None, host: str | None, allowed: list[str], ok: bool) -> None:
    assert origin_allowed(origin, host, allowed) is ok


def test_room_codes() -> None:
    codes = {new_code() for _ in range(200)}
    assert len(codes) == 200
    assert all(len(c) == CODE_LEN and set(c) <= set(ALPHABET) for c in codes)
    assert not set("0O1IL") & set(ALPHABET)
    assert normalize_code(" k7qx ") == "K7QX"  # rooms of older servers: 4-6 characters
    full_width = "".join(chr(ord(c) + 0xFEE0) for c in "k7qxm3rt")
    for typed in ("k7qx-m3rt", " K7QX M3RT ", "K7QX\u2013M3RT", full_width, "k7.qx_m3.rt"):
        assert normalize_code(typed) == "K7QXM3RT", typed
    assert normalize_code("K\u0667QXM3RT") == "K7QXM3RT"  # an Arabic-Indic seven
    assert display_code("K7QXM3RT") == "K7QX-M3RT" and display_code("K7QX") == "K7QX"
    for bad in ("K7Q", "K7QXK7Q", "K7QXM3RTX", "K0QX", "KOQX", "K1QX", "KIQX", "KLQX", "K-QX",
                "", "K7QX/M3RT", "-" * 100, "K7QXM3RT" * 10):
        assert normalize_code(bad) is None, bad


def test_tokens_hashes_and_seats() -> None:
    tokens = {new_token() for _ in range(100)}
    assert len(tokens) == 100 and all(len(t) == 32 for t in tokens)
    a, b = new_token(), new_token()
    seats = {"p1": hash_token(a), "p2": hash_token(b)}
    assert player_of_token(seats, a) == "p1" and player_of_token(seats, b) == "p2"
    assert player_of_token(seats, "nope") is None and player_of_token(seats, "") is None
    assert a not in json.dumps(seats)


def test_names() -> None:
    assert clean_name("  Ana ") == "Ana"
    assert clean_name("x" * 20) == "x" * 20
    assert clean_name("نور") == "نور" and clean_name("Wayan 🂡") == "Wayan 🂡"
    for bad in ("", " ", "x" * 21, "a\tb", "a\x7fb", "a\u2029b", None, 3):
        assert clean_name(bad) is None


# ---------------------------------------------------------------- rate limits


def test_token_bucket() -> None:
    bucket = TokenBucket(rate=10, burst=3)
    t = bucket.last
    assert [bucket.take(t) for _ in range(4)] == [True, True, True, False]
    assert bucket.take(t + 0.11) is True and bucket.take(t + 0.11) is False
    assert all(bucket.take(t + 10 + i / 100) for i in range(3))  # refilled, capped at burst


def test_rate_limiter_strikes() -> None:
    limiter = RateLimiter(rate=1, burst=2, strikes=3)
    t = limiter.bucket.last
    assert [limiter.check(t) for _ in range(5)] == ["ok", "ok", "limited", "limited", "close"]
    calm = RateLimiter(rate=1, burst=1, strikes=2)
    t = calm.bucket.last
    assert calm.check(t) == "ok" and calm.check(t) == "limited"
    assert calm.check(t + 20) == "ok"  # the old refusal left the 10 s window
    assert calm.check(t + 20) == "limited"


# ---------------------------------------------------------------- messages


def test_client_messages() -> None:
    msg = parse_client({"type": "options", "draw_seconds": None, "id": "x"})
    assert isinstance(msg, OptionsMsg)
    assert msg.to_action() == engine_actions.SetOptions(draw_seconds=None, set_draw_seconds=True)
    draw = parse_client({"type": "draw", "source": "discard"})
    assert isinstance(draw, Draw) and draw.to_action() == engine_actions.Draw("discard")
    for bad in (
        {"type": "draw"},
        {"type": "draw", "source": "stock", "x": 1},
        {"type": "options", "limit": 100.5},
        {"type": "options", "limit": True},
        {"type": "options", "discard_draw": "yes"},
        {"type": "queen", "slot": "left", "target": "", "target_slot": "right"},
        {"type": "start", "id": "x" * 200},
        {"type": "unknown"},
        {},
        [],
    ):
        with pytest.raises(ValidationError):
            parse_client(bad)
    schema = protocol_schema()
    assert schema["client"] == CLIENT_ADAPTER.json_schema()


# ---------------------------------------------------------------- rooms service, scheduler


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.redis)])
async def store(request: pytest.FixtureRequest) -> AsyncIterator[Store]:
    url = request.getfixturevalue("redis_url") if request.param == "redis" else None
    s = create_store(url, idle_ttl_s=600)
    await s.start()
    try:
        yield s
    finally:
        await s.close()


async def test_concurrent_joins_and_actions_survive_cas_conflicts(store: Store) -> None:
    rooms = Rooms(store)
    seat = await rooms.create("Ana")
    joined = await asyncio.gather(*(rooms.join(seat.room_code, f"P{i}") for i in range(7)))
    assert sorted(s.player_id for s in joined) == [f"p{i}" for i in range(2, 9)]
    with pytest.raises(IllegalAction) as info:
        await rooms.join(seat.room_code, "Nine")
    assert info.value.code == "room_full"
    doc = await rooms.load(seat.room_code)
    assert doc is not None and len(doc.token_hashes) == 8
    for s in joined:
        assert player_of_token(doc.token_hashes, s.token) == s.player_id
    before = doc.state.version
    limits = [50, 100, 150] * 4
    await asyncio.gather(*(rooms.act(seat.room_code, "p1", engine_actions.SetOptions(limit=x))
                           for x in limits))
    doc = await rooms.load(seat.room_code)
    assert doc is not None and doc.state.version == before + len(limits)


async def test_room_codes_retry_after_collisions(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    codes = iter(["AAAAAAAA", "AAAAAAAA", "AAAAAAAA", "BBBBBBBB"])
    monkeypatch.setattr(rooms_module, "new_code", lambda: next(codes))
    rooms = Rooms(store)
    assert (await rooms.create("A")).room_code == "AAAAAAAA"
    assert (await rooms.create("B")).room_code == "BBBBBBBB"


async def test_published_messages_carry_state_events_and_connections(store: Store) -> None:
    rooms = Rooms(store)
    seat = await rooms.create("Ana")
    got: asyncio.Queue[str] = asyncio.Queue()

    async def handler(message: str) -> None:
        got.put_nowait(message)

    unsubscribe = await store.subscribe(seat.room_code, handler)
    doc, n = await rooms.connect(seat.room_code, "p1", "conn-a")
    assert n == 1 and doc.conns["p1"].id == "conn-a"
    change = parse_message(await asyncio.wait_for(got.get(), 5))
    assert change is not None
    assert [e.kind for e in change.events] == ["connected"]
    assert change.conns["p1"].id == "conn-a" and change.player_ids == {"p1"}
    assert change.version == doc.state.version
    # an older connection closing does not mark the seat disconnected
    _, n2 = await rooms.connect(seat.room_code, "p1", "conn-b")
    assert n2 == 2
    await rooms.disconnect(seat.room_code, "p1", "conn-a")
    doc2 = await rooms.load(seat.room_code)
    assert doc2 is not None and doc2.state.players[0].connected is True
    await rooms.disconnect(seat.room_code, "p1", "conn-b")
    doc3 = await rooms.load(seat.room_code)
    assert doc3 is not None and doc3.state.players[0].connected is False
    assert doc3.conns == {}
    await unsubscribe()
    assert RoomDoc.loads(doc3.dumps()) == doc3


async def test_a_seat_back_after_a_disconnect_gets_a_number_never_given_before(
    store: Store,
) -> None:
    """The seat's entry leaves `conns` when its newest socket closes; the socket it
    opens next must still be numbered above the closed one, or a process that has
    not yet seen the disconnect (its `latest_conns` still names the closed socket)
    would close the new socket as replaced (4409). CI caught this once in
    test_the_reconnect_flood."""
    rooms = Rooms(store)
    seat = await rooms.create("Ana")
    before, n1 = await rooms.connect(seat.room_code, "p1", "conn-a")
    await rooms.disconnect(seat.room_code, "p1", "conn-a")
    conn = Connection(cast(Any, None), seat.room_code, "p1")
    doc, n2 = await rooms.connect(seat.room_code, "p1", conn.id)
    assert n2 > n1 and doc.conn_seq == n2
    hub = Hub(store)
    stale = _LocalRoom(latest_conns=dict(before.conns))  # has not seen the disconnect
    hub.rooms[seat.room_code] = stale
    conn.numbered(n2)
    hub.check_replaced(conn)
    assert not conn.closing
    # a document written before `seq` existed numbers from its connections
    legacy = json.loads(doc.dumps())
    del legacy["seq"]
    assert RoomDoc.loads(json.dumps(legacy)).conn_seq == n2


async def test_scheduler_advances_due_rooms(store: Store) -> None:
    clock = ManualClock()
    wakeup = Wakeup()
    rooms = Rooms(store, clock=clock, events=RoomEvents(deadline=wakeup.at))
    scheduler = Scheduler(store, clock, rooms, wakeup, poll_ms=10)
    seat = await rooms.create("Ana")
    await rooms.join(seat.room_code, "Ben")
    await rooms.act(seat.room_code, "p1", engine_actions.Start())
    doc = await rooms.load(seat.room_code)
    assert doc is not None and doc.state.status == "peek"
    assert await store.next_due_ms() == clock.now_ms() + 10_000  # R16.2

    async def settle() -> None:
        await clock.settled(("scheduler",))

    scheduler.start()
    try:
        await clock.advance_to(clock.now_ms() + 9_999, settle)
        doc = await rooms.load(seat.room_code)
        assert doc is not None and doc.state.status == "peek"
        await clock.advance_to(clock.now_ms() + 1, settle)
        doc = await rooms.load(seat.room_code)
        assert doc is not None and doc.state.status == "playing"
    finally:
        await scheduler.stop()


# The document a process saved last is trusted only through the compare-and-set
# (doccache.py, issue 13): two `Rooms` on one store play two server processes, and
# each change one makes from a copy the other made out of date must land on the
# stored document, refusals and no-ops included.


async def test_a_change_from_an_out_of_date_copy_lands_on_the_stored_document(
    store: Store,
) -> None:
    a, b = Rooms(store), Rooms(store)
    seat = await a.create("Ana")
    code = seat.room_code
    await a.act(code, "p1", engine_actions.SetOptions(limit=50))  # a keeps version n
    await b.act(code, "p1", engine_actions.SetOptions(limit=100))
    await b.join(code, "Bo")
    await a.act(code, "p1", engine_actions.SetOptions(limit=150))  # from a's old copy
    doc = await b.load(code)
    assert doc is not None
    assert doc.state.options.limit == 150
    assert [p.name for p in doc.state.players] == ["Ana", "Bo"]  # b's join is kept


async def test_a_refusal_from_an_out_of_date_copy_is_decided_again(store: Store) -> None:
    a, b = Rooms(store), Rooms(store)
    seat = await a.create("Ana")
    code = seat.room_code
    await a.set_locked(code, "p1", True)  # a's copy: locked
    await b.set_locked(code, "p1", False)
    joined = await a.join(code, "Bo")  # refused on a's copy, accepted on the stored one
    assert joined.player_id == "p2"


async def test_no_change_on_an_out_of_date_copy_is_decided_again(store: Store) -> None:
    a, b = Rooms(store), Rooms(store)
    seat = await a.create("Ana")
    code = seat.room_code
    await a.connect(code, "p1", "conn-a")  # a's copy: conn-a is the seat's newest
    await b.connect(code, "p1", "conn-b")
    await a.disconnect(code, "p1", "conn-b")  # a no-op on a's copy
    doc = await b.load(code)
    assert doc is not None and doc.conns == {} and not doc.state.players[0].connected
