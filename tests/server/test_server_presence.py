"""Presence that survives crashes (R17.3): a seat whose connections all ended shows
`connected: false` within 30 s (scaled), also when the process holding them died.

On Redis with real processes (SIGKILL, a second process; a restart); on the memory
store (one process by nature) with two server "processes" sharing one store in one
event loop, one of which stops dead without any cleanup. And a live socket whose
lease was lost takes its seat back."""

from __future__ import annotations

import asyncio
import signal
import time
from collections.abc import Callable
from typing import Any

import pytest
import redis.asyncio as aioredis

from crisp.server.clock import now_ms
from crisp.server.presence import CLAIM_MS, LEASE_MS, RESTART_GRACE_MS, LeaseTimes, Presence
from crisp.server.rooms import Rooms
from crisp.server.scheduler import Scheduler
from crisp.store import Lease, MemoryStore
from tests.support.player import Player, close_all
from tests.support.rooms import create_room, join_room
from tests.support.servers import LiveServer, ProcServer, ThreadServer

SCALE = 0.3  # R17.3's 30 s -> 9 s; the lease is 5 s (its floor)
WITHIN_S = 30 * SCALE


def test_r17_3_the_lease_ends_presence_within_30_s_at_full_time() -> None:
    times = LeaseTimes.for_scale(1.0)
    assert times.lease_ms == LEASE_MS
    # the lease, the scheduler's check, and a claimer that died once
    assert times.lease_ms + times.check_ms + CLAIM_MS <= 30_000
    assert times.renew_ms * 4 <= times.lease_ms  # three renewals may fail in a row
    fast = LeaseTimes.for_scale(0.01)
    assert fast.lease_ms == 5000 and fast.renew_ms == 1000 and fast.check_ms == 625
    assert LeaseTimes.for_scale(SCALE).lease_ms < WITHIN_S * 1000 - 1000


async def summary(server: LiveServer, code: str) -> dict[str, Any]:
    async with server.http() as client:
        r = await client.get(f"/api/rooms/{code}")
    assert r.status_code == 200, r.text
    return r.json()  # type: ignore[no-any-return]


async def connected_in_summary(server: LiveServer, code: str) -> dict[str, bool]:
    return {p["id"]: p["connected"] for p in (await summary(server, code))["players"]}


async def wait_summary(
    server: LiveServer, code: str, want: dict[str, bool], timeout: float
) -> float:
    """Poll GET /api/rooms/{code} until the seats' `connected` are `want`; the time it took."""
    start = time.monotonic()
    while True:
        got = await connected_in_summary(server, code)
        if all(got[k] == v for k, v in want.items()):
            return time.monotonic() - start
        if time.monotonic() - start > timeout:
            raise AssertionError(f"connected {got}, wanted {want} within {timeout} s")
        await asyncio.sleep(0.05)


@pytest.mark.redis
async def test_r17_3_sigkill_seat_goes_disconnected_on_a_second_process(
    spawn_crisp: Callable[..., ProcServer], redis_url: str
) -> None:
    env = {"CRISP_REDIS_URL": redis_url, "CRISP_TIME_SCALE": str(SCALE)}
    a = spawn_crisp(**env)
    b = spawn_crisp(**env)
    code, pid, token = await create_room(b, "Ana")
    pid2, token2 = await join_room(b, code, "Ben")
    ana = await Player.join(b, code, pid, token)
    ben = await Player.join(a, code, pid2, token2)
    await ana.wait_view(lambda v: all(p["connected"] for p in v["players"]))
    # a live socket on a live process keeps its seat well past its lease
    await asyncio.sleep(LeaseTimes.for_scale(SCALE).lease_ms / 1000 * 1.2)
    assert await connected_in_summary(b, code) == {"p1": True, "p2": True}
    assert not ana.events("disconnected")

    mark = ana.mark()
    a.kill()
    killed = time.monotonic()
    assert await ben.wait_closed() == 1006
    event = await ana.wait_event("disconnected", after=mark, timeout=WITHIN_S + 2)
    took = time.monotonic() - killed
    assert event["player"] == "p2" and took <= WITHIN_S, took
    assert not ana.view["players"][1]["connected"] and ana.view["players"][0]["connected"]
    assert await connected_in_summary(b, code) == {"p1": True, "p2": False}
    # Ben comes back (to the surviving process): connected again
    ben = await Player.join(b, code, pid2, token2)
    await wait_summary(b, code, {"p1": True, "p2": True}, 3)
    await close_all([ana, ben])


@pytest.mark.redis
async def test_r17_3_sigkill_seats_go_disconnected_after_a_restart(
    spawn_crisp: Callable[..., ProcServer], redis_url: str
) -> None:
    env = {"CRISP_REDIS_URL": redis_url, "CRISP_TIME_SCALE": str(SCALE)}
    a = spawn_crisp(**env)
    code, pid, token = await create_room(a, "Ana")
    await join_room(a, code, "Ben")  # never connects
    ana = await Player.join(a, code, pid, token)
    await ana.wait_view(lambda v: v["players"][0]["connected"])
    a.kill()
    killed = time.monotonic()
    await ana.wait_closed()
    b = spawn_crisp(**env)  # nobody comes back
    took = await wait_summary(b, code, {"p1": False, "p2": False}, WITHIN_S + 2)
    assert time.monotonic() - killed <= WITHIN_S, took
    await close_all([ana])


@pytest.mark.redis
async def test_a_graceful_stop_gives_its_sockets_a_restart_grace(
    spawn_crisp: Callable[..., ProcServer], redis_url: str
) -> None:
    """SIGTERM leaves presence alone (the clients come straight back) and gives the
    leases of its sockets a real-time grace in one store call."""
    a = spawn_crisp(CRISP_REDIS_URL=redis_url)
    code, pid, token = await create_room(a, "Ana")
    ana = await Player.join(a, code, pid, token)
    assert a.proc is not None
    a.proc.send_signal(signal.SIGTERM)
    stopped = now_ms()
    assert await ana.wait_closed() == 1012
    await asyncio.to_thread(a.proc.wait, 10)
    client = aioredis.Redis.from_url(redis_url)
    try:
        leases = await client.zrange("crisp:leases", 0, -1, withscores=True)
    finally:
        await client.aclose()
    assert [m.decode().split(" ")[:2] for m, _ in leases] == [[code, pid]]
    assert leases[0][1] >= stopped + RESTART_GRACE_MS - 1000


async def test_r17_3_memory_a_dead_process_leaves_no_seat_connected() -> None:
    """Memory is one process, so its "second process" shares the store in this loop:
    process A holds the seat's lease and stops dead (no close, no release); process
    B's scheduler marks the seat disconnected; while A lived, nothing changed."""
    store = MemoryStore()
    await store.start()
    times = LeaseTimes(lease_ms=2000, renew_ms=400, check_ms=100)
    rooms_a, rooms_b = Rooms(store), Rooms(store)
    presence_a = Presence(store, rooms_a, times)
    scheduler_b = Scheduler(store, lease_check_ms=times.check_ms)
    try:
        seat = await rooms_a.create("Ana")
        lease = Lease(seat.room_code, seat.player_id, "conn-a")
        await presence_a.hold(_LeaseOnly(lease))  # type: ignore[arg-type]
        await rooms_a.connect(seat.room_code, seat.player_id, "conn-a")
        presence_a.start()
        scheduler_b.start(rooms_b)
        await asyncio.sleep(times.lease_ms / 1000 * 1.5)
        assert (await rooms_b.summary(seat.room_code))["players"][0]["connected"]

        await presence_a.stop()  # A dies: its leases are no longer renewed
        died = time.monotonic()
        while (await rooms_b.summary(seat.room_code))["players"][0]["connected"]:
            assert time.monotonic() - died < 5, "still connected"
            await asyncio.sleep(0.05)
        took = time.monotonic() - died
        assert took <= (times.lease_ms + times.check_ms) / 1000 + 0.5, took
        doc = await rooms_b.load(seat.room_code)
        assert doc is not None and seat.player_id not in doc.conns
        assert await store.claim_expired_leases(now_ms() + 60_000, CLAIM_MS) == []  # dropped
    finally:
        await presence_a.stop()
        await scheduler_b.stop()
        await store.close()


class _LeaseOnly:
    """What the renewal loop reads of a connection: its lease (and that it is open)."""

    def __init__(self, lease: Lease) -> None:
        self.lease = lease
        self.closing = False


async def test_r17_3_a_live_socket_whose_lease_was_lost_takes_its_seat_back(
    make_server: Callable[..., ThreadServer],
) -> None:
    server = make_server(time_scale=0.01)
    code, pid, token = await create_room(server, "Ana")
    pid2, token2 = await join_room(server, code, "Ben")
    ana = await Player.join(server, code, pid, token)
    ben = await Player.join(server, code, pid2, token2)
    await ana.wait_view(lambda v: all(p["connected"] for p in v["players"]))
    ctx = server.ctx
    (conn,) = [c for c in ctx.hub.rooms[code].conns if c.player_id == pid2]
    mark = ana.mark()
    # the lease ran out while the process stalled, and another process expired it
    await server.call(ctx.store.drop_lease(conn.lease))
    await server.call(ctx.rooms.disconnect(code, pid2, conn.id))
    await ana.wait_event("disconnected", after=mark)
    back = await ana.wait_event("connected", after=mark, timeout=3)
    assert back["player"] == "p2"
    assert await connected_in_summary(server, code) == {"p1": True, "p2": True}
    # the same socket still plays: Ben is not replaced and receives updates
    assert not ben.closed
    await ana.act("options", limit=50)
    await ben.wait_view(lambda v: v["options"]["limit"] == 50)
    await close_all([ana, ben])
