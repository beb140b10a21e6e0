"""The deadline scheduler: one background task per process.

Rooms keep their next deadline in the store (set by every save from
`engine.next_deadline`). The task repeatedly claims due rooms with
`store.claim_due(now, lease)` and advances each (`engine.advance`) through the
normal compare-and-set path, which stores the following deadline. It sleeps until
the next due time, at most `poll_ms`, and wakes early when this process saves an
earlier deadline. Several processes on one Redis are safe: a claim moves the
deadline to a lease (only one claimer gets a room; a claimer that dies is retried
after the lease) and CAS makes each change happen once. Deadlines survive
restarts because they live in the store.

Every `lease_check_ms` the same loop also claims the presence leases that ran
out (`presence.expire_leases`, R17.3): a seat whose connections all died with
their process is marked disconnected by whichever process claims its lease.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from crisp.store import StoreUnavailable

from .clock import Clock
from .presence import expire_leases

if TYPE_CHECKING:
    from crisp.store import Store

    from .rooms import Rooms

log = logging.getLogger("crisp.server.scheduler")

POLL_MS = 50
LEASE_MS = 3000
CLAIM_LIMIT = 100
CONCURRENCY = 16
STOP_TIMEOUT_S = 3.0
SLEEPER = "scheduler"  # its name on a manual clock (clock.py)


class Scheduler:
    """Wakes rooms at their deadlines."""

    def __init__(
        self,
        store: Store,
        clock: Clock,
        *,
        poll_ms: int = POLL_MS,
        lease_ms: int = LEASE_MS,
        lease_check_ms: int = 1000,
    ) -> None:
        self.store = store
        self.clock = clock
        self.rooms: Rooms | None = None
        self.poll_ms = poll_ms
        self.lease_ms = lease_ms
        self.lease_check_ms = lease_check_ms
        self._next_lease_check = 0
        self._wake = asyncio.Event()
        self._sleep_until = 0
        self._task: asyncio.Task[None] | None = None
        self._sem = asyncio.Semaphore(CONCURRENCY)
        self._failing = False
        self._stopping = False

    def notify(self, deadline_ms: int) -> None:
        """A room of this process got `deadline_ms`; wake up early if that is sooner."""
        if deadline_ms < self._sleep_until:
            self._wake.set()

    def start(self, rooms: Rooms) -> None:
        """Start the background task."""
        self.rooms = rooms
        self._task = asyncio.create_task(self._run(), name="crisp-scheduler")

    async def stop(self) -> None:
        """Stop the background task (bounded: a swallowed cancellation cannot hang it)."""
        task, self._task = self._task, None
        if task is None:
            return
        self._stopping = True
        self._wake.set()
        task.cancel()
        await asyncio.wait({task}, timeout=STOP_TIMEOUT_S)
        if not task.done():
            log.warning("scheduler did not stop within %.0f s", STOP_TIMEOUT_S)
        elif not task.cancelled() and task.exception() is not None:
            log.warning("scheduler ended with %r", task.exception())

    async def _run(self) -> None:
        # Python 3.11's wait_for/timeout can lose a cancel() that races a timeout,
        # so the loop also checks a flag.
        while not self._stopping:
            try:
                count = await self.tick()
                if count >= CLAIM_LIMIT:
                    continue
                delay = await self._delay()
                if self._failing:
                    log.warning("scheduler: the store answers again")
                    self._failing = False
            except asyncio.CancelledError:
                raise
            except StoreUnavailable as exc:
                if not self._failing:
                    log.warning("scheduler: store unavailable (%s); retrying", exc)
                    self._failing = True
                delay = 500
            except Exception:
                log.exception("scheduler tick failed")
                delay = 500
            self._sleep_until = self.clock.now_ms() + delay
            self._wake.clear()
            if self._stopping:
                return
            await self.clock.sleep(delay, self._wake, name=SLEEPER)

    async def _delay(self) -> int:
        due = await self.store.next_due_ms()
        now = self.clock.now_ms()
        wait = self.poll_ms if due is None else max(0, min(self.poll_ms, due - now))
        return max(0, min(wait, self._next_lease_check - now))

    async def tick(self) -> int:
        """Claim and advance the rooms that are due now (and, when it is time, expire
        the presence leases that ran out); returns how many rooms and leases."""
        now = self.clock.now_ms()
        expired = 0
        if now >= self._next_lease_check:
            assert self.rooms is not None
            self._next_lease_check = now + self.lease_check_ms
            expired = await expire_leases(self.store, self.rooms, now, CLAIM_LIMIT)
        codes = await self.store.claim_due(self.clock.now_ms(), self.lease_ms, CLAIM_LIMIT)
        if codes:
            await asyncio.gather(*(self._advance(code) for code in codes))
        return len(codes) + expired

    async def _advance(self, code: str) -> None:
        assert self.rooms is not None
        async with self._sem:
            try:
                await self.rooms.advance(code)
            except Exception:
                log.exception("room %s: advancing a deadline failed", code)
