"""Flood control on websockets (issue 12): limits per seat and per client address,
not per socket. Reconnecting does not refill a seat's bucket; a seat closed for
flooding again and again waits longer and longer at hello (its hello budget is in
the store, so this holds across processes on Redis); failed hellos spend the
client's look-ups; a client behind a trusted proxy has a cap of sockets."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from types import SimpleNamespace

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from crisp.server.edge import ratelimit
from crisp.server.edge.limits import Limits
from crisp.server.ops.hooks import ServerHooks
from crisp.server.ops.settings import Settings
from crisp.server.wire.failures import RateLimited
from crisp.store import memory
from crisp.store.base import spend_at
from crisp.store.memory import MemoryStore
from tests.support.player import Player, close_all
from tests.support.rooms import create_room, table
from tests.support.servers import ThreadServer


async def _flood(player: Player, count: int = 60) -> None:
    """The host toggles an option as fast as it can: each accepted one is an update
    for every seat."""
    for i in range(count):
        await player.send({"type": "options", "limit": 50 if i % 2 else 100})


@pytest.fixture
def still_buckets(monkeypatch: pytest.MonkeyPatch) -> None:
    """The edge's message buckets (this process's servers') on a clock that stands
    still for the test: a flood is refused after exactly its burst, however slowly a
    busy machine sends it. On real time a flood sent at less than the rate (a core
    kept busy) was never closed, and the rejoin's 30 were partly refilled: 6 accepted
    for at most 5 (issue 34; the budgets in the store keep their own clock)."""
    at = time.monotonic()
    monkeypatch.setattr(ratelimit, "time", SimpleNamespace(monotonic=lambda: at))


@pytest.mark.usefixtures("still_buckets")
async def test_the_reconnect_flood(make_server: Callable[..., ThreadServer]) -> None:
    """A seat that floods, is closed (4429) and reconnects at once finds its bucket
    as it left it; flooding again makes its next hello wait; the other players get
    no more updates than the seat's normal rate allows."""
    server = make_server(rate_per_s=10)  # production rates: 10/s, burst 20, 4 strikes; hellos 10/1m
    code, (host, ben) = await table(server, 2)
    started = time.monotonic()
    ben_before = len(ben.updates)

    await _flood(host)
    assert await host.wait_closed() == 4429
    assert any(e["code"] == "rate_limited" for e in host.errors)  # its burst is spent
    again = await Player.join(server, code, host.pid, host.token)  # the first flood is free
    assert not again.closed, (again.close_code, again.close_reason)
    await _flood(again, 30)
    assert await again.wait_closed() == 4429
    fresh = sum(1 for e in again.errors if e["code"] != "rate_limited")
    updates = len(again.updates) - 1  # its first update is the snapshot
    assert updates + fresh <= 5, (updates, fresh)  # no new burst of 20 after reconnecting

    third = await Player.join(server, code, host.pid, host.token)  # a second flood: wait
    assert third.closed and third.close_code == 4429 and "retry in" in third.close_reason

    elapsed = time.monotonic() - started
    stored = (await server.clock(code))["version"]  # every change has reached Ben
    await ben.wait(lambda p: p.version >= stored, what=f"version {stored}")
    got = len(ben.updates) - ben_before
    # burst + rate over the time, plus connected/disconnected per hello (two hellos)
    assert got <= 20 + 10 * elapsed + 4 + 2, (got, elapsed)
    await close_all([ben])


# Readings of time.monotonic() (s) at which `now_ms + 300 000` rounds up to the next
# float: there, before issue 34, `spend_at` reckoned a full bucket's debt as
# `(now_ms + cost) - now_ms`, found it a hair over the bucket, and refused a flood
# memory (1 per 300 s) its one unit, so the first flood counted as a second one and
# the rejoin was told "retry in 12 s". A fresh machine's clock (minutes of uptime) hit
# such readings in 1 of 3 runs of test_the_reconnect_flood[memory] (docs/testing.md,
# "Races found and fixed").
ROUNDING_READINGS_S = [319.68337, 446.929793, 1016.224654, 8279.953864, 134039.845749]


@pytest.mark.parametrize("now_s", ROUNDING_READINGS_S)
async def test_the_first_flood_is_free_at_every_clock_reading(
    now_s: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hello budget of test_the_reconnect_flood, at the clock readings where it
    failed: a hello, a first flood, and the rejoin is free; a second flood makes the
    next hello wait."""
    clock = SimpleNamespace(monotonic=lambda: now_s)
    monkeypatch.setattr(memory, "time", clock)  # the store's clock only, not the loop's
    limits = Limits(MemoryStore(), Settings(limit_hellos="10/1m"), ServerHooks())
    await limits.hello("ABCD", "p1")
    await limits.flooded("ABCD", "p1")
    await limits.hello("ABCD", "p1")  # the first flood is free
    await limits.flooded("ABCD", "p1")
    with pytest.raises(RateLimited):
        await limits.hello("ABCD", "p1")


@pytest.mark.parametrize(("count", "seconds"), [(1, 300), (10, 60), (3, 3600), (20, 1)])
def test_a_full_bucket_spends_all_of_it_at_any_reading(count: int, seconds: float) -> None:
    """Spending a whole bucket from full is never refused, and one unit more always
    is, at 20,000 clock readings from a fresh boot's to a year's uptime."""
    readings = random.Random(34)
    per_s = count / seconds
    for _ in range(20_000):
        now = readings.uniform(0.0, 3.2e10) * readings.choice([1e-5, 1e-3, 1.0])
        tat, wait = spend_at(now, now, count, per_s, count, False)
        assert wait == 0.0 and tat is not None, (now, wait)
        assert spend_at(tat, now, 1, per_s, count, False)[1] > 0, now


@pytest.mark.usefixtures("still_buckets")
async def test_the_hello_backoff_holds_across_processes(
    redis_url: str, spawn_server: Callable[..., ThreadServer]
) -> None:
    a = spawn_server(redis_url=redis_url, rate_per_s=10)
    b = spawn_server(redis_url=redis_url, rate_per_s=10)
    code, (host, ben) = await table(a, 2)
    await _flood(host)
    assert await host.wait_closed() == 4429
    again = await Player.join(b, code, host.pid, host.token)  # on the other process
    await _flood(again, 80)  # that process's bucket is fresh, but the flood is the second
    assert await again.wait_closed() == 4429
    for server in (a, b):
        refused = await Player.join(server, code, host.pid, host.token)
        assert refused.closed and refused.close_code == 4429
    await close_all([ben])


async def test_one_address_shares_one_message_budget(
    make_server: Callable[..., ThreadServer],
) -> None:
    """Each seat is within its own rate, but both from one address are over the
    address's rate (5/s, burst 10)."""
    server = make_server(client_rate_per_s=5, rate_strikes=100)
    _, (host, ben) = await table(server, 2)
    for p in (host, ben):
        for _ in range(8):
            await p.send({"type": "ready"})  # wrong_phase in the lobby: refused, cheap
    await host.wait(lambda p: len(p.errors) == 8, what="8 answers")
    await ben.wait(lambda p: len(p.errors) == 8, what="8 answers")
    codes = [e["code"] for e in host.errors + ben.errors]
    assert codes.count("rate_limited") >= 4, codes
    await close_all([host, ben])


async def test_failed_hellos_spend_the_clients_look_ups(
    make_server: Callable[..., ThreadServer],
) -> None:
    server = make_server(http_limits="on", limit_lookups="3/1h")
    code, _, _ = await create_room(server)
    for _ in range(3):
        stray = await Player.join(server, code, "p9", "not-a-token")
        assert stray.close_code == 4401
    refused = await Player.join(server, code, "p9", "not-a-token")
    assert refused.close_code == 4429
    async with server.http() as c:  # the same budget as HTTP look-ups
        assert (await c.get(f"/api/rooms/{code}")).status_code == 429


async def test_a_client_behind_a_proxy_has_a_cap_of_sockets(
    make_server: Callable[..., ThreadServer],
) -> None:
    server = make_server(trusted_proxies=["127.0.0.1"], max_connections_per_client=3)
    code, _, _ = await create_room(server)
    url = f"{server.ws_base}/ws/{code}"
    alice = {"X-Forwarded-For": "198.51.100.1"}
    held = [await connect(url, proxy=None, additional_headers=alice) for _ in range(3)]
    with pytest.raises(InvalidStatus) as refused:
        await connect(url, proxy=None, additional_headers=alice)
    assert refused.value.response.status_code == 429
    other = await connect(url, proxy=None, additional_headers={"X-Forwarded-For": "198.51.100.2"})
    for ws in [*held, other]:
        await ws.close()
