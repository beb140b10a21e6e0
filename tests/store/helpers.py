"""Helpers for the store tests."""

from __future__ import annotations

import asyncio
import time

from crisp.store import MemoryStore, RedisClusterStore, RedisStore, Store, TimedStore


def now_ms() -> int:
    """Wall-clock ms: the stores are given their times by the caller (the server's
    clock); these tests give them real ones."""
    return time.time_ns() // 1_000_000


class BudgetClock:
    """The budgets' clock of a test's stores (`spend`), in seconds: it stands still
    until the test moves it, so a bucket refills by exactly what the test says, however
    long a busy machine takes between two calls (issue 34: on real time a refused spend
    was granted once the calls took over 0.5 s)."""

    def __init__(self, at: float = 1_000.0) -> None:
        self.now = at

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class Backend:
    """Makes started stores of one kind and closes them after the test.

    `kind` is "memory", "redis", "unix" (Redis over a unix socket), "cluster" or
    "timed" (a MemoryStore through `TimedStore`, whose reports are kept in
    `reports`). `peer(store)` is "another
    server process" on the same data: a second Redis store on the same Redis (or
    cluster), or (memory being one process) the same store. Every store it makes
    spends its budgets on `clock` (one `BudgetClock` for all: the Redis clock is one
    for every process too)."""

    def __init__(self, kind: str, url: str | None) -> None:
        self.kind = kind
        self.url = url
        self._stores: list[Store] = []
        self.reports: list[tuple[str, str | None, float, str | None]] = []
        self.clock = BudgetClock()

    def _report(self, op: str, code: str | None, seconds: float, error: str | None) -> None:
        self.reports.append((op, code, seconds, error))

    async def new(self, *, idle_ttl_s: int = 3600) -> Store:
        store: Store
        if self.kind == "memory":
            store = MemoryStore(idle_ttl_s=idle_ttl_s, clock=self.clock)
        elif self.kind == "timed":
            store = TimedStore(MemoryStore(idle_ttl_s=idle_ttl_s, clock=self.clock), self._report)
        elif self.kind == "cluster":
            assert self.url is not None
            store = RedisClusterStore(self.url, idle_ttl_s=idle_ttl_s, clock=self.clock)
        else:
            assert self.url is not None
            store = RedisStore(self.url, idle_ttl_s=idle_ttl_s, clock=self.clock)
        await store.start()
        self._stores.append(store)
        return store

    async def peer(self, store: Store) -> Store:
        if self.kind in ("memory", "timed"):
            return store
        assert isinstance(store, RedisStore)
        return await self.new(idle_ttl_s=store._ttl_ms // 1000)

    async def close(self) -> None:
        for store in self._stores:
            await asyncio.wait_for(store.close(), 10)


class Inbox:
    """A subscriber handler that records messages and lets a test wait for them."""

    def __init__(self) -> None:
        self.messages: list[str] = []
        self._changed = asyncio.Event()

    async def __call__(self, message: str) -> None:
        self.messages.append(message)
        self._changed.set()

    async def wait_for(self, count: int, timeout: float = 3.0) -> list[str]:
        async def wait() -> None:
            while len(self.messages) < count:
                self._changed.clear()
                await self._changed.wait()

        await asyncio.wait_for(wait(), timeout)
        return self.messages


async def settle(seconds: float = 0.1) -> None:
    """Give in-flight messages time to arrive (used to check that none do: an absence
    has no state to wait for; a message on its way on loopback takes well under 1 ms)."""
    await asyncio.sleep(seconds)  # the window in which a wrong message would show
