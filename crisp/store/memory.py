"""In-process store: the embedded default when only one server process runs.

Every operation runs without awaiting in between, so under asyncio each one is atomic
with respect to the others. Expired rooms are treated as gone on access and removed
by a periodic sweep (started by start()), so nothing leaks."""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from crisp.store.base import (
    DEFAULT_IDLE_TTL_S,
    GapHandler,
    Handler,
    Lease,
    NewVersion,
    Store,
    Unsubscribe,
    Versioned,
    spend_at,
)
from crisp.store.fanout import Fanout

BUDGET_SWEEP_AT = 100_000  # budgets kept before full ones are dropped early


@dataclass
class _Room:
    version: int
    doc: str
    expires_at: float  # time.monotonic()
    marks: dict[str, int] = field(default_factory=dict)
    log: list[str] = field(default_factory=list)  # the room's log (LogWrite), gone with it


class MemoryStore(Store):
    """A Store kept in this process's memory.

    `clock`: the budgets' clock (`spend`), in seconds; None reads `time.monotonic()`
    at each call. Tests inject one to move a bucket's time instead of waiting for it
    (issue 34); rooms and tickets keep `time.monotonic()`."""

    def __init__(
        self, *, idle_ttl_s: int = DEFAULT_IDLE_TTL_S, clock: Callable[[], float] | None = None
    ) -> None:
        self._ttl = float(idle_ttl_s)
        self._clock = clock
        self._rooms: dict[str, _Room] = {}
        self._deadlines: dict[str, int] = {}
        self._heap: list[tuple[int, str]] = []  # (deadline, code); stale entries skipped
        self._leases: dict[Lease, int] = {}
        self._lease_heap: list[tuple[int, Lease]] = []  # (until, lease); stale entries skipped
        self._budgets: dict[str, float] = {}  # key -> theoretical arrival time (monotonic ms)
        self._budget_sweep_at = BUDGET_SWEEP_AT
        self._tickets: dict[str, tuple[str, float]] = {}  # key -> (value, expiry, monotonic)
        self._fanout = Fanout()
        self._sweeper: asyncio.Task[None] | None = None

    # -- lifecycle ---------------------------------------------------------------

    async def start(self) -> None:
        if self._sweeper is None:
            self._sweeper = asyncio.create_task(self._sweep_loop(), name="crisp-store-sweep")

    async def close(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sweeper
            self._sweeper = None
        await self._fanout.close()

    async def ping(self) -> bool:
        return True

    async def _sweep_loop(self) -> None:
        interval = min(60.0, max(0.5, self._ttl / 4))
        while True:
            await asyncio.sleep(interval)
            self._sweep()

    def _sweep(self) -> None:
        now = time.monotonic()
        for code in [c for c, r in self._rooms.items() if r.expires_at <= now]:
            self._drop(code)
        self._sweep_budgets(self._budget_now_ms())
        for key in [k for k, (_, until) in self._tickets.items() if until <= now]:
            del self._tickets[key]

    def _sweep_budgets(self, now_ms: float) -> None:
        """Drop the budgets that are full again (amortised: the next early sweep waits
        until the table has doubled)."""
        for key in [k for k, tat in self._budgets.items() if tat <= now_ms]:
            del self._budgets[key]
        self._budget_sweep_at = max(BUDGET_SWEEP_AT, 2 * len(self._budgets))

    # -- rooms -------------------------------------------------------------------

    def _live(self, code: str) -> _Room | None:
        room = self._rooms.get(code)
        if room is not None and room.expires_at <= time.monotonic():
            self._drop(code)
            return None
        return room

    def _drop(self, code: str) -> None:
        self._rooms.pop(code, None)
        self._deadlines.pop(code, None)

    async def create(self, code: str, doc: str, deadline_ms: int | None = None) -> bool:
        if self._live(code) is not None:
            return False
        self._rooms[code] = _Room(1, doc, time.monotonic() + self._ttl)
        self._set_deadline(code, deadline_ms)
        return True

    async def load(self, code: str) -> Versioned | None:
        room = self._live(code)
        return None if room is None else Versioned(room.version, room.doc)

    async def _save(self, code: str, expected_version: int, new: NewVersion) -> int | None:
        room = self._live(code)
        if room is None or room.version != expected_version:
            return None
        room.version += 1
        room.doc = new.doc
        room.expires_at = time.monotonic() + self._ttl
        if new.log is not None:
            if new.log.reset:
                room.log = []
            del room.log[: new.log.trim]
            room.log.extend(new.log.append)
        self._set_deadline(code, new.deadline_ms)
        if new.message is not None:
            self._fanout.deliver(code, new.message)
        return room.version

    async def read_log(self, code: str, start: int, count: int) -> list[str]:
        room = self._live(code)
        if room is None or start < 0 or count <= 0:
            return []
        return room.log[start : start + count]

    async def claim_mark(self, code: str, name: str, value: int) -> int | None:
        room = self._live(code)
        if room is None:
            return None
        previous = room.marks.get(name, 0)
        if value > previous:
            room.marks[name] = value
        return previous

    async def claim_marks(self, code: str, marks: Mapping[str, int]) -> dict[str, int] | None:
        room = self._live(code)
        if room is None:
            return None
        out = {name: room.marks.get(name, 0) for name in marks}
        for name, value in marks.items():
            if value > out[name]:
                room.marks[name] = value
        return out

    async def return_mark(self, code: str, name: str, claimed: int, previous: int) -> None:
        room = self._live(code)
        if room is not None and room.marks.get(name, 0) == claimed:
            room.marks[name] = previous

    async def delete(self, code: str) -> None:
        self._drop(code)

    async def exists(self, code: str) -> bool:
        return self._live(code) is not None

    async def room_count(self) -> int:
        self._sweep()
        return len(self._rooms)

    # -- budgets -----------------------------------------------------------------

    def _budget_now_ms(self) -> float:
        return (self._clock or time.monotonic)() * 1000.0

    async def spend(
        self, key: str, cost: float = 1.0, *, per_s: float, burst: float, force: bool = False
    ) -> float:
        now = self._budget_now_ms()
        new, wait = spend_at(self._budgets.get(key, now), now, cost, per_s, burst, force)
        if new is not None:
            if new <= now:
                self._budgets.pop(key, None)
            else:
                self._budgets[key] = new
                if len(self._budgets) > self._budget_sweep_at:  # many clients
                    self._sweep_budgets(now)
        return wait

    # -- one-time tickets (R18.5) ------------------------------------------------

    async def put_ticket(self, key: str, value: str, ttl_ms: int) -> bool:
        now = time.monotonic()
        held = self._tickets.get(key)
        if held is not None and held[1] > now:
            return False
        self._tickets[key] = (value, now + ttl_ms / 1000.0)
        return True

    async def take_ticket(self, key: str) -> str | None:
        held = self._tickets.pop(key, None)
        return None if held is None or held[1] <= time.monotonic() else held[0]

    # -- pub/sub -----------------------------------------------------------------

    async def publish(self, code: str, message: str) -> None:
        self._fanout.deliver(code, message)

    async def subscribe(
        self, code: str, handler: Handler, on_gap: GapHandler | None = None
    ) -> Unsubscribe:
        # In one process nothing is ever lost: `on_gap` is never called.
        sub, _ = self._fanout.add(code, handler, on_gap)

        async def unsubscribe() -> None:
            await self._fanout.remove(sub)

        return unsubscribe

    # -- deadlines ---------------------------------------------------------------

    def _set_deadline(self, code: str, deadline_ms: int | None) -> None:
        if deadline_ms is None:
            self._deadlines.pop(code, None)
            return
        if self._deadlines.get(code) == deadline_ms:
            return
        self._deadlines[code] = deadline_ms
        heapq.heappush(self._heap, (deadline_ms, code))
        if len(self._heap) > 2 * len(self._deadlines) + 64:  # compact stale entries
            self._heap = [(d, c) for c, d in self._deadlines.items()]
            heapq.heapify(self._heap)

    def _pop_stale(self) -> None:
        while self._heap:
            deadline, code = self._heap[0]
            if self._deadlines.get(code) == deadline and self._live(code) is not None:
                return
            heapq.heappop(self._heap)

    async def claim_due(self, now_ms: int, lease_ms: int, limit: int = 100) -> list[str]:
        if limit <= 0:
            return []
        claimed: list[str] = []
        while len(claimed) < limit:
            self._pop_stale()
            if not self._heap or self._heap[0][0] > now_ms:
                break
            _, code = heapq.heappop(self._heap)
            del self._deadlines[code]  # a duplicate heap entry for it is now stale
            claimed.append(code)
        for code in claimed:
            self._set_deadline(code, now_ms + lease_ms)
        return claimed

    async def next_due_ms(self, *, known_ms: int = 0) -> int | None:
        self._pop_stale()
        return self._heap[0][0] if self._heap else None

    # -- presence leases ---------------------------------------------------------

    def _hold(self, lease: Lease, until_ms: int) -> None:
        if self._leases.get(lease) == until_ms:
            return
        self._leases[lease] = until_ms
        heapq.heappush(self._lease_heap, (until_ms, lease))
        if len(self._lease_heap) > 2 * len(self._leases) + 64:  # compact stale entries
            self._lease_heap = [(u, x) for x, u in self._leases.items()]
            heapq.heapify(self._lease_heap)

    async def put_leases(self, leases: Sequence[Lease], until_ms: int) -> None:
        for lease in leases:
            self._hold(lease, until_ms)

    async def renew_leases(self, leases: Sequence[Lease], until_ms: int) -> list[bool]:
        held = [lease in self._leases for lease in leases]
        for lease, ok in zip(leases, held, strict=True):
            if ok:
                self._hold(lease, until_ms)
        return held

    async def drop_lease(self, lease: Lease) -> None:
        self._leases.pop(lease, None)

    async def claim_expired_leases(
        self, now_ms: int, claim_ms: int, limit: int = 100
    ) -> list[Lease]:
        claimed: list[Lease] = []
        heap = self._lease_heap
        while heap and len(claimed) < limit and heap[0][0] <= now_ms:
            until, lease = heapq.heappop(heap)
            if self._leases.get(lease) != until:
                continue  # stale: renewed or dropped since
            if self._live(lease.code) is None:
                del self._leases[lease]
                continue
            claimed.append(lease)
        for lease in claimed:
            self._hold(lease, now_ms + claim_ms)
        return claimed
