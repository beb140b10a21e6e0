"""One websocket seat connection: its outgoing queue, `seq`, and projection.

Everything sent on a socket goes through `Connection.writer`, one task per
socket, so updates, errors and the close frame keep their order. Updates are
built here from published changes: `view_for(state, pid, now)` plus the events
redacted for `pid`, as text made from what the seats of the change share
(projection.py: the view serialised once, only this seat's parts added, each
event's text made once per variant); changes whose state version is not newer than the last one
sent are skipped (stale or duplicate), so a socket never goes back in time. A
refresh (after `outcome_unknown`) is the one update that may repeat the version
last sent: the client waits for it. Every update also carries, as `peek` events,
the looks the seat is still owed, claimed right before the write (look_ledger.py,
R16.3).

A seat behind never gets a backlog (issue 39): while its transport is paused for
writing (edge/wsprotocol.py), or once `BEHIND` items wait, a new table replaces the
tables queued before it (backlog.py); a close then goes at once (`_close_now`).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass

from starlette.websockets import WebSocket

from crisp.server.edge.sockbuf import PAUSED_KEY
from crisp.server.ops.faults import crash_at
from crisp.server.ops.hooks import NOOP_HOOKS, ServerHooks
from crisp.server.rooms.document import Change
from crisp.server.rooms.look_ledger import LookLedger, plan, without_peeks
from crisp.server.rooms.serverclock import Clock
from crisp.server.sockets.backlog import Refresh as _Refresh
from crisp.server.sockets.backlog import Resend as _Resend
from crisp.server.sockets.backlog import supersede
from crisp.server.sockets.lag import LagMeter
from crisp.server.wire.frames import error_message
from crisp.server.wire.projection import Shared
from crisp.server.wire.rules import RoomEvent, RoomState, is_table
from crisp.server.wire.vocabulary import CloseCode, EndReason
from crisp.store import Lease

log = logging.getLogger("crisp.server.sockets.connection")

MAX_QUEUE = 512
BEHIND = 16  # queued items from which a seat is behind (`_supersede`, issue 39)
MAX_MARKS = 32  # accepted actions awaiting their update, per socket


@dataclass(frozen=True)
class _Snapshot:
    state: RoomState
    locked: bool
    watchers: int = 0


@dataclass(frozen=True)
class _Text:
    text: str


@dataclass(frozen=True)
class _Close:
    close_code: int
    reason: str


@dataclass(frozen=True)
class _Mark:
    """An accepted action waiting for its update (for the latency hook)."""

    kind: str
    received: float  # time.perf_counter() when its message arrived
    version: int  # the state version its save produced


_Item = Change | _Refresh | _Resend | _Snapshot | _Text | _Close


class Connection:
    """A socket that passed hello and holds the seat of `player_id` in room `room_code`."""

    def __init__(
        self,
        ws: WebSocket,
        room_code: str,
        player_id: str,
        hooks: ServerHooks = NOOP_HOOKS,
        ledger: LookLedger | None = None,
        clock: Clock | None = None,
        on_looks_unsent: Callable[[Connection], None] | None = None,
        *,
        watcher: bool = False,
    ) -> None:
        self.ws = ws
        # the seat whose view this socket gets; None: a watcher, nobody's seat (R18.1)
        self.viewer: str | None = None if watcher else player_id
        self.clock = clock or Clock()
        self.ledger = ledger  # None: every look counts as shown once written (tests)
        self.looks_known = 0  # every look up to this seq reached a connection of the seat
        # Called when owed looks could not be claimed (store unreachable): the hub then
        # sends this socket the current table again once the store answers.
        self.on_looks_unsent = on_looks_unsent
        self.room_code = room_code
        self.player_id = player_id
        self.hooks = hooks
        self.id = secrets.token_hex(8)
        self.lease = Lease(room_code, player_id, self.id)  # its presence (leases.py)
        self.lag = LagMeter()  # its network delay (lag.py, R18.4)
        self.n: int | None = None  # this connection's number for the seat, once saved
        self.table_room = False  # a generic table's room (wire/rules.py), known at `snapshot`
        self.seq = 0
        self.last_version = -1
        self.started = False
        self.pending: list[Change | _Refresh | _Resend] = []
        self._awaiting_refresh = False  # an `outcome_unknown` was sent: see `refresh`
        self.end_reason: EndReason | None = None  # why this server ended it
        self.close_code: int | None = None  # the code this server closed with
        self.peer_close_code: int | None = None  # the code of a close it received
        self._marks: collections.deque[_Mark] = collections.deque(maxlen=MAX_MARKS)
        # What the writer sends next, in order, and the writer's wake-up while it waits
        # (a deque and a future made only then: an asyncio.Queue per socket held three
        # deques for its whole life; issue 27, memory per socket)
        self._queue: collections.deque[_Item] = collections.deque()
        self.superseded = 0  # queued tables replaced by a newer one (`_supersede`)
        # whether the socket's transport is paused for writing now (edge/wsprotocol.py)
        paused = getattr(ws, "scope", {}).get(PAUSED_KEY)
        self._write_paused: Callable[[], bool] = paused if callable(paused) else (lambda: False)
        self._wake: asyncio.Future[None] | None = None
        self._task: asyncio.Task[None] | None = None
        self._writing = False
        # the table last written, for `resend` (one reference: the State is the room's)
        self._last: tuple[RoomState, list[RoomEvent], bool, Shared | None, int] | None = None

    # ---- producers (never block) ----

    def start_writer(self) -> None:
        """Start the task that owns all sends on this socket."""
        name = f"ws-writer-{self.room_code}-{self.player_id}"
        self._task = asyncio.create_task(self._writer(), name=name)

    def snapshot(self, state: RoomState, locked: bool = False, watchers: int = 0) -> None:
        """Queue the first update after hello: the full view, and as events only the
        looks the seat is owed (R16.3). `locked`: the room's lobby is locked
        (`RoomDoc.locked`); `watchers`: how many watch (R18.1). It also says the
        room's kind: a table room's messages are its game's (`table_room`)."""
        self.table_room = is_table(state)
        self._put(_Snapshot(state, locked, watchers))

    def deliver(self, change: Change, *, refresh: bool = False) -> None:
        """Queue a room change for projection. `refresh`: the answer `expect_refresh`
        waits for; sent even with the version last sent, unless an update went out
        since."""
        self._put(_Refresh(change) if refresh else change)

    def resend(self) -> None:
        """Queue the table last written, again (`_Resend`)."""
        self._put(_Resend())

    def expect_refresh(self) -> None:
        """The client was told `outcome_unknown` and waits for its next update."""
        self._awaiting_refresh = True

    def send_error(
        self, error_code: str, message: str, ref: str | None = None, rule: str | None = None
    ) -> None:
        """Queue an `error` message."""
        self._put(_Text(error_message(error_code, message, ref, rule)))

    def close(
        self, close_code: CloseCode, reason: str, end_reason: EndReason | None = None
    ) -> None:
        """Queue the close frame; later items are dropped."""
        if self.close_code is None:
            self.close_code = close_code
            if end_reason is not None:
                self.end_reason = end_reason
            self._push(_Close(close_code, reason))
            task = self._task
            if self._writing and task is not None and not task.done() and self._write_paused():
                # its writer waits on a transport that does not move (issue 39): the
                # close goes now (the edge then aborts the socket after its grace)
                task.cancel()
                self._task = asyncio.ensure_future(self._close_now(close_code, reason))

    async def _close_now(self, close_code: int, reason: str) -> None:
        with contextlib.suppress(Exception):
            await self.ws.close(close_code, reason)

    def numbered(self, n: int) -> None:
        """The number the seat's connect (or reclaim) saved for this connection."""
        self.n = n

    def peer_closed(self, code: int | None) -> None:
        """The client closed the socket, or it dropped (`code` None: 1005). A 1012 we
        did not send is uvicorn's at a graceful stop: the end is a shutdown."""
        self.peer_close_code = int(code or CloseCode.NO_STATUS)
        if self.close_code is None and self.peer_close_code == CloseCode.RESTART:
            self.end_reason = EndReason.SHUTDOWN

    @property
    def closing(self) -> bool:
        return self.close_code is not None

    @property
    def final_close_code(self) -> int | None:
        """The close code that ended this socket: ours if we closed it, else the peer's
        (1012 when uvicorn closed it at shutdown, 1006 for a dropped connection)."""
        return self.close_code if self.close_code is not None else self.peer_close_code

    # ---- action -> update latency ----

    def action_saved(self, kind: str, received: float, version: int) -> None:
        """An action whose message arrived at `received` (perf_counter) was saved as
        state `version`; report its latency once an update that new has been sent."""
        mark = _Mark(kind, received, version)
        if self.last_version >= version:  # the update went out before the save returned
            self._report(mark)
        else:
            self._marks.append(mark)

    def _report(self, mark: _Mark) -> None:
        self.hooks.action_update(self.room_code, mark.kind, time.perf_counter() - mark.received)

    def _put(self, item: _Item) -> None:
        if self.closing:
            return
        if isinstance(item, Change | _Refresh) and self._queue and (
            len(self._queue) >= BEHIND or self._write_paused()
        ):
            item = self._supersede(item)
        if len(self._queue) >= MAX_QUEUE:
            log.warning(
                "room %s: %s too slow to read its updates; closing",
                self.room_code, self.player_id,
            )
            self.close(CloseCode.TRY_LATER, "too slow", EndReason.TOO_SLOW)
            return
        self._push(item)

    def _supersede(self, item: Change | _Refresh) -> Change | _Refresh:
        """The tables queued before `item` that it makes out of date leave the queue
        (backlog.py): a seat behind gets the latest table, never a backlog."""
        change = item.change if isinstance(item, _Refresh) else item
        if self.viewer is not None and self.player_id not in change.player_ids:
            return item
        before = len(self._queue)
        self._queue, item = supersede(self._queue, item)
        self.superseded += before - len(self._queue)
        return item

    def _push(self, item: _Item) -> None:
        self._queue.append(item)
        wake = self._wake
        if wake is not None and not wake.done():
            wake.set_result(None)

    async def wait_closed(self, timeout: float = 2.0) -> None:
        """Wait for the writer to finish (after a close was queued or the socket died)."""
        if self._task is None:
            return
        with contextlib.suppress(TimeoutError, asyncio.CancelledError, Exception):
            await asyncio.wait_for(asyncio.shield(self._task), timeout)
        if not self._task.done():
            self._task.cancel()

    def stop(self) -> None:
        """Stop the writer without a close frame (the socket is already gone)."""
        if self._task is not None and not self._task.done():
            self._task.cancel()

    # ---- the writer ----

    @property
    def idle(self) -> bool:
        """Nothing queued and nothing being written (a manual clock's settling)."""
        return not self._queue and not self._writing

    async def _writer(self) -> None:
        try:
            while True:
                self._writing = False
                while not self._queue:
                    self._wake = asyncio.get_running_loop().create_future()
                    await self._wake
                self._wake = None
                item = self._queue.popleft()
                self._writing = True
                if isinstance(item, _Close):
                    with contextlib.suppress(Exception):
                        await self.ws.close(item.close_code, item.reason)
                    return
                if isinstance(item, _Text):
                    await self.ws.send_text(item.text)
                elif isinstance(item, _Snapshot):
                    await self._send_state(item.state, [], item.locked, None, item.watchers)
                    self.started = True
                    pending, self.pending = self.pending, []
                    for held in pending:
                        await self._send_item(held)
                elif not self.started:
                    self.pending.append(item)
                else:
                    await self._send_item(item)
                # Drop the reference while waiting: a held State would otherwise live
                # long enough to reach the old GC generation (docs/benchmarks.md).
                del item
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the socket went away; the reader notices too
            log.debug(
                "room %s: writer for %s ended: %r", self.room_code, self.player_id, exc
            )

    async def _send_item(self, item: Change | _Refresh | _Resend) -> None:
        if isinstance(item, _Resend):
            if self._last is not None:
                await self._send_state(*self._last)
        elif isinstance(item, _Refresh):
            await self._send_change(item.change, refresh=self._awaiting_refresh)
        else:
            await self._send_change(item)

    async def _send_change(self, change: Change, *, refresh: bool = False) -> None:
        if self.viewer is not None and self.player_id not in change.player_ids:
            return
        if change.version < self.last_version or (
            change.version == self.last_version and not refresh
        ):
            return
        await self._send_state(change.state, change.events, change.locked, change.shared,
                               change.watchers)

    async def _send_state(
        self, state: RoomState, raw: list[RoomEvent], locked: bool, shared: Shared | None = None,
        watchers: int = 0,
    ) -> None:  # fmt: skip
        """Write the update of `state` with the events `raw` (and the owed looks).
        `shared`: what the seats of this change share (projection.py). A watcher's
        update has the events of nobody's seat and no look (R18.1)."""
        pid = self.player_id
        self._awaiting_refresh = False
        if self.viewer is None:
            events, top = raw, 0
        else:
            events, top = plan(state, raw, pid, self.looks_known)
        claim = None
        if top:
            events, claim = await self._claim_looks(events, top)
        shared = shared or Shared()
        texts = shared.event_texts(raw)
        viewer = self.viewer
        shown = [text for ev in events if (text := texts.text(ev, viewer)) is not None]
        frame = shared.frame_at(state, self.room_code, locked, self.clock.now_ms(), watchers)
        self.seq += 1
        self.last_version = int(state.version)
        # not the frame (`shared`): it would keep a table's text alive per socket for
        # a resend that is rare (issue 27: memory per socket); a resend makes its own
        self._last = (state, [], locked, None, watchers)
        if claim is not None:
            crash_at("after_look_claim")  # a test hook's crash point (ops/faults.py)
        try:
            await self.ws.send_text(frame.update_text(viewer, self.seq, shown, self.lag.shown()))
        except Exception:
            if claim is not None and self.ledger is not None:  # not shown: owed again
                self.looks_known = claim[1]
                await self.ledger.give_back(pid, *claim)
            raise
        if claim is not None and self.ledger is not None:  # shown: no longer a promise
            await self.ledger.confirm(pid, claim[0])
        while self._marks and self._marks[0].version <= self.last_version:
            self._report(self._marks.popleft())

    async def _claim_looks(
        self, events: list[RoomEvent], top: int
    ) -> tuple[list[RoomEvent], tuple[int, int] | None]:
        """Claim the looks up to `top` for this socket (R16.3): `events` without the
        peeks another connection of the seat has shown, and the claim to give back if
        the write fails, (top, previous mark), or None."""
        known, pid = self.looks_known, self.player_id
        if self.ledger is None:
            self.looks_known = top
            return events, None
        previous = await self.ledger.claim(pid, top, known)
        if previous is None:  # the store cannot be reached: the looks stay owed
            if self.on_looks_unsent is not None:
                self.on_looks_unsent(self)
            return without_peeks(events, pid, known, above=True), None
        self.looks_known = max(top, previous)
        if previous > known:
            events = without_peeks(events, pid, previous)
        return events, ((top, previous) if previous < top else None)
