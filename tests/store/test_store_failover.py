"""A Redis Cluster master dies in the middle of games (issue 27; docs/deploy.md,
"Losing a master"): a cluster of 3 masters with a replica each, two `crisp serve`
processes on it (manual clocks), games on the doomed master's shard and on
another; the master is SIGKILLed and the cluster promotes its replica.

Deterministic by construction: the replica is first brought level with its
master (equal replication offsets), then frozen and cut off, so exactly the move
made after that is acknowledged to the players and lost with the master; game
time stands still except where the test moves it. `?wait=1` (WAIT after each
room write) is checked on its own, on a one-master cluster and on one Redis with
a replica."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
import zlib
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from redis.asyncio import Redis
from redis.crc import key_slot

from crisp.bench.procs import RedisServer, start_redis
from crisp.bench.procs.cluster import RedisClusterProcs, command, start_redis_cluster
from crisp.store import RedisClusterStore, RedisStore, Store, create_store
from crisp.store.redis_cluster import DEFAULT_SHARDS, shard_tags
from tests.store.helpers import now_ms
from tests.support.decks import NUMBER_CARDS, deck
from tests.support.player import Player
from tests.support.rooms import create_room, join_room, start_game
from tests.support.servers import ProcServer, advance_all

pytestmark = pytest.mark.redis

NODE_TIMEOUT_MS = 1000  # how long a master may be silent before it is failed over
TAGS = shard_tags(DEFAULT_SHARDS)
RETRY = ("store_unavailable", "outcome_unknown")
NUMBERS_FIRST = deck(*NUMBER_CARDS)  # every draw of these games is a number card


def slot_of(code: str) -> int:
    """The hash slot of a room's keys (its shard's tag; redis_cluster.py)."""
    return key_slot(f"crisp:{{{TAGS[zlib.crc32(code.encode()) % len(TAGS)]}}}:room:".encode())


def table_of(view: dict[str, Any]) -> tuple[Any, ...]:
    """What a seat's view shows of the table (not of the seat)."""
    return (view["version"], view["discard_top"], view["stock_count"],
            view["turn"] and view["turn"]["player"])  # fmt: skip


def offsets(port: int) -> int:
    """The replication offset a node has reached."""
    info = command(port, "INFO", "replication")
    return int(next(x for x in info.splitlines() if x.startswith("master_repl_offset:"))[19:])


async def level(master: int, replica: int, timeout: float = 5.0) -> None:
    """Wait until the replica has everything its master wrote."""
    deadline = time.monotonic() + timeout
    while offsets(replica) != offsets(master):
        assert time.monotonic() < deadline, "the replica never caught up"
        await asyncio.sleep(0.01)  # poll interval of INFO replication


async def answer(
    p: Player, kind: str, timeout: float = 3.0, **fields: Any
) -> dict[str, Any] | None:
    """Send `kind`; the frame that answers it, or None if none came in `timeout`
    (a change whose update this seat is never sent)."""
    try:
        return await asyncio.wait_for(p.act(kind, **fields), timeout)
    except (TimeoutError, AssertionError):
        return None


async def clocks_answer(servers: list[ProcServer], timeout: float = 10.0) -> None:
    """Wait until each server's test clock answers (it reads the store's schedule,
    every shard, which a process whose slot map is not yet read again cannot)."""
    deadline = time.monotonic() + timeout
    for server in servers:
        while True:
            async with server.http() as client:
                if (await client.get("/api/test/clock")).status_code == 200:
                    break
            assert time.monotonic() < deadline, "a server's clock never answered again"
            await asyncio.sleep(0.05)  # poll interval of the clock route


async def stored(store: Store, code: str) -> int:
    found = await store.load(code)
    assert found is not None
    return found.version


@pytest.fixture
def cluster() -> Iterator[RedisClusterProcs]:
    nodes = start_redis_cluster(3, replicas=1, node_timeout_ms=NODE_TIMEOUT_MS)
    yield nodes
    nodes.stop()


async def seat_room(a: ProcServer, b: ProcServer, want: Callable[[int], bool],
                    tried: list[str]) -> tuple[str, list[Player]]:  # fmt: skip
    """A room whose slot satisfies `want`, its host on `a` and a second player on
    `b`, both connected (rooms made for nothing stay in their lobbies); its deck
    deals and draws number cards only, so every move of the test is legal."""
    for _ in range(40):
        code, pid, token = await create_room(a, "Ana", deck=NUMBERS_FIRST)
        tried.append(code)
        if want(slot_of(code)):
            pid2, token2 = await join_room(a, code, "Ben")
            players = [await Player.join(a, code, pid, token),
                       await Player.join(b, code, pid2, token2)]  # fmt: skip
            for p in players:
                await p.wait_view(lambda v: all(x["connected"] for x in v["players"])
                                  and len(v["players"]) == 2)  # fmt: skip
            return code, players
    raise AssertionError("no room landed on the wanted shard")


async def test_a_killed_master_fails_over_and_its_rooms_resume(
    cluster: RedisClusterProcs, spawn_crisp: Callable[..., ProcServer], tmp_path: Path
) -> None:
    a, b = await asyncio.gather(*(  # started side by side: most of this test's time
        asyncio.to_thread(spawn_crisp, log=tmp_path / f"server-{name}.log",
                          CRISP_REDIS_URL=cluster.url) for name in "ab"))  # fmt: skip
    tried: list[str] = []
    # V: the move lost with the master; W: a draw timer on the same shard; O: another master.
    v_code, v_players = await seat_room(a, b, lambda s: True, tried)
    doomed = cluster.master_of(slot_of(v_code))
    replica = cluster.replica_of(doomed)

    def on_doomed(s: int) -> bool:
        return cluster.master_of(s) == doomed

    w_code, w_players = await seat_room(a, b, on_doomed, tried)
    _, o_players = await seat_room(a, b, lambda s: not on_doomed(s), tried)
    await start_game(v_players)
    await start_game(w_players, ready=False)  # its peek phase ends by the clock (R16.2)
    await start_game(o_players)

    def on_turn(players: list[Player]) -> Player:
        turn = players[0].view["turn"]["player"]
        return next(p for p in players if p.pid == turn)

    v_turn = on_turn(v_players)
    await v_turn.wait_legal("draw")
    drew = await v_turn.act("draw", source="stock")
    assert drew["type"] == "update"
    kept = v_turn.version
    await level(doomed, replica)  # everything so far is on the replica

    # Cut the replica off (frozen, its link closed): the next move reaches the master only.
    cluster.freeze(replica)
    assert command(doomed, "CLIENT", "KILL", "TYPE", "replica").startswith(":1")
    lost = await v_turn.act("discard")
    assert lost["type"] == "update" and v_turn.version == kept + 1  # acknowledged to the players
    seen_lost = [p.version for p in v_players]

    cluster.kill(doomed)
    killed_at = time.monotonic()
    cluster.thaw(replica)

    # Another master's rooms play on meanwhile (a first turn: the draw is legal at once;
    # no clock move, which reads the store's schedule, all of it).
    o_turn = on_turn(o_players)
    assert "draw" in o_turn.view["legal"]
    o_drew = await answer(o_turn, "draw", source="stock")
    assert o_drew is not None and o_drew["type"] == "update", o_drew
    other_ok_s = time.monotonic() - killed_at

    failover_s = await asyncio.to_thread(cluster.wait_ok, 20)
    assert cluster.roles()[replica] == "master"
    store = create_store(cluster.url)
    await store.start()
    try:
        # Exactly the move made after the cut is gone: acknowledged, then lost.
        assert await stored(store, v_code) == kept
        # The room resumes by itself: the held card is played again (a different move),
        # sent again while the server answers that its store is unavailable.
        resumed_s = None
        for attempt in range(200):
            ref = f"resume-{attempt}"
            errors = len(v_turn.errors)
            await v_turn.send({"type": "swap", "slot": "left", "id": ref})
            for _ in range(100):  # the answer: an error, or the room's stored version moving
                if await stored(store, v_code) == kept + 1:
                    resumed_s = time.monotonic() - killed_at
                    break
                if any(e.get("ref") == ref for e in v_turn.errors[errors:]):
                    break
                await asyncio.sleep(0.02)  # poll interval of the store and the frames
            if resumed_s is not None:
                break
            assert all(e.get("code") in RETRY for e in v_turn.errors[errors:]), v_turn.errors
            await asyncio.sleep(0.05)  # a client's retry pace
        assert resumed_s is not None, "room V never took a move again"
        # Every seat is shown the table of that move, under a version above the lost
        # move's: a version the players were shown is never given to another table
        # (protocol.md; the event itself may be lost in the pub/sub gap of the failover,
        # the table is not: the hub reloads the room once it hears the store again).
        found = await store.load(v_code)
        assert found is not None
        resumed_version = json.loads(found.doc)["state"]["version"]
        assert resumed_version > max(seen_lost)
        resumed_tables = {p.pid: table_of(await p.wait_view(
            lambda v: v["version"] >= resumed_version, what="the move after the failover"))
            for p in v_players}  # fmt: skip
        assert len(set(resumed_tables.values())) == 1, resumed_tables

        # A deadline due after the failover is applied once, whichever process claims
        # it: W's peek phase ends by the clock (R16.2), 10 s after its deal.
        w_before = await stored(store, w_code)
        marks = [p.mark() for p in w_players]
        await clocks_answer([a, b])
        await advance_all([a, b], 10_000)
        for p, mark in zip(w_players, marks, strict=True):
            await p.wait_view(lambda v: v["status"] == "playing", after=mark)
            starts = [e for u in p.updates[mark:] for e in u["events"]
                      if e["kind"] == "turn_started"]  # fmt: skip
            assert len(starts) == 1, starts
        assert await stored(store, w_code) == w_before + 1
        print(f"\nfailover: other master's move {other_ok_s:.2f} s, cluster ok after "
              f"{failover_s:.2f} s, room resumed {resumed_s:.2f} s after the SIGKILL; "
              f"lost version {kept + 1} (seen by the players as {seen_lost})")

        # What the players of V see now. Each update carries the whole table, so once
        # the room changes again (the next player draws) their tables are right: a
        # fresh connection of each seat (replacing the old one) is shown the table as
        # it is, and the old connections show the same.
        v_next = next(p for p in v_players if p is not v_turn)
        v_marks = [p.mark() for p in v_players]
        assert (await v_next.act("draw", source="stock"))["type"] == "update"
        for p, mark in zip(v_players, v_marks, strict=True):
            await p.wait_event("drew", after=mark)
        shown = {p.pid: table_of(p.view) for p in v_players}
        fresh = {p.pid: table_of((await Player.join(p.server, v_code, p.pid, p.token)).view)
                 for p in v_players}  # fmt: skip
        assert shown == fresh
        for p in v_players:  # never back; a version given twice shows one table
            for before, after in zip(p.updates, p.updates[1:], strict=False):
                assert after["view"]["version"] >= before["view"]["version"]
                if after["view"]["version"] == before["view"]["version"]:
                    assert table_of(after["view"]) == table_of(before["view"])
    finally:
        await store.close()


# -- WAIT after each room write (?wait=1) ------------------------------------------


@dataclass
class Waiting:
    store: RedisStore
    master: int
    replica: int
    replica_pid: int


@pytest.fixture
def replicated_redis() -> Iterator[tuple[RedisServer, RedisServer]]:
    master = start_redis()
    replica = start_redis(replica_of=master.port)
    yield master, replica
    replica.stop()
    master.stop()


@pytest.fixture(params=["redis", "cluster"])
async def waiting(request: pytest.FixtureRequest) -> AsyncIterator[Waiting]:
    """A store with `?wait=1&wait_ms=300` on a master with one replica (one Redis, or a
    one-master cluster), the master's and the replica's ports, the replica's pid."""
    if request.param == "redis":
        master, replica = request.getfixturevalue("replicated_redis")
        store: RedisStore = RedisStore(f"{master.url}?wait=1&wait_ms=300")
        found = Waiting(store, master.port, replica.port, replica.pid)
    else:
        one = start_redis_cluster(1, replicas=1, node_timeout_ms=NODE_TIMEOUT_MS)
        request.addfinalizer(one.stop)
        master_port = next(iter(one.masters()))
        replica_port = one.replica_of(master_port)
        store = RedisClusterStore(f"{one.url}?wait=1&wait_ms=300&shards=4")
        found = Waiting(store, master_port, replica_port, one.node(replica_port).pid)
    await store.start()
    yield found
    await store.close()


async def test_wait_answers_a_room_write_once_the_replica_has_it(waiting: Waiting) -> None:
    store, master, replica = waiting.store, waiting.master, waiting.replica
    await level(master, replica)
    reader = Redis(port=replica, decode_responses=True)
    try:
        assert await store.create("W8T1", "v1")
        key = store._key("W8T1")
        for version in range(1, 21):
            assert await store.save("W8T1", version, f"v{version + 1}") == version + 1
            # Read from the replica right after the answer: it has the write already.
            if isinstance(store, RedisClusterStore):
                await reader.execute_command("READONLY")
            assert await reader.hget(key, "v") == str(version + 1)
        assert store.unreplicated == 0
        # A replica that does not answer: the write stands after wait_ms, unconfirmed.
        os.kill(waiting.replica_pid, signal.SIGSTOP)
        try:
            started = time.monotonic()
            assert await store.save("W8T1", 21, "v22") == 22
            assert time.monotonic() - started >= 0.25
            assert store.unreplicated == 1
        finally:
            os.kill(waiting.replica_pid, signal.SIGCONT)
    finally:
        await reader.aclose()


# -- a master down, before any failover ------------------------------------------


async def test_a_dead_master_does_not_hold_up_the_other_shards_deadlines() -> None:
    """Until the cluster fails it over (the node timeout, 5 s here) a dead master's
    slots answer nothing, but the other masters' do: the schedule's reads and claims
    go on there, and only the dead master's rooms wait."""
    cluster = start_redis_cluster(3)
    store = RedisClusterStore(cluster.url, idle_ttl_s=600)
    await store.start()
    try:
        due = now_ms() - 1
        codes = [f"DUE{i:03}" for i in range(30)]
        for code in codes:
            assert await store.create(code, "x", deadline_ms=due)
        masters = cluster.masters()
        dead = next(iter(masters))
        on_dead = {c for c in codes if cluster.master_of(slot_of(c)) == dead}
        assert on_dead and on_dead != set(codes)
        cluster.kill(dead)
        claimed = await store.claim_due(now_ms(), lease_ms=60_000)
        assert set(claimed) == set(codes) - on_dead
        assert await store.next_due_ms() is not None
    finally:
        await store.close()
        cluster.stop()
