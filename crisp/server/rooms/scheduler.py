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

from crisp.server.rooms.leases import expire_leases
from crisp.server.rooms.loops import StoreLoop, Wakeup
from crisp.server.rooms.serverclock import Clock

if TYPE_CHECKING:
    from crisp.server.rooms.service import Rooms
    from crisp.store import Store

log = logging.getLogger("crisp.server.rooms.scheduler")

POLL_MS = 50
LEASE_MS = 3000
CLAIM_LIMIT = 100
CONCURRENCY = 16
SLEEPER = "scheduler"  # its name on a manual clock (serverclock.py)


class Scheduler:
    """Wakes rooms at their deadlines: a `StoreLoop` (loops.py) whose step claims
    what is due and whose sleep ends at the next deadline, or earlier through
    `wakeup` (a room of this process saved a sooner one: `RoomEvents.deadline`)."""

    def __init__(
        self,
        store: Store,
        clock: Clock,
        rooms: Rooms,
        wakeup: Wakeup,
        *,
        poll_ms: int = POLL_MS,
        lease_ms: int = LEASE_MS,
        lease_check_ms: int = 1000,
        lease_life_ms: int = 15_000,
    ) -> None:
        self.store = store
        self.clock = clock
        self.rooms = rooms
        self.poll_ms = poll_ms
        self.lease_ms = lease_ms
        self.lease_check_ms = lease_check_ms
        self.lease_life_ms = lease_life_ms  # a presence lease's length (leases.LeaseTimes)
        self._next_lease_check = 0
        self._sem = asyncio.Semaphore(CONCURRENCY)
        self.loop = StoreLoop(SLEEPER, clock, self._step, log, wakeup)

    def start(self) -> None:
        """Start the background task."""
        self.loop.start()

    async def stop(self) -> None:
        """Stop the background task (bounded)."""
        await self.loop.stop()

    async def _step(self) -> float:
        if await self.tick() >= CLAIM_LIMIT:
            return 0  # more may be due: at once
        return await self._delay()

    async def _delay(self) -> int:
        # what the claim just read of the schedule (and this process's saves since)
        due = await self.store.next_due_ms(known_ms=self.poll_ms)
        now = self.clock.now_ms()
        wait = self.poll_ms if due is None else max(0, min(self.poll_ms, due - now))
        return max(0, min(wait, self._next_lease_check - now))

    async def tick(self) -> int:
        """Claim and advance the rooms that are due now (and, when it is time, expire
        the presence leases that ran out); returns how many rooms and leases."""
        now = self.clock.now_ms()
        expired = 0
        if now >= self._next_lease_check:
            self._next_lease_check = now + self.lease_check_ms
            expired = await expire_leases(self.store, self.rooms, now, self.lease_life_ms,
                                          CLAIM_LIMIT)
        codes = await self.store.claim_due(self.clock.now_ms(), self.lease_ms, CLAIM_LIMIT)
        if codes:
            await asyncio.gather(*(self._advance(code) for code in codes))
        return len(codes) + expired

    async def _advance(self, code: str) -> None:
        async with self._sem:
            try:
                await self.rooms.advance(code)
            except Exception:
                log.exception("room %s: advancing a deadline failed", code)
