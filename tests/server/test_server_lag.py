"""R18.4: the server measures each connection's delay with its own pings and credits a
crisp call that arrives after the window's end by at most min(that delay, 300 ms).

The slow phone is a real websocket through a delaying TCP relay (tests/support/
relay.py: 150 ms each way, so every round trip is at least 300 ms). The pings are
real time; the game runs on the server's manual clock, so a test reads the measured
delay from the view's `lag_ms` and then puts the call where it wants it relative
to `closes_at` by moving game time (docs/server.md, "Time in tests").
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from crisp.server.sockets import lag
from tests.support.decks import deck_for
from tests.support.player import Player, close_all
from tests.support.relay import DelayRelay
from tests.support.rooms import create_room, join_room, start_game
from tests.support.servers import ThreadServer

DELAY_S = 0.15  # each way
WINDOW_MS = 3_000  # R10.4
# p1 (the host, a fast phone) deals, so p2 (the slow phone) plays first and discards 5C
DECK = deck_for({"p1": ["AS", "2S", "3S"], "p2": ["4S", "6S", "7S"]}, stock=["5C", "8C"],
                dealer=0)  # fmt: skip


@pytest.fixture
async def relays() -> AsyncIterator[Callable[..., Any]]:
    made: list[DelayRelay] = []

    async def make(server: ThreadServer, delay_s: float = DELAY_S) -> DelayRelay:
        relay = await DelayRelay(server, delay_s).start()
        made.append(relay)
        return relay

    yield make
    for relay in made:
        await relay.close()


async def _table(server: ThreadServer, slow: bool, relays: Callable[..., Any],
                 delay_s: float = DELAY_S) -> tuple[Player, Player]:  # fmt: skip
    """A started game: p1 the host on a direct connection, p2 through the relay (or
    direct, `slow=False`), once the server has measured p2's delay when slow."""
    code, p1_id, p1_token = await create_room(server, "Ana", deck=DECK, dealer=0)
    p2_id, p2_token = await join_room(server, code, "Ben")
    via = (await relays(server, delay_s)).server if slow else server
    host = await Player.join(server, code, p1_id, p1_token)
    slowpoke = await Player.join(via, code, p2_id, p2_token)
    if slow:  # the first pong comes ~1 s after hello; a delay that high gets an update
        await slowpoke.wait_view(lambda v: v["lag_ms"] is not None, what="a measured delay")
    await start_game([host, slowpoke])
    return host, slowpoke


async def _p2_turn_ended(p2: Player) -> int:
    """p2 plays a turn (draw 5C, discard it); its window's `closes_at`."""
    await p2.wait_legal("draw")
    await p2.act("draw", source="stock")
    answer = await p2.act("discard")
    assert answer["type"] == "update", answer
    window = p2.view["crisp"]["window"]
    assert window is not None and window["player"] == "p2"
    return int(window["closes_at"])


async def test_r18_4_the_view_shows_the_measured_delay(
    spawn_server: Callable[..., ThreadServer], relays: Callable[..., Any]
) -> None:
    server = spawn_server()
    host, p2 = await _table(server, True, relays)
    try:
        shown = p2.view["lag_ms"]
        # every round trip through the relay takes 300 ms or more (real time); the
        # upper bound only guards against nonsense on a busy machine
        assert 150 <= shown < 1_000, shown
        assert host.view["lag_ms"] is None or host.view["lag_ms"] < 100  # loopback
    finally:
        await close_all([host, p2])


async def test_r18_4_a_late_call_within_the_delay_counts(
    spawn_server: Callable[..., ThreadServer], relays: Callable[..., Any]
) -> None:
    server = spawn_server()
    host, p2 = await _table(server, True, relays)
    try:
        closes_at = await _p2_turn_ended(p2)
        mark = p2.mark()
        await server.advance(to=closes_at + 100)  # the window closed 100 ms ago (game time)
        view = await p2.wait_view(lambda v: v["crisp"]["windows"] == [], after=mark)
        assert "crisp" not in view["legal"]  # the phone was told on time
        answer = await p2.act("crisp")  # its delay is 150 ms or more: credited
        assert answer["type"] == "update", answer
        assert {"kind": "crisp", "player": "p2"} in answer["events"]
        view = await host.wait_view(lambda v: v["crisp"]["caller"] == "p2")
        assert view["crisp"]["final_turns_left"] == ["p1"]
    finally:
        await close_all([host, p2])


async def test_r18_4_a_call_later_than_the_delay_is_refused(
    spawn_server: Callable[..., ThreadServer], relays: Callable[..., Any]
) -> None:
    server = spawn_server()
    host, p2 = await _table(server, True, relays)
    try:
        closes_at = await _p2_turn_ended(p2)
        measured = int(p2.view["lag_ms"])
        # well past the measured delay (a margin for a ping measured meanwhile), or
        # past the 300 ms cap when the machine made the delay look longer
        await server.advance(to=closes_at + min(measured + 100, 301))
        answer = await p2.act("crisp")
        assert answer["type"] == "error", answer
        assert (answer["code"], answer["rule"]) == ("illegal", "R10.4")
        assert host.view["crisp"]["caller"] is None
    finally:
        await close_all([host, p2])


async def _measured(server: ThreadServer, code: str, pid: str) -> int:
    """Wait until the server has measured the delay of `pid`'s connection (a delay
    this small gets no update of its own; the next update carries it)."""

    async def read() -> list[int | None]:
        room = server.ctx.hub.rooms.get(code)
        return [c.lag.lag_ms for c in (room.conns if room else ()) if c.player_id == pid]

    for _ in range(300):
        lags = await server.call(read())
        if lags and lags[-1] is not None:
            return lags[-1]
        await asyncio.sleep(0.05)  # poll interval: the first pong comes ~1 s after hello
    raise AssertionError(f"{pid}: no delay measured in 15 s")


async def _pin_delay(server: ThreadServer, code: str, pid: str, rtt_ms: float) -> None:
    """Fix the delay of `pid`'s connection: its pings stop and every kept round trip
    is `rtt_ms`. A pong already on its way adds one sample more at most, which moves
    no median of `lag.SAMPLES` (5) kept round trips."""

    async def pin() -> None:
        room = server.ctx.hub.rooms.get(code)
        conns = [c for c in (room.conns if room else ()) if c.player_id == pid]
        assert conns, f"{pid} has no connection"
        meter = conns[-1].lag
        meter.stop()
        for _ in range(lag.SAMPLES):
            meter.add(rtt_ms)

    await server.call(pin())


async def test_r18_4_a_late_call_without_a_delay_is_refused(
    spawn_server: Callable[..., ThreadServer], relays: Callable[..., Any]
) -> None:
    server = spawn_server()
    host, p2 = await _table(server, False, relays)  # both on loopback
    try:
        await _measured(server, host.code, "p2")
        # a loopback ping measures the machine's load as much as the network (a
        # busy machine made one 100 ms and more, and that call was credited): the
        # delay this test is about is set, 1 ms, and no ping is sent from now on
        await _pin_delay(server, host.code, "p2", rtt_ms=2.0)
        closes_at = await _p2_turn_ended(p2)
        assert p2.view["lag_ms"] == 1  # the view shows the delay the call is credited
        await server.advance(to=closes_at + 100)
        answer = await p2.act("crisp")
        assert answer["type"] == "error", answer
        assert (answer["code"], answer["rule"]) == ("illegal", "R10.4")
    finally:
        await close_all([host, p2])


async def test_r18_4_the_allowance_is_capped_at_300_ms(
    spawn_server: Callable[..., ThreadServer], relays: Callable[..., Any]
) -> None:
    """A 400 ms delay each way: the view shows it, the call is credited 300 ms only."""
    server = spawn_server()
    host, p2 = await _table(server, True, relays, delay_s=0.4)
    try:
        assert p2.view["lag_ms"] >= 400
        closes_at = await _p2_turn_ended(p2)
        await server.advance(to=closes_at + 300)
        answer = await p2.act("crisp")
        assert answer["type"] == "error" and answer["rule"] == "R10.4", answer
    finally:
        await close_all([host, p2])


def test_the_meter_keeps_five_round_trips_and_halves_their_median() -> None:
    meter = lag.LagMeter()
    assert meter.lag_ms is None and not meter.news
    for rtt in (300.0, 900.0, 310.0):
        meter.add(rtt)
    assert meter.lag_ms == 155  # median 310
    assert meter.news  # nothing shown yet, and 155 ms is worth telling
    assert meter.shown() == 155 and not meter.news
    for rtt in (20.0, 20.0, 20.0, 20.0):  # the oldest ones drop out: 5 are kept
        meter.add(rtt)
    assert meter.lag_ms == 10 and meter.news
    assert lag.SAMPLES == 5 and lag.FIRST_PING_S <= 1.0 and lag.PING_EVERY_S == 5.0


def test_r18_4_the_delay_is_half_the_median_of_the_last_round_trips() -> None:
    """The meter's delay (made once per pong, read on every update) is half the
    median of its last `SAMPLES` round trips, as `statistics.median` has it."""
    import random
    import statistics

    from crisp.server.sockets.lag import SAMPLES, LagMeter

    rng = random.Random(184)
    meter = LagMeter()
    assert meter.lag_ms is None
    seen: list[float] = []
    for _ in range(200):
        rtt = rng.choice([rng.uniform(0, 900), float(rng.randrange(0, 300, 7))])
        meter.add(rtt)
        seen.append(rtt)
        assert meter.lag_ms == round(statistics.median(seen[-SAMPLES:]) / 2)
