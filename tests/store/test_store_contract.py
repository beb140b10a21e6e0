"""The Store contract, run on MemoryStore and on RedisStore (a real redis-server)."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import pytest

from crisp.store import Lease, Store, Versioned
from tests.store.helpers import Backend, Inbox, now_ms, settle

T = TypeVar("T")


def waits(seconds: float) -> Any:
    """A wait `spend` returns, to the microsecond (Redis keeps a budget to 1 µs)."""
    return pytest.approx(seconds, abs=1e-6)


# -- documents and compare-and-set ---------------------------------------------------


async def test_create_and_load(store: Store) -> None:
    assert await store.load("ABCD") is None
    assert not await store.exists("ABCD")
    assert await store.create("ABCD", '{"a": 1}')
    assert await store.load("ABCD") == Versioned(1, '{"a": 1}')
    assert await store.exists("ABCD")


async def test_create_refuses_an_existing_code(store: Store) -> None:
    assert await store.create("ABCD", "first")
    assert not await store.create("ABCD", "second")
    assert await store.load("ABCD") == Versioned(1, "first")


async def test_save_compare_and_set(store: Store) -> None:
    await store.create("ABCD", "v1")
    assert await store.save("ABCD", 1, "v2") == 2
    assert await store.save("ABCD", 1, "stale") is None  # stale version refused
    assert await store.load("ABCD") == Versioned(2, "v2")  # doc unchanged
    assert await store.save("ABCD", 3, "future") is None
    assert await store.save("ABCD", 2, "v3") == 3
    assert await store.load("ABCD") == Versioned(3, "v3")


async def test_save_of_a_missing_room_fails(store: Store) -> None:
    assert await store.save("NOPE", 1, "x") is None
    assert await store.load("NOPE") is None
    assert not await store.exists("NOPE")


async def test_docs_round_trip_unicode_and_empty(store: Store) -> None:
    doc = '{"name": "Zoë 🃏", "q": "\\"", "nl": "a\\nb"}'
    await store.create("ABCD", "")
    assert await store.load("ABCD") == Versioned(1, "")
    assert await store.save("ABCD", 1, doc) == 2
    assert await store.load("ABCD") == Versioned(2, doc)


async def test_concurrent_saves_only_one_wins(backend: Backend) -> None:
    a = await backend.new()
    b = await backend.peer(a)
    await a.create("ABCD", "v1")
    racers = [(a if i % 2 else b).save("ABCD", 1, f"doc{i}") for i in range(20)]
    results = await asyncio.gather(*racers)
    winners = [i for i, r in enumerate(results) if r is not None]
    assert len(winners) == 1
    assert results[winners[0]] == 2
    assert await b.load("ABCD") == Versioned(2, f"doc{winners[0]}")


# -- marks (the looks delivered to each seat, R16.3) -----------------------------------


async def test_a_mark_only_grows_and_says_what_it_was(store: Store) -> None:
    assert await store.claim_mark("ABCD", "p1", 3) is None  # no room, nothing kept
    await store.create("ABCD", "v1")
    assert await store.claim_mark("ABCD", "p1", 3) == 0
    assert await store.claim_mark("ABCD", "p1", 2) == 3  # lower: unchanged
    assert await store.claim_mark("ABCD", "p1", 5) == 3
    assert await store.claim_mark("ABCD", "p2", 1) == 0  # each name its own
    assert await store.save("ABCD", 1, "v2") == 2  # saves keep the marks, marks keep
    assert await store.load("ABCD") == Versioned(2, "v2")  # the version
    assert await store.claim_mark("ABCD", "p1", 0) == 5
    await store.delete("ABCD")
    await store.create("ABCD", "new")
    assert await store.claim_mark("ABCD", "p1", 1) == 0  # gone with the room


async def test_several_marks_are_claimed_in_one_step(store: Store) -> None:
    assert await store.claim_marks("ABCD", {"a": 1}) is None  # no room, nothing kept
    await store.create("ABCD", "v1")
    assert await store.claim_marks("ABCD", {"a": 3, "b": 0, "c": 7}) == {"a": 0, "b": 0, "c": 0}
    # each raised only if higher, each answer what it was; 0 only reads
    assert await store.claim_marks("ABCD", {"a": 2, "b": 0, "c": 9}) == {"a": 3, "b": 0, "c": 7}
    assert await store.claim_mark("ABCD", "c", 0) == 9  # the same marks as claim_mark's
    assert await store.claim_marks("ABCD", {"c": 1_764_430_000_123}) == {"c": 9}  # a time
    assert await store.claim_mark("ABCD", "c", 0) == 1_764_430_000_123
    assert await store.save("ABCD", 1, "v2") == 2  # the version does not move
    await store.delete("ABCD")
    await store.create("ABCD", "new")
    assert await store.claim_marks("ABCD", {"a": 0, "c": 0}) == {"a": 0, "c": 0}


async def test_racing_claims_of_several_marks_have_one_winner(backend: Backend) -> None:
    a = await backend.new()
    b = await backend.peer(a)
    await a.create("ABCD", "v1")
    results = await asyncio.gather(*((a if i % 2 else b).claim_marks("ABCD", {"x": 7, "y": i})
                                     for i in range(20)))
    assert sorted(r["x"] for r in results if r) == [0] + [7] * 19
    assert await a.claim_mark("ABCD", "y", 0) == 19


async def test_a_returned_claim_is_undone_only_if_nothing_came_after(store: Store) -> None:
    await store.create("ABCD", "v1")
    await store.claim_mark("ABCD", "p1", 4)
    await store.return_mark("ABCD", "p1", 4, 2)
    assert await store.claim_mark("ABCD", "p1", 0) == 2
    await store.claim_mark("ABCD", "p1", 6)
    await store.return_mark("ABCD", "p1", 4, 2)  # 6 is someone else's: kept
    assert await store.claim_mark("ABCD", "p1", 0) == 6
    await store.return_mark("EFGH", "p1", 1, 0)  # no room: nothing
    assert not await store.exists("EFGH")


async def test_racing_claims_of_one_mark_have_one_winner(backend: Backend) -> None:
    a = await backend.new()
    b = await backend.peer(a)
    await a.create("ABCD", "v1")
    results = await asyncio.gather(*((a if i % 2 else b).claim_mark("ABCD", "p1", 7)
                                     for i in range(20)))
    assert sorted(results) == [0] + [7] * 19


async def test_delete(store: Store) -> None:
    await store.create("ABCD", "x", deadline_ms=1000)
    await store.delete("ABCD")
    assert await store.load("ABCD") is None
    assert not await store.exists("ABCD")
    assert await store.next_due_ms() is None
    assert await store.claim_due(5000, 1000) == []
    await store.delete("ABCD")  # absent: no-op
    assert await store.create("ABCD", "again")
    assert await store.load("ABCD") == Versioned(1, "again")


async def test_room_count(store: Store) -> None:
    assert await store.room_count() == 0
    for code in ("AAAA", "BBBB", "CCCC"):
        await store.create(code, "x")
    assert await store.room_count() == 3
    await store.delete("BBBB")
    assert await store.room_count() == 2


async def test_random_operations_match_a_model(store: Store) -> None:
    """Versions start at 1 and go up by one per successful save; a stale or missing
    save changes nothing; load always shows the last successful write."""
    rng = random.Random(1234)
    model: dict[str, Versioned] = {}
    codes = ["AAAA", "BBBB", "CCCC"]
    for step in range(300):
        code, op = rng.choice(codes), rng.random()
        cur = model.get(code)
        if op < 0.15:
            assert await store.create(code, f"c{step}") == (cur is None)
            if cur is None:
                model[code] = Versioned(1, f"c{step}")
        elif op < 0.75:
            expected = cur.version if cur and rng.random() < 0.7 else rng.randint(0, 9)
            result = await store.save(code, expected, f"s{step}")
            if cur is not None and expected == cur.version:
                assert result == cur.version + 1
                model[code] = Versioned(cur.version + 1, f"s{step}")
            else:
                assert result is None
        elif op < 0.85:
            await store.delete(code)
            model.pop(code, None)
        assert await store.load(code) == model.get(code)
    assert await store.room_count() == len(model)


# -- pub/sub ---------------------------------------------------------------------------


async def test_publish_reaches_a_subscriber_in_order(store: Store) -> None:
    inbox = Inbox()
    await store.subscribe("ABCD", inbox)
    sent = [f"m{i}" for i in range(100)]
    for m in sent:
        await store.publish("ABCD", m)
    assert await inbox.wait_for(100) == sent


async def test_publish_without_subscribers_and_other_rooms(store: Store) -> None:
    inbox = Inbox()
    await store.publish("ABCD", "nobody listens")
    await store.subscribe("ABCD", inbox)
    await store.publish("WXYZ", "other room")
    await store.publish("ABCD", "mine")
    assert await inbox.wait_for(1) == ["mine"]
    await settle()
    assert inbox.messages == ["mine"]


async def test_several_subscribers_each_get_every_message(store: Store) -> None:
    inboxes = [Inbox() for _ in range(3)]
    for inbox in inboxes:
        await store.subscribe("ABCD", inbox)
    for i in range(10):
        await store.publish("ABCD", str(i))
    for inbox in inboxes:
        assert await inbox.wait_for(10) == [str(i) for i in range(10)]


async def test_unsubscribe(store: Store) -> None:
    first, second = Inbox(), Inbox()
    unsub_first = await store.subscribe("ABCD", first)
    await store.subscribe("ABCD", second)
    await store.publish("ABCD", "both")
    await first.wait_for(1)
    await second.wait_for(1)
    await unsub_first()
    await unsub_first()  # idempotent
    await store.publish("ABCD", "second only")
    assert await second.wait_for(2) == ["both", "second only"]
    await settle()
    assert first.messages == ["both"]


async def test_resubscribe_after_the_last_subscriber_left(store: Store) -> None:
    inbox = Inbox()
    unsub = await store.subscribe("ABCD", inbox)
    await unsub()
    await store.publish("ABCD", "lost")
    again = Inbox()
    await store.subscribe("ABCD", again)
    await store.publish("ABCD", "found")
    assert await again.wait_for(1) == ["found"]
    await settle()
    assert inbox.messages == []


async def test_save_publishes_only_when_it_succeeds(store: Store) -> None:
    inbox = Inbox()
    await store.create("ABCD", "v1")
    await store.subscribe("ABCD", inbox)
    assert await store.save("ABCD", 1, "v2", message="to v2") == 2
    assert await store.save("ABCD", 1, "stale", message="never") is None
    assert await store.save("ABCD", 2, "v3") == 3  # no message: nothing published
    assert await store.save("ABCD", 3, "v4", message="") == 4  # empty message is a message
    assert await inbox.wait_for(2) == ["to v2", ""]
    await settle()
    assert inbox.messages == ["to v2", ""]


async def test_a_failing_handler_does_not_stop_delivery(store: Store) -> None:
    seen: list[str] = []

    async def flaky(message: str) -> None:
        seen.append(message)
        if message == "boom":
            raise RuntimeError("handler bug")

    inbox = Inbox()
    await store.subscribe("ABCD", flaky)
    await store.subscribe("ABCD", inbox)
    for m in ("a", "boom", "b"):
        await store.publish("ABCD", m)
    await inbox.wait_for(3)
    await settle()
    assert seen == ["a", "boom", "b"]


async def test_a_slow_subscriber_does_not_delay_others(store: Store) -> None:
    gate = asyncio.Event()

    async def stuck(message: str) -> None:
        await gate.wait()

    fast = Inbox()
    await store.subscribe("ABCD", stuck)
    await store.subscribe("ABCD", fast)
    for i in range(5):
        await store.publish("ABCD", str(i))
    assert await fast.wait_for(5, timeout=2) == ["0", "1", "2", "3", "4"]
    gate.set()


async def test_unsubscribe_from_inside_the_handler(store: Store) -> None:
    seen: list[str] = []
    unsub = None

    async def once(message: str) -> None:
        seen.append(message)
        assert unsub is not None
        await unsub()

    unsub = await store.subscribe("ABCD", once)
    watcher = Inbox()
    await store.subscribe("ABCD", watcher)
    await store.publish("ABCD", "1")
    await store.publish("ABCD", "2")
    await watcher.wait_for(2)
    await settle()
    assert seen == ["1"]


async def test_messages_cross_instances(backend: Backend) -> None:
    """Two RedisStores on one Redis behave like two server processes."""
    a = await backend.new()
    b = await backend.peer(a)
    on_a, on_b = Inbox(), Inbox()
    await a.subscribe("ABCD", on_a)
    await b.subscribe("ABCD", on_b)
    await a.create("ABCD", "v1")
    assert await b.save("ABCD", 1, "v2", message="saved by b") == 2
    await a.publish("ABCD", "published by a")
    expected = ["saved by b", "published by a"]
    assert await on_a.wait_for(2) == expected
    assert await on_b.wait_for(2) == expected


# -- deadlines -------------------------------------------------------------------------


async def test_claim_due_returns_only_due_rooms_and_leases_them(store: Store) -> None:
    await store.create("AAAA", "x", deadline_ms=1000)
    await store.create("BBBB", "x", deadline_ms=2000)
    await store.create("CCCC", "x")
    await store.create("DDDD", "x", deadline_ms=5000)
    assert await store.next_due_ms() == 1000
    assert sorted(await store.claim_due(2500, lease_ms=10_000)) == ["AAAA", "BBBB"]
    assert await store.claim_due(2500, lease_ms=10_000) == []  # leased
    assert await store.next_due_ms() == 5000
    assert await store.claim_due(5000, lease_ms=10_000) == ["DDDD"]
    assert await store.next_due_ms() == 12_500
    # Nobody saved: the leases run out and the rooms fall due again.
    assert sorted(await store.claim_due(12_500, lease_ms=1000)) == ["AAAA", "BBBB"]
    assert await store.claim_due(13_499, lease_ms=1000) == []
    assert await store.next_due_ms() == 13_500
    assert sorted(await store.claim_due(15_000, lease_ms=1000)) == ["AAAA", "BBBB", "DDDD"]


async def test_claim_due_respects_the_limit(store: Store) -> None:
    for i in range(10):
        await store.create(f"R{i:03}", "x", deadline_ms=100 + i)
    first = await store.claim_due(1000, lease_ms=60_000, limit=4)
    assert first == ["R000", "R001", "R002", "R003"]  # earliest first
    rest = await store.claim_due(1000, lease_ms=60_000, limit=100)
    assert sorted(rest) == [f"R{i:03}" for i in range(4, 10)]


async def test_save_sets_and_clears_the_deadline(store: Store) -> None:
    await store.create("ABCD", "v1", deadline_ms=1000)
    assert await store.save("ABCD", 1, "v2", deadline_ms=3000) == 2
    assert await store.next_due_ms() == 3000
    assert await store.claim_due(2000, 100) == []
    assert await store.save("ABCD", 2, "v3", deadline_ms=None) == 3
    assert await store.next_due_ms() is None
    assert await store.claim_due(10**13, 100) == []
    assert await store.save("ABCD", 1, "stale", deadline_ms=5) is None  # failed CAS: no change
    assert await store.next_due_ms() is None


async def test_claim_then_save_sets_the_real_next_deadline(store: Store) -> None:
    await store.create("ABCD", "v1", deadline_ms=1000)
    assert await store.claim_due(1000, lease_ms=5000) == ["ABCD"]
    assert await store.next_due_ms() == 6000
    assert await store.save("ABCD", 1, "v2", deadline_ms=1500) == 2
    assert await store.next_due_ms() == 1500
    assert await store.claim_due(1500, lease_ms=5000) == ["ABCD"]


async def test_concurrent_claims_never_share_a_room(backend: Backend) -> None:
    a = await backend.new()
    b = await backend.peer(a)
    codes = [f"R{i:03}" for i in range(60)]
    for i, code in enumerate(codes):
        await a.create(code, "x", deadline_ms=1000 + i)

    claimed = await drain_concurrently([a, b], lambda s: s.claim_due(5000, 60_000, limit=7))
    assert sorted(claimed) == codes  # every room exactly once


async def drain_concurrently(
    stores: list[Store], claim: Callable[[Store], Awaitable[list[T]]]
) -> list[T]:
    """Everything four concurrent drainers (two per store) claimed until nothing was left."""

    async def drain(store: Store) -> list[T]:
        got: list[T] = []
        while batch := await claim(store):
            got += batch
            await asyncio.sleep(0)  # let the other drainers run in between
        return got

    results = await asyncio.gather(*(drain(s) for s in stores + stores))
    return [x for batch in results for x in batch]


async def test_create_without_deadline_replaces_a_leftover_entry(store: Store) -> None:
    await store.create("ABCD", "x", deadline_ms=1000)
    await store.delete("ABCD")
    await store.create("ABCD", "y")
    assert await store.next_due_ms() is None


# -- presence leases (R17.3) ------------------------------------------------------------


async def test_leases_expire_unless_renewed_and_are_claimed_once(store: Store) -> None:
    await store.create("ABCD", "x")
    ana, ben = Lease("ABCD", "p1", "c1"), Lease("ABCD", "p2", "c2")
    await store.put_leases([ana, ben], 1000)
    assert await store.claim_expired_leases(999, claim_ms=5000) == []
    assert await store.renew_leases([ana], 3000) == [True]
    assert await store.claim_expired_leases(1000, claim_ms=5000) == [ben]
    assert await store.claim_expired_leases(1000, claim_ms=5000) == []  # claimed
    # a claimed lease is still held: the claimer's death leaves it to be claimed again
    assert await store.claim_expired_leases(2999, claim_ms=5000) == []
    assert sorted(await store.claim_expired_leases(6000, claim_ms=5000)) == [ana, ben]
    await store.drop_lease(ben)
    await store.drop_lease(ben)  # absent: no-op
    assert await store.renew_leases([ana, ben], 20_000) == [True, False]
    assert await store.claim_expired_leases(15_000, claim_ms=5000) == []
    assert await store.claim_expired_leases(20_000, claim_ms=5000) == [ana]


async def test_a_renewal_never_brings_back_a_dropped_lease(store: Store) -> None:
    await store.create("ABCD", "x")
    lease = Lease("ABCD", "p1", "c1")
    assert await store.renew_leases([lease], 5000) == [False]
    assert await store.claim_expired_leases(10_000, claim_ms=1000) == []
    await store.put_leases([lease], 1000)
    await store.put_leases([lease], 4000)  # put extends too
    assert await store.claim_expired_leases(3999, claim_ms=1000) == []
    assert await store.claim_expired_leases(4000, claim_ms=1000) == [lease]
    assert await store.renew_leases([], 1) == []
    await store.put_leases([], 1)


async def test_leases_of_gone_rooms_are_dropped_not_claimed(store: Store) -> None:
    await store.create("GONE", "x")
    await store.create("HERE", "x")
    gone, here = Lease("GONE", "p1", "c1"), Lease("HERE", "p1", "c1")
    await store.put_leases([gone, here], 1000)
    await store.delete("GONE")
    assert await store.claim_expired_leases(2000, claim_ms=1000) == [here]
    assert await store.renew_leases([gone], 9000) == [False]


async def test_concurrent_lease_claims_never_share_a_lease(backend: Backend) -> None:
    a = await backend.new()
    b = await backend.peer(a)
    await a.create("ABCD", "x")
    leases = [Lease("ABCD", f"p{i % 8 + 1}", f"c{i:03}") for i in range(60)]
    await a.put_leases(leases[:30], 1000)
    await b.put_leases(leases[30:], 2000)

    claimed = await drain_concurrently(
        [a, b], lambda s: s.claim_expired_leases(5000, 60_000, limit=7)
    )
    assert sorted(claimed) == sorted(leases)  # every lease exactly once


# -- expiry ----------------------------------------------------------------------------


async def test_idle_rooms_expire_and_leave_nothing(backend: Backend) -> None:
    store = await backend.new(idle_ttl_s=1)
    t0 = time.monotonic()
    await store.create("IDLE", "x", deadline_ms=now_ms() + 50)
    await store.create("BUSY", "x")
    await asyncio.sleep(0.5)  # real time: the store's idle expiry (1 s) is the subject
    assert await store.save("BUSY", 1, "y") == 2  # refreshes BUSY's expiry
    await asyncio.sleep(1.2 - (time.monotonic() - t0))  # real time: past IDLE's expiry
    assert await store.load("IDLE") is None
    assert not await store.exists("IDLE")
    assert await store.save("IDLE", 1, "z") is None
    assert await store.load("BUSY") == Versioned(2, "y")
    assert await store.room_count() == 1
    # The gone room's schedule entry is dropped, never handed out.
    assert await store.claim_due(now_ms(), lease_ms=1000) == []
    assert await store.next_due_ms() is None
    assert await store.create("IDLE", "new")  # the code is free again


# -- budgets (rate limits shared by every process) -----------------------------------


async def test_spend_allows_the_burst_then_says_how_long_to_wait(backend: Backend) -> None:
    store = await backend.new()
    for _ in range(5):
        assert await store.spend("lookup:a", per_s=1.0, burst=5) == 0.0
    assert await store.spend("lookup:a", per_s=1.0, burst=5) == waits(1.0)
    backend.clock.advance(0.25)
    assert await store.spend("lookup:a", per_s=1.0, burst=5) == waits(0.75)
    assert await store.spend("lookup:b", per_s=1.0, burst=5) == 0.0  # keys are separate


# The budgets' time is moved (backend.clock, a BudgetClock), never waited for: on real
# time a busy machine took over 0.5 s for the 23 calls, a unit came back meanwhile and
# a "refused" spend was granted (issue 34, docs/testing.md).


async def test_a_refused_spend_spends_nothing(backend: Backend) -> None:
    store = await backend.new()
    for _ in range(3):
        assert await store.spend("k", per_s=2.0, burst=3) == 0.0
    refused = [await store.spend("k", per_s=2.0, burst=3) for _ in range(20)]
    assert refused == [waits(0.5)] * 20  # hammering does not push the wait further
    backend.clock.advance(0.4)
    assert await store.spend("k", per_s=2.0, burst=3) == waits(0.1)
    backend.clock.advance(0.1)  # one unit refills in 0.5 s
    assert await store.spend("k", per_s=2.0, burst=3) == 0.0
    assert await store.spend("k", per_s=2.0, burst=3) == waits(0.5)


async def test_spend_refills_at_the_rate(backend: Backend) -> None:
    store = await backend.new()
    assert await store.spend("k", 4, per_s=5.0, burst=4) == 0.0
    assert await store.spend("k", per_s=5.0, burst=4) == waits(0.2)
    backend.clock.advance(0.64)  # 3.2 units back at 5/s
    for _ in range(3):
        assert await store.spend("k", per_s=5.0, burst=4) == 0.0
    assert await store.spend("k", per_s=5.0, burst=4) == waits(0.16)  # 0.2 of a unit
    backend.clock.advance(0.16)  # a 4th unit comes back 0.8 s after the start
    assert await store.spend("k", per_s=5.0, burst=4) == 0.0
    assert await store.spend("k", per_s=5.0, burst=4) == waits(0.2)
    backend.clock.advance(10.0)  # long after: a full bucket, never more
    assert await store.spend("k", 4, per_s=5.0, burst=4) == 0.0
    assert await store.spend("k", per_s=5.0, burst=4) > 0


async def test_a_negative_cost_gives_units_back_up_to_a_full_bucket(store: Store) -> None:
    assert await store.spend("k", 2, per_s=0.1, burst=2) == 0.0
    assert await store.spend("k", per_s=0.1, burst=2) > 0
    assert await store.spend("k", -1, per_s=0.1, burst=2) == 0.0  # a refund
    assert await store.spend("k", per_s=0.1, burst=2) == 0.0
    assert await store.spend("k", -10, per_s=0.1, burst=2) == 0.0
    assert await store.spend("k", 2, per_s=0.1, burst=2) == 0.0  # never more than the burst
    assert await store.spend("k", per_s=0.1, burst=2) > 0


async def test_forced_spending_goes_into_debt(store: Store) -> None:
    assert await store.spend("seat", 3, per_s=1.0, burst=2, force=True) == 0.0
    wait = await store.spend("seat", per_s=1.0, burst=2)
    assert wait == waits(2.0)  # 3 units of debt in a bucket of 2: 2 s before one more


async def test_budgets_are_shared_between_instances(backend: Backend) -> None:
    a = await backend.new()
    b = await backend.peer(a)
    spent = await asyncio.gather(
        *((a if i % 2 else b).spend("join:x", per_s=0.01, burst=7) for i in range(30))
    )
    assert sum(1 for w in spent if w == 0.0) == 7  # atomic: exactly the burst, over both


# -- backend health --------------------------------------------------------------------


async def test_ping(store: Store) -> None:
    assert await store.ping()
