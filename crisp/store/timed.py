"""`TimedStore`: a `Store` that hands every call to another store and reports it.

The one delegating implementation of the contract: a caller that wants to time
or log store calls (the server's metrics and its outage log lines) gives a
`report(op, room_code, seconds, error)` function instead of writing every
method again. `error` is None for a call that worked, else the failure's text
(`ping` reports "no answer" when it answers False; it never raises)."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TypeVar

from crisp.store.base import (
    GapHandler,
    Handler,
    Lease,
    NewVersion,
    Store,
    Unsubscribe,
    Versioned,
)

T = TypeVar("T")

# report(op, the room's code or None, seconds the call took, None or the failure's text)
Report = Callable[[str, str | None, float, str | None], None]

OPS = (
    "create", "load", "save", "delete", "exists", "publish", "subscribe",
    "claim_due", "next_due_ms", "room_count", "ping", "spend", "claim_mark", "claim_marks",
    "return_mark",
    "put_leases", "renew_leases", "drop_lease", "claim_expired_leases",
    "put_ticket", "take_ticket", "read_log",
)  # fmt: skip


class TimedStore(Store):
    """Delegates to `inner`, reporting each call (one of `OPS`) to `report`."""

    def __init__(self, inner: Store, report: Report) -> None:
        self.inner = inner
        self.report = report

    async def _call(self, op: str, code: str | None, call: Awaitable[T]) -> T:
        started = time.perf_counter()
        try:
            result = await call
        except Exception as exc:
            self.report(op, code, time.perf_counter() - started, str(exc) or type(exc).__name__)
            raise
        self.report(op, code, time.perf_counter() - started, None)
        return result

    async def start(self) -> None:
        await self.inner.start()

    async def close(self) -> None:
        await self.inner.close()

    async def ping(self) -> bool:
        started = time.perf_counter()
        ok = await self.inner.ping()
        self.report("ping", None, time.perf_counter() - started, None if ok else "no answer")
        return ok

    async def create(self, code: str, doc: str, deadline_ms: int | None = None) -> bool:
        return await self._call("create", code, self.inner.create(code, doc, deadline_ms))

    async def load(self, code: str) -> Versioned | None:
        return await self._call("load", code, self.inner.load(code))

    async def _save(self, code: str, expected_version: int, new: NewVersion) -> int | None:
        call = self.inner.save(code, expected_version, new.doc, message=new.message,
                               deadline_ms=new.deadline_ms, log=new.log)  # fmt: skip
        return await self._call("save", code, call)

    async def read_log(self, code: str, start: int, count: int) -> list[str]:
        return await self._call("read_log", code, self.inner.read_log(code, start, count))

    async def claim_mark(self, code: str, name: str, value: int) -> int | None:
        return await self._call("claim_mark", code, self.inner.claim_mark(code, name, value))

    async def claim_marks(self, code: str, marks: Mapping[str, int]) -> dict[str, int] | None:
        return await self._call("claim_marks", code, self.inner.claim_marks(code, marks))

    async def return_mark(self, code: str, name: str, claimed: int, previous: int) -> None:
        await self._call(
            "return_mark", code, self.inner.return_mark(code, name, claimed, previous))

    async def delete(self, code: str) -> None:
        await self._call("delete", code, self.inner.delete(code))

    async def publish(self, code: str, message: str) -> None:
        await self._call("publish", code, self.inner.publish(code, message))

    async def subscribe(
        self, code: str, handler: Handler, on_gap: GapHandler | None = None
    ) -> Unsubscribe:
        return await self._call("subscribe", code, self.inner.subscribe(code, handler, on_gap))

    async def claim_due(self, now_ms: int, lease_ms: int, limit: int = 100) -> list[str]:
        return await self._call("claim_due", None, self.inner.claim_due(now_ms, lease_ms, limit))

    async def next_due_ms(self, *, known_ms: int = 0) -> int | None:
        return await self._call("next_due_ms", None, self.inner.next_due_ms(known_ms=known_ms))

    async def room_count(self) -> int:
        return await self._call("room_count", None, self.inner.room_count())

    async def exists(self, code: str) -> bool:
        return await self._call("exists", code, self.inner.exists(code))

    async def put_leases(self, leases: Sequence[Lease], until_ms: int) -> None:
        await self._call("put_leases", None, self.inner.put_leases(leases, until_ms))

    async def renew_leases(self, leases: Sequence[Lease], until_ms: int) -> list[bool]:
        return await self._call("renew_leases", None, self.inner.renew_leases(leases, until_ms))

    async def drop_lease(self, lease: Lease) -> None:
        await self._call("drop_lease", lease.code, self.inner.drop_lease(lease))

    async def claim_expired_leases(
        self, now_ms: int, claim_ms: int, limit: int = 100
    ) -> list[Lease]:
        call = self.inner.claim_expired_leases(now_ms, claim_ms, limit)
        return await self._call("claim_expired_leases", None, call)

    async def spend(
        self, key: str, cost: float = 1.0, *, per_s: float, burst: float, force: bool = False
    ) -> float:
        call = self.inner.spend(key, cost, per_s=per_s, burst=burst, force=force)
        return await self._call("spend", None, call)

    async def put_ticket(self, key: str, value: str, ttl_ms: int) -> bool:
        return await self._call("put_ticket", None, self.inner.put_ticket(key, value, ttl_ms))

    async def take_ticket(self, key: str) -> str | None:
        return await self._call("take_ticket", None, self.inner.take_ticket(key))
