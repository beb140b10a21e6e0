"""The store contract for a room's log (`save(..., log=LogWrite)` and `read_log`; the
round records of R18.2), on every backend (memory, Redis, Redis Cluster, through
TimedStore): written only by a successful compare-and-set, in the same step; reset,
trimmed and appended in that order; read by index; gone with its room, by delete or
by the idle expiry."""

from __future__ import annotations

import asyncio

from crisp.store import LogWrite, Store, Versioned
from tests.store.helpers import Backend


async def test_a_log_is_appended_by_saves_and_read_by_index(store: Store) -> None:
    assert await store.read_log("ABCD", 0, 10) == []  # no room
    await store.create("ABCD", "v1")
    assert await store.read_log("ABCD", 0, 10) == []  # no log yet
    assert await store.save("ABCD", 1, "v2", log=LogWrite(("a\n", "b\n"))) == 2
    assert await store.save("ABCD", 2, "v3") == 3  # a save without a LogWrite keeps it
    assert await store.save("ABCD", 3, "v4", log=LogWrite(("c\n",))) == 4
    assert await store.read_log("ABCD", 0, 10) == ["a\n", "b\n", "c\n"]
    assert await store.read_log("ABCD", 1, 1) == ["b\n"]
    assert await store.read_log("ABCD", 2, 5) == ["c\n"]
    assert await store.read_log("ABCD", 3, 5) == []
    assert await store.read_log("ABCD", 0, 0) == []
    assert await store.load("ABCD") == Versioned(4, "v4")
    big = "x" * 300_000 + "\n"  # a long round's entry, unicode too
    assert await store.save("ABCD", 4, "v5", log=LogWrite((big, "Zoë 🃏\n"))) == 5
    assert await store.read_log("ABCD", 3, 2) == [big, "Zoë 🃏\n"]


async def test_a_failed_compare_and_set_writes_no_log(store: Store) -> None:
    await store.create("ABCD", "v1")
    assert await store.save("ABCD", 7, "stale", log=LogWrite(("lost\n",))) is None
    assert await store.save("NOPE", 1, "x", log=LogWrite(("lost\n",))) is None
    assert await store.read_log("ABCD", 0, 10) == []
    assert await store.read_log("NOPE", 0, 10) == []


async def test_reset_then_trim_then_append(store: Store) -> None:
    await store.create("ABCD", "v1")
    await store.save("ABCD", 1, "v2", log=LogWrite(("1", "2", "3", "4")))
    await store.save("ABCD", 2, "v3", log=LogWrite(("5",), trim=2))
    assert await store.read_log("ABCD", 0, 10) == ["3", "4", "5"]
    await store.save("ABCD", 3, "v4", log=LogWrite(trim=1))  # trim alone
    assert await store.read_log("ABCD", 0, 10) == ["4", "5"]
    await store.save("ABCD", 4, "v5", log=LogWrite(("new",), reset=True))
    assert await store.read_log("ABCD", 0, 10) == ["new"]
    await store.save("ABCD", 5, "v6", log=LogWrite(reset=True))  # emptied
    assert await store.read_log("ABCD", 0, 10) == []
    await store.save("ABCD", 6, "v7", log=LogWrite(("again",), trim=3))  # past its end
    assert await store.read_log("ABCD", 0, 10) == ["again"]


async def test_a_log_goes_with_its_room(store: Store) -> None:
    await store.create("ABCD", "v1")
    await store.save("ABCD", 1, "v2", log=LogWrite(("kept",)))
    await store.delete("ABCD")
    assert await store.read_log("ABCD", 0, 10) == []
    assert await store.create("ABCD", "again")  # a new room of that code has no log
    assert await store.read_log("ABCD", 0, 10) == []


async def test_a_log_expires_with_its_room(backend: Backend) -> None:
    store = await backend.new(idle_ttl_s=1)
    await store.create("ABCD", "v1")
    await store.save("ABCD", 1, "v2", log=LogWrite(("a",)))
    await asyncio.sleep(0.6)  # real time is the subject: the idle expiry
    await store.save("ABCD", 2, "v3", log=LogWrite())  # an empty LogWrite refreshes it
    await asyncio.sleep(0.6)  # 1.2 s after the first write, 0.6 s after the refresh
    assert await store.read_log("ABCD", 0, 10) == ["a"]
    await asyncio.sleep(1.0)  # the idle time has passed since the last save
    assert await store.load("ABCD") is None
    assert await store.read_log("ABCD", 0, 10) == []


async def test_another_process_reads_the_log(backend: Backend) -> None:
    a = await backend.new()
    b = await backend.peer(a)  # another server process on the same data
    await a.create("ABCD", "v1")
    await a.save("ABCD", 1, "v2", log=LogWrite(("from a",)))
    await b.save("ABCD", 2, "v3", log=LogWrite(("from b",)))
    assert await b.read_log("ABCD", 0, 5) == await a.read_log("ABCD", 0, 5) == [
        "from a", "from b"]
