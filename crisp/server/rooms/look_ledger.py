"""Owed looks (R16.3 revised): a card a seat may look at is shown on one of its
live connections, once, however its connections come and go.

The engine records each seat's valid looks of the round with a table-wide `seq`
(`engine.looks_for`, `engine.owed_peeks`); events that show a look carry it in
`Event.look`. The room's record in the store keeps, per seat, the highest `seq`
that reached a live connection of the seat: the mark `looks:<player id>`
(`Store.claim_mark`), next to the document, so it survives restarts and is
shared by every process, and setting it bumps no version and publishes nothing.

Every update a connection builds goes through `plan`: the peeks the seat is
still owed (valid looks above what the connection knows was delivered, e.g. at
the first update after `hello`, or after an update lost in transit) come first,
oldest first, then the change's own events. Right before writing, the
connection claims the highest `seq` it is about to show (`LookLedger.claim`,
one atomic "raise the mark"): the previous mark says which of those looks
another connection of the seat delivered meanwhile, and those peeks are left
out, so two racing connections show a look exactly once. If the write then
fails, the claim is given back (`LookLedger.give_back`) and the looks stay owed.

A claim is only a promise until the update is written: after the write the
connection confirms it (`LookLedger.confirm`: the mark `shown:<player id>`); the
claim notes when it was made (`claimed:<player id>`, a time that only grows), in
the same store call as the claim itself (`Store.claim_marks`). A later
claim that finds looks claimed but never confirmed, by a claim older than
`STALE_MS`, knows the claimer died between its claim and its write (issue 23): it
shows them itself. A confirm that cannot reach the store (the claim's outcome was
unknown, or the store went away meanwhile) is tried again until it can, so that a
later connection does not show them a second time.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from crisp import engine
from crisp.engine import Event
from crisp.engine.vocabulary import EventKind
from crisp.server.rooms.serverclock import Clock
from crisp.server.wire.rules import RoomState
from crisp.store import OutcomeUnknown, Store, StoreUnavailable

log = logging.getLogger("crisp.server.rooms.look_ledger")


def shown_look(ev: Event, pid: str) -> int | None:
    """The `seq` of the look `ev` shows `pid` (a peek of theirs, or the swap of a card
    they drew), or None."""
    if ev.look is not None and ev.data.get("player") == pid:
        return int(ev.look)
    return None


def plan(state: RoomState, events: list[Any], pid: str, known: int) -> tuple[list[Any], int]:
    """The events of an update of `state` for `pid`, before redaction, and the highest
    look `seq` above `known` they show (0 if none). A table room owes no look (its
    events go as they are: R16.3's looks are Crisp's).

    `known`: every look up to this `seq` reached a live connection of the seat. The
    peeks still owed (valid looks above `known` that `events` does not show) come
    first, in the order they arose; then `events`, without peeks at or below
    `known` (delivered already)."""
    if not isinstance(state, engine.State):
        return events, 0
    in_events = {s for ev in events if (s := shown_look(ev, pid)) is not None}
    owed = [ev for ev in engine.owed_peeks(state, pid, known) if ev.look not in in_events]
    kept = without_peeks(events, pid, known) if in_events else events
    shown = [s for ev in owed + kept if (s := shown_look(ev, pid)) is not None]
    return owed + kept, max((s for s in shown if s > known), default=0)


def without_peeks(events: list[Any], pid: str, upto: int, above: bool = False) -> list[Any]:
    """`events` without `pid`'s peeks at or below `upto` (with `above`: above it)."""
    out = []
    for ev in events:
        seq = shown_look(ev, pid) if ev.kind == EventKind.PEEK else None
        if seq is None or (seq > upto) != above:
            out.append(ev)
    return out


STALE_MS = 10_000  # a claim not confirmed by then: its claimer died before writing
CONFIRM_TRIES = 40  # a confirm that cannot reach the store, tried again (backing off)


class LookLedger:
    """The marks of one room: up to which look `seq` each seat was shown."""

    def __init__(self, store: Store, room_code: str, clock: Clock | None = None) -> None:
        self.store = store
        self.room_code = room_code
        self.clock = clock or Clock()
        self._retries: set[asyncio.Task[None]] = set()

    async def claim(self, pid: str, seq: int, known: int) -> int | None:
        """Mark the looks up to `seq` as shown to `pid` (the caller shows them now);
        returns the mark as it was: looks at or below it were shown elsewhere. None
        if the store cannot be reached (nothing marked: the looks stay owed). An
        unknown outcome counts as claimed from `known`: better a look shown twice
        than never. A room that is gone gives `known` (its sockets are closing).

        One store call (`Store.claim_marks`, issue 27): the claim (`looks:`), the
        confirmed mark read (`shown:`) and the claim's time (`claimed:`), whose value
        before this claim says whether an unconfirmed claim is stale."""
        now = self.clock.now_ms()
        try:
            was = await self.store.claim_marks(
                self.room_code, {"looks:" + pid: seq, "shown:" + pid: 0, "claimed:" + pid: now})
        except OutcomeUnknown:
            return known
        except StoreUnavailable:
            return None
        if was is None:
            return known
        previous, shown = was["looks:" + pid], was["shown:" + pid]
        if previous > shown and now - was["claimed:" + pid] >= STALE_MS:
            # claimed and never confirmed, by a claim so old that its claimer died
            log.warning("room %s: looks %d..%d of %s were claimed and never shown; "
                        "showing them", self.room_code, shown + 1, previous, pid)
            previous = shown
        return max(previous, shown)

    async def confirm(self, pid: str, seq: int) -> None:
        """The update showing the looks up to `seq` was written: they are shown. If the
        store cannot be reached, tried again in the background until it can."""
        try:
            await self.store.claim_mark(self.room_code, "shown:" + pid, seq)
        except StoreUnavailable:  # OutcomeUnknown too
            task = asyncio.create_task(self._confirm_later(pid, seq),
                                       name=f"confirm-{self.room_code}-{pid}")
            self._retries.add(task)
            task.add_done_callback(self._retries.discard)

    async def _confirm_later(self, pid: str, seq: int) -> None:
        for attempt in range(CONFIRM_TRIES):
            await asyncio.sleep(min(0.05 * 2**attempt, 2.0))  # real time: the store's
            try:
                await self.store.claim_mark(self.room_code, "shown:" + pid, seq)
                return
            except StoreUnavailable:
                continue
        log.warning("room %s: looks of %s up to %d stay unconfirmed", self.room_code, pid, seq)

    async def give_back(self, pid: str, seq: int, previous: int) -> None:
        """The update claiming looks up to `seq` could not be written: they are owed
        again (unless a later claim came first)."""
        try:
            await self.store.return_mark(self.room_code, "looks:" + pid, seq, previous)
        except StoreUnavailable as exc:
            log.warning("room %s: looks of %s stay marked as shown: %s", self.room_code, pid,
                        exc)
