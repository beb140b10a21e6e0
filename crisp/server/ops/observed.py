"""`ObservedStore`: a `Store` wrapper that times every call and reports failures.

Each call is reported to `hooks.store_op(op, seconds, ok)` (metrics). A failing
operation is logged at warning level the first time it fails after working (so
an outage gives one line per operation, not one per call), and at info level
when it works again.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Sequence
from typing import TypeVar

from crisp.server.ops.hooks import ServerHooks
from crisp.server.ops.logs import fields
from crisp.store import GapHandler, Handler, Lease, LogWrite, Store, Unsubscribe, Versioned

log = logging.getLogger("crisp.server.store")

T = TypeVar("T")

OPS = (
    "create", "load", "save", "delete", "exists", "publish", "subscribe",
    "claim_due", "next_due_ms", "room_count", "ping", "spend", "claim_mark", "return_mark",
    "put_leases", "renew_leases", "drop_lease", "claim_expired_leases",
    "put_ticket", "take_ticket", "read_log",
)


class ObservedStore(Store):
    """Delegates to `inner`, reporting each call's latency and outcome to `hooks`."""

    def __init__(self, inner: Store, hooks: ServerHooks) -> None:
        self.inner = inner
        self.hooks = hooks
        self._failing: set[str] = set()

    def _report(self, op: str, code: str | None, started: float, error: str | None) -> None:
        self.hooks.store_op(op, time.perf_counter() - started, error is None)
        where = f"room {code}: " if code else ""
        extra = fields(code, "store_failure" if error else "store_ok", op=op)
        if error is not None and op not in self._failing:
            self._failing.add(op)
            log.warning("%sstore %s failed: %s", where, op, error, extra=extra)
        elif error is None and op in self._failing:
            self._failing.discard(op)
            log.info("store %s works again", op, extra=extra)

    async def _call(self, op: str, code: str | None, call: Awaitable[T]) -> T:
        started = time.perf_counter()
        try:
            result = await call
        except Exception as exc:
            self._report(op, code, started, str(exc) or type(exc).__name__)
            raise
        self._report(op, code, started, None)
        return result

    async def start(self) -> None:
        await self.inner.start()

    async def close(self) -> None:
        await self.inner.close()

    async def ping(self) -> bool:
        started = time.perf_counter()
        ok = await self.inner.ping()
        self._report("ping", None, started, None if ok else "no answer")
        return ok

    async def create(self, code: str, doc: str, deadline_ms: int | None = None) -> bool:
        return await self._call("create", code, self.inner.create(code, doc, deadline_ms))

    async def load(self, code: str) -> Versioned | None:
        return await self._call("load", code, self.inner.load(code))

    async def save(
        self,
        code: str,
        expected_version: int,
        doc: str,
        *,
        message: str | None = None,
        deadline_ms: int | None = None,
        log: LogWrite | None = None,
    ) -> int | None:
        call = self.inner.save(
            code, expected_version, doc, message=message, deadline_ms=deadline_ms, log=log
        )
        return await self._call("save", code, call)

    async def read_log(self, code: str, start: int, count: int) -> list[str]:
        return await self._call("read_log", code, self.inner.read_log(code, start, count))

    async def claim_mark(self, code: str, name: str, value: int) -> int | None:
        return await self._call("claim_mark", code, self.inner.claim_mark(code, name, value))

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

    async def next_due_ms(self) -> int | None:
        return await self._call("next_due_ms", None, self.inner.next_due_ms())

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
