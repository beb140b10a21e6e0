"""The store contract for one-time tickets (`put_ticket`, `take_ticket`; moving a seat,
R18.5), on every backend (memory, Redis, Redis Cluster, through TimedStore)."""

from __future__ import annotations

import asyncio

from crisp.store import Store
from tests.store.helpers import Backend

LONG_MS = 60_000


async def test_a_ticket_is_taken_once(store: Store) -> None:
    assert await store.put_ticket("move:ROOM:abc", '{"player":"p2"}', LONG_MS)
    assert await store.take_ticket("move:ROOM:abc") == '{"player":"p2"}'
    assert await store.take_ticket("move:ROOM:abc") is None  # used
    assert await store.take_ticket("move:ROOM:never") is None  # never put


async def test_a_live_ticket_is_not_replaced(store: Store) -> None:
    assert await store.put_ticket("k", "first", LONG_MS)
    assert not await store.put_ticket("k", "second", LONG_MS)
    assert await store.take_ticket("k") == "first"
    assert await store.put_ticket("k", "again", LONG_MS)  # a taken key may be put again
    assert await store.take_ticket("k") == "again"


async def test_a_ticket_expires_after_its_time(store: Store) -> None:
    assert await store.put_ticket("short", "x", 100)
    assert await store.put_ticket("long", "y", LONG_MS)
    await asyncio.sleep(0.3)  # real time is the subject: three times the ticket's life
    assert await store.take_ticket("short") is None
    assert await store.take_ticket("long") == "y"
    assert await store.put_ticket("short", "z", LONG_MS)  # an expired key is free again


async def test_racing_takers_get_a_ticket_exactly_once(backend: Backend) -> None:
    a = await backend.new()
    b = await backend.peer(a)  # another server process on the same data
    for i in range(20):
        assert await a.put_ticket(f"race:{i}", str(i), LONG_MS)
    taken = await asyncio.gather(
        *((a if k % 2 else b).take_ticket(f"race:{k // 2}") for k in range(40))
    )
    assert sorted(int(t) for t in taken if t is not None) == list(range(20))
    assert sum(t is None for t in taken) == 20


async def test_a_ticket_put_on_one_process_is_taken_on_another(backend: Backend) -> None:
    a = await backend.new()
    b = await backend.peer(a)
    assert await a.put_ticket("move:K7QX:one", "p3", LONG_MS)
    assert await b.take_ticket("move:K7QX:one") == "p3"
    assert await a.take_ticket("move:K7QX:one") is None
