"""RedisStore specifics: key layout, the shared pub/sub connection, and behaviour when
the connection drops or the server dies. Always a real redis-server."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator

import pytest
from redis.asyncio import Redis

from crisp.bench.procs import RedisServer, start_redis
from crisp.store import RedisStore, StoreUnavailable, Versioned
from tests.store.helpers import Inbox


@pytest.fixture
async def raw(redis_url: str) -> AsyncIterator[Redis]:
    client = Redis.from_url(redis_url, decode_responses=True)
    yield client
    await client.aclose()


@pytest.fixture
async def rstore(redis_url: str) -> AsyncIterator[RedisStore]:
    store = RedisStore(redis_url, idle_ttl_s=600)
    await store.start()
    yield store
    await asyncio.wait_for(store.close(), 10)


@pytest.fixture
def own_redis() -> Iterator[RedisServer]:
    """A redis-server of this test's own, to kill."""
    proc = start_redis()
    yield proc
    proc.stop()


async def publish_until_received(store: RedisStore, code: str, inbox: Inbox) -> None:
    """Messages published while the subscription is being restored are lost (pub/sub is
    at most once), so keep publishing until one gets through."""
    deadline = time.monotonic() + 5
    i = 0
    while not inbox.messages:
        assert time.monotonic() < deadline, "subscription never came back"
        await store.publish(code, f"probe{i}")
        i += 1
        await asyncio.sleep(0.05)


async def test_a_budget_is_one_key_that_lives_as_long_as_its_debt(
    rstore: RedisStore, raw: Redis
) -> None:
    assert await rstore.spend("lookups:198.51.100.7", 3, per_s=1.0, burst=5) == 0.0
    key = "crisp:budget:lookups:198.51.100.7"
    assert 2500 < await raw.pttl(key) <= 3000  # the debt: 3 units of 1 s
    assert await rstore.spend("lookups:198.51.100.7", -3, per_s=1.0, burst=5) == 0.0
    assert not await raw.exists(key)  # full again: nothing is kept


async def test_key_layout(rstore: RedisStore, raw: Redis) -> None:
    await rstore.create("ABCD", "v1", deadline_ms=1234)
    assert await rstore.save("ABCD", 1, "v2", deadline_ms=5678) == 2
    assert await raw.hgetall("crisp:room:ABCD") == {"v": "2", "doc": "v2"}
    assert 590_000 < await raw.pttl("crisp:room:ABCD") <= 600_000
    assert await raw.zscore("crisp:deadlines", "ABCD") == 5678
    assert await raw.zscore("crisp:rooms", "ABCD") is not None
    async with raw.pubsub() as ps:
        await ps.subscribe("crisp:room:ABCD")
        assert (await ps.get_message(timeout=1))["type"] == "subscribe"
        assert await rstore.save("ABCD", 2, "v3", message="hello") == 3
        msg = await ps.get_message(timeout=1)
        assert msg is not None
        assert (msg["channel"], msg["data"]) == ("crisp:room:ABCD", "hello")
    await rstore.delete("ABCD")
    assert await raw.keys("crisp:*") == []


async def test_prefix_separates_stores(redis_url: str) -> None:
    a = RedisStore(redis_url)
    b = RedisStore(redis_url, prefix="other:")
    try:
        await a.create("ABCD", "a")
        assert await b.load("ABCD") is None
        assert await b.create("ABCD", "b")
        assert await a.load("ABCD") == Versioned(1, "a")
    finally:
        await a.close()
        await b.close()


async def test_one_pubsub_connection_per_process(rstore: RedisStore, raw: Redis) -> None:
    unsubs = {}
    for code in ("AAAA", "BBBB", "CCCC"):
        unsubs[code] = [await rstore.subscribe(code, Inbox()) for _ in range(2)]
    assert len(await raw.client_list(_type="pubsub")) == 1
    counts = dict(await raw.pubsub_numsub("crisp:room:AAAA", "crisp:room:BBBB"))
    assert counts == {"crisp:room:AAAA": 1, "crisp:room:BBBB": 1}
    await unsubs["AAAA"][0]()
    assert dict(await raw.pubsub_numsub("crisp:room:AAAA")) == {"crisp:room:AAAA": 1}
    await unsubs["AAAA"][1]()  # the last local subscriber leaves: UNSUBSCRIBE
    for _ in range(50):
        if dict(await raw.pubsub_numsub("crisp:room:AAAA")) == {"crisp:room:AAAA": 0}:
            break
        await asyncio.sleep(0.02)
    else:
        pytest.fail("channel still subscribed after the last local subscriber left")
    assert dict(await raw.pubsub_numsub("crisp:room:BBBB")) == {"crisp:room:BBBB": 1}


async def test_resubscribes_after_the_connection_is_killed(rstore: RedisStore, raw: Redis) -> None:
    inboxes = {code: Inbox() for code in ("AAAA", "BBBB")}
    for code, inbox in inboxes.items():
        await rstore.subscribe(code, inbox)
    assert await raw.client_kill_filter(_type="pubsub") == 1
    for code, inbox in inboxes.items():
        await publish_until_received(rstore, code, inbox)
    inbox = inboxes["AAAA"]
    before = len(inbox.messages)
    for i in range(20):
        await rstore.publish("AAAA", f"after{i}")
    got = await inbox.wait_for(before + 20)
    assert got[before:] == [f"after{i}" for i in range(20)]
    # A new subscriber after the reconnect works too.
    late = Inbox()
    await rstore.subscribe("CCCC", late)
    await rstore.publish("CCCC", "late")
    assert await late.wait_for(1) == ["late"]


async def test_ping_is_false_when_redis_is_down(own_redis: RedisServer) -> None:
    store = RedisStore(own_redis.url)
    await store.start()
    try:
        assert await store.ping()
        await store.create("ABCD", "x")
        await store.subscribe("ABCD", Inbox())
        own_redis.kill()
        t0 = time.monotonic()
        assert not await store.ping()
        assert time.monotonic() - t0 < 1.5
        with pytest.raises(StoreUnavailable):
            await store.load("ABCD")
        with pytest.raises(StoreUnavailable):
            await store.save("ABCD", 1, "y")
    finally:
        await asyncio.wait_for(store.close(), 5)


async def test_subscribe_fails_cleanly_when_redis_is_down(own_redis: RedisServer) -> None:
    store = RedisStore(own_redis.url, subscribe_timeout_s=0.3)
    await store.start()
    own_redis.kill()
    try:
        with pytest.raises(StoreUnavailable):
            await store.subscribe("ABCD", Inbox())
        assert not store._pubsub.has_subscribers("ABCD")
    finally:
        await asyncio.wait_for(store.close(), 5)


async def test_recovers_when_redis_comes_back(own_redis: RedisServer) -> None:
    store = RedisStore(own_redis.url)
    await store.start()
    try:
        inbox = Inbox()
        await store.subscribe("ABCD", inbox)
        own_redis.kill()
        assert not await store.ping()
        restarted = start_redis(port=own_redis.port)
        try:
            assert await store.ping()
            await publish_until_received(store, "ABCD", inbox)
            assert await store.create("ABCD", "fresh")  # the old server kept nothing
        finally:
            restarted.stop()
    finally:
        await asyncio.wait_for(store.close(), 5)


async def test_reconnects_when_the_pubsub_connection_stops_answering(
    redis_url: str, raw: Redis
) -> None:
    """A connection that is open but silent (here: the server paused) is detected by
    the reader's PING and replaced."""
    store = RedisStore(redis_url, pubsub_ping_s=0.2)
    await store.start()
    try:
        inbox = Inbox()
        await store.subscribe("ABCD", inbox)
        [before] = await raw.client_list(_type="pubsub")
        await raw.client_pause(700, all=True)
        await asyncio.sleep(0.9)
        await publish_until_received(store, "ABCD", inbox)
        [after] = await raw.client_list(_type="pubsub")
        assert after["id"] != before["id"]
    finally:
        await asyncio.wait_for(store.close(), 5)


async def test_more_concurrent_operations_than_pool_connections_wait_for_a_connection(
    redis_url: str, raw: Redis
) -> None:
    """A burst larger than the pool queues for connections instead of failing."""
    store = RedisStore(redis_url, max_connections=4)
    await store.start()
    try:
        assert await store.create("POOL", "0")

        async def bump() -> None:
            while True:  # CAS retry loop, as the server's rooms service does
                cur = await store.load("POOL")
                assert cur is not None
                if await store.save("POOL", cur.version, str(int(cur.doc) + 1)) is not None:
                    return

        await asyncio.gather(*(bump() for _ in range(200)))
        final = await store.load("POOL")
        assert final is not None and final.doc == "200"
        clients = await raw.client_list()
        assert len(clients) <= 4 + 2  # the pool, the pub/sub connection, this test's client
    finally:
        await store.close()
