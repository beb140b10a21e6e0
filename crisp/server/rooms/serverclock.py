"""The server's one clock seam: every `now` of the game and every wait on game time.

`Clock` is real time: integer milliseconds since the Unix epoch (protocol.md),
and `sleep` waits on the event loop. The rooms service (each change's `now`),
the deadline scheduler, presence leases (R17.3) and each update's `now` all read
the one `Clock` handed to them at construction (`context.start_context`), so
nothing in the server reads the wall clock for game time by itself.

`ManualClock` (only with `CRISP_TEST_HOOKS=1` and `CRISP_CLOCK=manual`) stands
still until a test moves it: `advance_to` steps it through every wake-up due on
the way, in time order, and after each step lets the server settle (the
scheduler and presence loops back asleep, every update written), so that a test
checks a deadline of R10.4, R14, R16.2 or R17 by advancing the clock instead of
waiting for it (docs/server.md, "Time in tests"). The pattern is Colyseus'
`Clock` and trio's `MockClock`.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import math
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field


class Clock:
    """Real time (the default)."""

    manual = False

    def now_ms(self) -> int:
        """Current wall-clock time in ms."""
        return time.time_ns() // 1_000_000

    async def sleep(self, ms: float, wake: asyncio.Event | None = None, *, name: str = "") -> None:
        """Return once `ms` of this clock have passed, or earlier when `wake` is set.
        `name` names the waiting loop (a manual clock knows who is asleep)."""
        if wake is None:
            await asyncio.sleep(max(0.0, ms) / 1000)
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(wake.wait(), max(0.0, ms) / 1000)


async def _until_set(event: asyncio.Event) -> None:
    await event.wait()


@dataclass(eq=False)
class _Sleeper:
    wake_at: int
    name: str
    future: asyncio.Future[None]
    order: int = field(default=0)


Settle = Callable[[], Awaitable[None]]
SETTLE_SPINS = 20  # loop turns tried before waiting a millisecond between checks
SETTLE_LIMIT_S = 10.0  # a server that has not settled by then is stuck: an error


EPOCH_MS = 1_893_456_000_000  # 2030-01-01T00:00:00Z: where every manual clock starts


class ManualClock(Clock):
    """A clock that moves only when told to (test hooks). Every manual clock starts at
    `EPOCH_MS`, so that the processes of a test on one store start at one time and a
    process started later is never ahead of the others (a test lines them up)."""

    manual = True

    def __init__(self, start_ms: int = EPOCH_MS) -> None:
        self._now = start_ms
        self._sleepers: set[_Sleeper] = set()
        self._order = itertools.count()
        self._lock: asyncio.Lock | None = None

    def now_ms(self) -> int:
        return self._now

    async def sleep(self, ms: float, wake: asyncio.Event | None = None, *, name: str = "") -> None:
        if ms <= 0 or (wake is not None and wake.is_set()):
            await asyncio.sleep(0)
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        sleeper = _Sleeper(self._now + math.ceil(ms), name, future, next(self._order))
        self._sleepers.add(sleeper)
        waiter = None if wake is None else asyncio.ensure_future(_until_set(wake))
        try:
            if waiter is None:
                await future
            else:
                await asyncio.wait(
                    [future, waiter], return_when=asyncio.FIRST_COMPLETED
                )
        finally:
            self._sleepers.discard(sleeper)
            if waiter is not None:
                waiter.cancel()

    def asleep(self, name: str) -> bool:
        """True if the loop `name` waits on this clock for a later time."""
        return any(
            s.name == name and not s.future.done() and s.wake_at > self._now
            for s in self._sleepers
        )

    def next_wake(self) -> int | None:
        """The earliest time a sleeper waits for, or None."""
        times = [s.wake_at for s in self._sleepers if not s.future.done()]
        return min(times) if times else None

    async def settled(
        self, names: tuple[str, ...], idle: Callable[[], bool] = lambda: True
    ) -> None:
        """Wait until every loop of `names` sleeps on this clock for a later time and
        `idle()` holds (the server has nothing left to do at this moment)."""
        loop = asyncio.get_running_loop()
        give_up = loop.time() + SETTLE_LIMIT_S
        spins = 0
        while not (all(self.asleep(name) for name in names) and idle()):
            if loop.time() > give_up:
                asleep = {name: self.asleep(name) for name in names}
                raise RuntimeError(f"the server did not settle: asleep {asleep}, idle {idle()}")
            spins += 1
            await asyncio.sleep(0 if spins < SETTLE_SPINS else 0.001)

    async def advance_to(self, target: int, settle: Settle) -> int:
        """Move the clock forward to `target` (never back), stepping through every
        sleeper's wake-up on the way in time order and settling the server after
        each step; returns the new time. Concurrent calls run one after another."""
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            while True:
                await settle()
                due = [s.wake_at for s in self._sleepers
                       if not s.future.done() and s.wake_at <= target]
                if not due:
                    break
                self._now = max(self._now, min(due))
                for sleeper in sorted(self._sleepers, key=lambda s: s.order):
                    if sleeper.wake_at <= self._now and not sleeper.future.done():
                        sleeper.future.set_result(None)
            self._now = max(self._now, target)
            await settle()
            return self._now
