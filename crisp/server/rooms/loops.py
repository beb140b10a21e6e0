"""The store-backed background loops of a process (the deadline scheduler and the
presence renewals): one task each that runs a step, sleeps on the server's clock
for as long as the step says (or until woken), and goes on; a store that does not
answer is logged once when it starts failing and once when it answers again, and
the step is tried again `RETRY_MS` later. Stopping is bounded: a cancellation that
a step swallows cannot hang shutdown.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from crisp.server.rooms.serverclock import Clock
from crisp.store import StoreUnavailable

RETRY_MS = 500  # after a failed step
STOP_TIMEOUT_S = 3.0

Step = Callable[[], Awaitable[float]]  # one round of work; returns the ms to sleep


class Wakeup:
    """Wakes a sleeping loop early: `at(ms)` when something falls due at `ms`, earlier
    than the time the loop sleeps until."""

    def __init__(self) -> None:
        self.event = asyncio.Event()
        self.sleep_until = 0

    def at(self, due_ms: int) -> None:
        if due_ms < self.sleep_until:
            self.event.set()


class StoreLoop:
    """`step()` again and again, on the clock (see the module docstring)."""

    def __init__(
        self, name: str, clock: Clock, step: Step, log: logging.Logger,
        wakeup: Wakeup | None = None,
    ) -> None:  # fmt: skip
        self.name = name
        self.clock = clock
        self.step = step
        self.log = log
        self.wakeup = wakeup
        self._task: asyncio.Task[None] | None = None
        self._failing = False
        self._stopping = False

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=f"crisp-{self.name}")

    async def stop(self) -> None:
        """Stop the task (bounded)."""
        task, self._task = self._task, None
        if task is None:
            return
        self._stopping = True
        if self.wakeup is not None:
            self.wakeup.event.set()
        task.cancel()
        await asyncio.wait({task}, timeout=STOP_TIMEOUT_S)
        if not task.done():
            self.log.warning("%s did not stop within %.0f s", self.name, STOP_TIMEOUT_S)
        elif not task.cancelled() and task.exception() is not None:
            self.log.warning("%s ended with %r", self.name, task.exception())

    async def _run(self) -> None:
        # Python 3.11's wait_for/timeout can lose a cancel() that races a timeout,
        # so the loop also checks a flag.
        while not self._stopping:
            try:
                delay = await self.step()
                if self._failing:
                    self.log.warning("%s: the store answers again", self.name)
                    self._failing = False
            except asyncio.CancelledError:
                raise
            except StoreUnavailable as exc:
                if not self._failing:
                    self.log.warning("%s: store unavailable (%s); retrying", self.name, exc)
                    self._failing = True
                delay = RETRY_MS
            except Exception:
                self.log.exception("%s: a step failed", self.name)
                delay = RETRY_MS
            if self._stopping:
                return
            wake = None
            if self.wakeup is not None:
                self.wakeup.sleep_until = self.clock.now_ms() + int(delay)
                self.wakeup.event.clear()
                wake = self.wakeup.event
            await self.clock.sleep(delay, wake, name=self.name)
