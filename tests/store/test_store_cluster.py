"""RedisClusterStore specifics, on a real 3-master Redis Cluster (tests/support/cluster.py):
the key layout (a room's keys in one slot, rooms spread over the masters), sharded
pub/sub, shards claimed on their own, and a room's slot moving to another master
while it is in use. The Store contract itself runs on the cluster in
test_store_contract.py."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from types import SimpleNamespace

import pytest
from redis.asyncio import Redis
from redis.crc import key_slot

from crisp.store import Lease, RedisClusterStore, Versioned, create_store, redis_schedule
from crisp.store.redis_cluster import DEFAULT_SHARDS, shard_tags, split_cluster_url
from tests.store.helpers import Inbox, now_ms
from tests.support.cluster import RedisClusterProcs


@pytest.fixture
async def nodes(redis_cluster: RedisClusterProcs, cluster_url: str) -> AsyncIterator[list[Redis]]:
    """A plain client per master (what each node holds)."""
    clients = [Redis(host="127.0.0.1", port=p, decode_responses=True) for p in redis_cluster.ports]
    yield clients
    for c in clients:
        await c.aclose()


@pytest.fixture
async def cstore(cluster_url: str) -> AsyncIterator[RedisClusterStore]:
    store = RedisClusterStore(cluster_url, idle_ttl_s=600)
    await store.start()
    yield store
    await asyncio.wait_for(store.close(), 10)


async def owner(nodes: list[Redis], key: str) -> Redis:
    """The master that serves `key`'s slot."""
    slot = key_slot(key.encode())
    for node in nodes:
        for start, end, *_ in (await node.execute_command("CLUSTER", "SLOTS")):
            if start <= slot <= end:
                host, port = _[0][0], _[0][1]
                return next(n for n in nodes if n.connection_pool.connection_kwargs["port"] == port
                            and host)  # fmt: skip
    raise AssertionError(f"no node serves slot {slot}")


async def shard_subscribers(node: Redis, channel: str) -> int:
    """PUBSUB SHARDNUMSUB on `node`: how many connections hold `channel` there."""
    _, count = await node.execute_command("PUBSUB", "SHARDNUMSUB", channel)
    return int(count)


def test_urls_and_shard_tags() -> None:
    assert split_cluster_url("redis+cluster://h:7000/") == ("redis://h:7000/", DEFAULT_SHARDS)
    assert split_cluster_url("rediss+cluster://h:7000/?shards=8&a=1") == ("rediss://h:7000/?a=1", 8)
    for bad in ("redis://h/", "redis+cluster://h/?shards=0", "redis+cluster://h/?shards=16385"):
        with pytest.raises(ValueError):
            split_cluster_url(bad)
    assert isinstance(create_store("redis+cluster://127.0.0.1:1/"), RedisClusterStore)
    # Tag i hashes into the i-th equal range of slots: three masters with equal
    # contiguous ranges (redis-cli --cluster create) hold 21, 21 and 22 of 64 shards.
    slots = [key_slot(tag.encode()) for tag in shard_tags(64)]
    assert all(i * 256 <= s < (i + 1) * 256 for i, s in enumerate(slots))
    assert [sum(lo <= s <= hi for s in slots) for lo, hi in
            [(0, 5460), (5461, 10922), (10923, 16383)]] == [21, 21, 22]  # fmt: skip


async def test_every_key_of_a_room_is_in_one_slot_and_rooms_spread_over_the_masters(
    cstore: RedisClusterStore, nodes: list[Redis]
) -> None:
    codes = [f"ROOM{i:04}" for i in range(30)]
    for code in codes:
        assert await cstore.create(code, "x", deadline_ms=now_ms() + 60_000)
        await cstore.put_leases([Lease(code, "p1", "c1")], now_ms() + 60_000)
    per_node = []
    for node in nodes:
        keys = [k async for k in node.scan_iter("crisp:*")]
        per_node.append(keys)
        for key in keys:  # every key a node holds is in a slot it serves
            assert await owner(nodes, key) is node
    rooms_on = [sum(":room:" in k for k in keys) for keys in per_node]
    assert sum(rooms_on) == len(codes) and all(n > 0 for n in rooms_on), rooms_on
    for code in codes:
        room = cstore._key(code)
        shard = cstore._shard(code)
        slots = {key_slot(k.encode()) for k in (room, shard.deadlines, shard.rooms, shard.leases)}
        assert len(slots) == 1, (code, slots)
        node = await owner(nodes, room)
        assert await node.zscore(shard.deadlines, code) is not None
        assert await node.zscore(shard.leases, f"{code} p1 c1") is not None
        assert await node.zscore(shard.rooms, code) is not None


async def test_room_messages_use_sharded_pubsub_one_connection_per_master(
    cstore: RedisClusterStore, nodes: list[Redis]
) -> None:
    codes = [f"SUB{i:04}" for i in range(12)]
    inboxes = {code: Inbox() for code in codes}
    for code, inbox in inboxes.items():
        await cstore.subscribe(code, inbox)
    for code in codes:
        channel = cstore._key(code)
        node = await owner(nodes, channel)
        assert await shard_subscribers(node, channel) == 1
        assert dict(await node.pubsub_numsub(channel)) == {channel: 0}  # not classic pub/sub
    holders = [len(await n.client_list(_type="pubsub")) for n in nodes]
    assert holders == [1, 1, 1], holders  # one connection per master, the rooms spread
    await cstore.create(codes[0], "v1")
    assert await cstore.save(codes[0], 1, "v2", message="saved") == 2
    for code in codes:
        await cstore.publish(code, f"to {code}")
    for code, inbox in inboxes.items():
        expected = (["saved"] if code == codes[0] else []) + [f"to {code}"]
        assert await inbox.wait_for(len(expected)) == expected


async def test_a_peer_sees_deadlines_it_did_not_set_within_a_second(
    cluster_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each process reads a shard's schedule only when its first entry is due or a
    second after the last read: a deadline another process set is claimed a second
    after the last read (the process that set it knows it at once). The schedule's
    second is on a clock the test moves (redis_schedule's time.monotonic): on real
    time a busy machine's poll missed the 1.5 s bound (issue 34)."""
    at = [1_000.0]
    monkeypatch.setattr(redis_schedule, "time", SimpleNamespace(monotonic=lambda: at[0]))
    a = RedisClusterStore(cluster_url)
    b = RedisClusterStore(cluster_url)
    try:
        await a.start()
        await b.start()
        assert await b.claim_due(now_ms(), 1000) == []  # b has read every shard
        await a.create("LATE", "x", deadline_ms=now_ms())
        at[0] = 1_000.5
        assert await b.claim_due(now_ms(), 10_000) == []  # b's reading is half a second old
        at[0] = 1_001.0
        assert await b.claim_due(now_ms(), 10_000) == ["LATE"]  # a second old: read again
        await a.create("MINE", "x", deadline_ms=now_ms())
        assert await a.claim_due(now_ms(), 10_000) == ["MINE"]  # its own: at once
    finally:
        await a.close()
        await b.close()


async def _move_slot(nodes: list[Redis], slot: int, src: Redis, dst: Redis) -> None:
    """Migrate `slot` from `src` to `dst` the way redis-cli --cluster reshard does."""
    src_id = await src.execute_command("CLUSTER", "MYID")
    dst_id = await dst.execute_command("CLUSTER", "MYID")
    await dst.execute_command("CLUSTER", "SETSLOT", slot, "IMPORTING", src_id)
    await src.execute_command("CLUSTER", "SETSLOT", slot, "MIGRATING", dst_id)
    keys = await src.execute_command("CLUSTER", "GETKEYSINSLOT", slot, 1000)
    if keys:
        port = dst.connection_pool.connection_kwargs["port"]
        await src.execute_command("MIGRATE", "127.0.0.1", port, "", 0, 5000, "KEYS", *keys)
    for node in (dst, src, *nodes):
        await node.execute_command("CLUSTER", "SETSLOT", slot, "NODE", dst_id)


async def test_a_room_whose_slot_moves_to_another_master_keeps_working(
    cstore: RedisClusterStore, nodes: list[Redis], cluster_url: str
) -> None:
    """Resharding a live cluster: the room's documents and schedule follow the slot
    (MOVED), its subscribers are subscribed again on the new master, told that
    messages may have been lost (on_gap) and get what is published after; a process
    whose slot map is out of date subscribes on the new master (after MOVED)."""
    code = "MOVEROOM"
    gaps: list[int] = []
    inbox = Inbox()

    async def on_gap() -> None:
        gaps.append(len(inbox.messages))

    await cstore.create(code, "v1", deadline_ms=now_ms() + 60_000)
    await cstore.subscribe(code, inbox, on_gap)
    # another process whose slot map will be out of date after the move
    late = RedisClusterStore(cluster_url)
    await late.start()
    await cstore.publish(code, "before")
    assert await inbox.wait_for(1) == ["before"]
    room = cstore._key(code)
    src = await owner(nodes, room)
    dst = next(n for n in nodes if n is not src)
    slot = key_slot(room.encode())
    await _move_slot(nodes, slot, src, dst)
    try:
        await _check_after_the_move(cstore, nodes, code, inbox, gaps, src, dst)
        # a subscription sent to the old master (MOVED) is made on the new one
        late_inbox = Inbox()
        await late.subscribe(code, late_inbox)
        await cstore.publish(code, "to both")
        assert await late_inbox.wait_for(1) == ["to both"]
    finally:  # the cluster is shared by the session: give the slot back
        await late.close()
        await _move_slot(nodes, slot, dst, src)


async def _check_after_the_move(
    cstore: RedisClusterStore, nodes: list[Redis], code: str, inbox: Inbox, gaps: list[int],
    src: Redis, dst: Redis,
) -> None:
    room = cstore._key(code)
    assert await owner(nodes, room) is dst
    # the document and its schedule moved with the slot, and the store follows
    assert await cstore.load(code) == Versioned(1, "v1")
    assert await cstore.save(code, 1, "v2", deadline_ms=now_ms() - 1) == 2
    assert await cstore.claim_due(now_ms(), 1000) == [code]
    # the subscription follows too: publish until the new master delivers
    deadline = time.monotonic() + 5
    while "after" not in inbox.messages:
        assert time.monotonic() < deadline, f"not subscribed again: {inbox.messages}"
        await cstore.publish(code, "after")
        await asyncio.sleep(0.05)  # poll interval: publish until the new master delivers
    assert gaps, "the subscriber was not told that messages may have been lost"
    assert await shard_subscribers(dst, room) == 1
    assert await shard_subscribers(src, room) == 0
