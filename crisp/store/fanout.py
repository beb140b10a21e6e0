"""Local delivery of room messages to this process's subscribers (both backends).

Each `Subscription` has its own unbounded queue and worker task, so handlers run
one message at a time and in publish order, a slow handler delays only itself,
and a publisher never runs handler code (no re-entrancy). A backend that may have
lost messages (its connection dropped) calls `lost(code)`: each subscriber's
`on_gap` then runs in its turn, between the messages before and after the loss."""

from __future__ import annotations

import asyncio
import contextlib
import logging

from crisp.store.base import GapHandler, Handler

log = logging.getLogger(__name__)


class Subscription:
    """One local subscriber of a room: the handle `Fanout.add` returns and
    `Fanout.remove` takes."""

    __slots__ = ("closed", "code", "handler", "on_gap", "queue", "task")

    def __init__(self, code: str, handler: Handler, on_gap: GapHandler | None = None) -> None:
        self.code = code
        self.handler = handler
        self.on_gap = on_gap
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()  # None: messages were lost
        self.closed = False
        self.task = asyncio.get_running_loop().create_task(
            self._run(), name=f"crisp-store-sub-{code}"
        )

    async def _run(self) -> None:
        while not self.closed:
            message = await self.queue.get()
            if self.closed:
                return
            try:
                if message is not None:
                    await self.handler(message)
                elif self.on_gap is not None:
                    await self.on_gap()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("room %s: subscriber handler failed", self.code)

    async def stop(self) -> None:
        """End the worker; the handler is not called again. Idempotent."""
        self.closed = True
        if self.task is asyncio.current_task():
            return  # unsubscribing from inside the handler: the loop ends after it
        self.task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self.task


class Fanout:
    """The local subscribers of each room."""

    def __init__(self) -> None:
        self._subs: dict[str, list[Subscription]] = {}

    def add(
        self, code: str, handler: Handler, on_gap: GapHandler | None = None
    ) -> tuple[Subscription, bool]:
        """Register a subscriber; the bool is True if it is the room's first one."""
        sub = Subscription(code, handler, on_gap)
        subs = self._subs.setdefault(code, [])
        subs.append(sub)
        return sub, len(subs) == 1

    async def remove(self, sub: Subscription) -> bool:
        """Stop a subscriber; True if it was the room's last one. Idempotent (False)."""
        subs = self._subs.get(sub.code)
        if subs is None or sub not in subs:
            return False
        subs.remove(sub)
        last = not subs
        if last:
            del self._subs[sub.code]
        await sub.stop()
        return last

    def has(self, code: str) -> bool:
        """True while the room has a local subscriber."""
        return code in self._subs

    def deliver(self, code: str, message: str) -> None:
        """Queue `message` for every local subscriber of the room."""
        for sub in self._subs.get(code, ()):
            sub.queue.put_nowait(message)

    def lost(self, code: str) -> None:
        """Messages of the room may have been lost: queue each subscriber's `on_gap`."""
        for sub in self._subs.get(code, ()):
            sub.queue.put_nowait(None)

    async def close(self) -> None:
        """Stop every subscriber."""
        subs = [s for lst in self._subs.values() for s in lst]
        self._subs.clear()
        for sub in subs:
            await sub.stop()
