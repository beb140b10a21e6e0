"""Per-process fan-out: one store subscription per room that has local sockets.

Each published change is decoded once, then handed to every local connection of
the room, which projects it for its own seat. The change also carries the
room's `conns` (the newest connection of each seat, across all processes) and
its seats, so a socket whose seat was taken over elsewhere is closed with 4409
and a kicked seat's socket with 4403 (a seat moved to another device too, R18.5:
its `conns` entry is `MOVED`) — on whichever process it lives.

Nothing saved is lost on the way (docs/server.md, "Delivery guarantees"): each
change carries its store version, and a room's changes are applied here in
version order (an older one than the last applied is dropped). When the store
says messages may have been lost (its pub/sub connection dropped), the room is
reloaded and its connections get the current table. A socket whose action got
`outcome_unknown` gets the current table once the store answers again
(`refresh`).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from crisp.server.ops.hooks import NOOP_HOOKS, ServerHooks
from crisp.server.rooms.doccache import DocCache
from crisp.server.rooms.document import Change, ConnRef, RoomDoc, message_versions, parse_message
from crisp.server.rooms.seat_moves import MOVED
from crisp.server.sockets.connection import Connection
from crisp.server.wire.rules import RoomState
from crisp.server.wire.vocabulary import CloseCode, EndReason
from crisp.store import Store, StoreUnavailable

log = logging.getLogger("crisp.server.sockets.hub")

RELOAD_BACKOFF_S = (0.05, 0.1, 0.2, 0.25)  # between reload attempts while the store is down


@dataclass
class _LocalRoom:
    conns: set[Connection] = field(default_factory=set)
    unsubscribe: Callable[[], Awaitable[None]] | None = None
    latest_conns: dict[str, ConnRef] = field(default_factory=dict)
    player_ids: frozenset[str] | None = None  # the seated players, as last published
    version: int | None = None  # the store version of the newest change applied here
    table: int = -1  # the state version of the newest change applied here


class Hub:
    """The local sockets of this process, grouped by room."""

    def __init__(
        self, store: Store, hooks: ServerHooks = NOOP_HOOKS, docs: DocCache | None = None
    ) -> None:
        self.store = store
        self.hooks = hooks
        # This process's copies of room documents (rooms/doccache.py): a change it did
        # not hand over itself (`local_change`) makes the room's copy out of date.
        self.docs = docs or DocCache()
        self.rooms: dict[str, _LocalRoom] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._refreshing: dict[Connection, asyncio.Task[None]] = {}

    def _lock(self, room_code: str) -> asyncio.Lock:
        lock = self._locks.get(room_code)
        if lock is None:
            lock = self._locks[room_code] = asyncio.Lock()
        return lock

    @property
    def idle(self) -> bool:
        """Every local socket has written what it was given, and no refresh is on its
        way (a manual clock's settling, serverclock.py)."""
        return not self._refreshing and all(
            c.idle or c.closing for r in self.rooms.values() for c in r.conns
        )

    @property
    def connection_count(self) -> int:
        return sum(len(r.conns) for r in self.rooms.values())

    async def attach(self, conn: Connection) -> None:
        """Register a socket; subscribe to its room first if it is the room's first here."""
        room_code = conn.room_code
        async with self._lock(room_code):
            room = self.rooms.get(room_code)
            if room is None:
                room = _LocalRoom()

                async def handler(message: str) -> None:
                    self._on_message(room_code, message)

                async def on_gap() -> None:
                    await self._resync(room_code)

                room.unsubscribe = await self.store.subscribe(room_code, handler, on_gap)
                self.rooms[room_code] = room
            room.conns.add(conn)

    async def detach(self, conn: Connection) -> None:
        """Forget a socket; unsubscribe when the room has no local sockets left."""
        room_code = conn.room_code
        async with self._lock(room_code):
            room = self.rooms.get(room_code)
            if room is None:
                return
            room.conns.discard(conn)
            task = self._refreshing.pop(conn, None)
            if task is not None:
                task.cancel()
            if not room.conns:
                del self.rooms[room_code]
                self._locks.pop(room_code, None)
                if room.unsubscribe is not None:
                    try:
                        await room.unsubscribe()
                    except Exception:
                        log.exception("room %s: unsubscribe failed", room_code)

    def check_replaced(self, conn: Connection) -> None:
        """After `conn.n` is known: close it if a newer connection of its seat was seen."""
        room = self.rooms.get(conn.room_code)
        if room is not None:
            self._judge(conn, room.latest_conns, room.player_ids)

    def _judge(
        self, conn: Connection, conns: dict[str, ConnRef], player_ids: frozenset[str] | None,
        state: RoomState | None = None,
    ) -> bool:  # fmt: skip
        """Close `conn` if kicked or replaced, or a watcher's once watching is off or
        the room has no seat left (R18.1, R17.5; `state`: the change's table); True
        if it may receive updates."""
        if conn.closing:
            return False
        if conn.viewer is None:  # a watcher: nobody's seat
            if state is not None and state.abandoned:
                conn.close(CloseCode.ROOM_GONE, "room no longer exists", EndReason.ROOM_GONE)
            elif state is not None and not state.options.watchers:
                conn.close(CloseCode.KICKED, "watching is off", EndReason.WATCHING_OFF)
            return not conn.closing
        if player_ids is not None and conn.player_id not in player_ids:
            conn.close(CloseCode.KICKED, "kicked", EndReason.KICKED)
            return False
        ref = conns.get(conn.player_id)
        if conn.n is not None and ref is not None and ref.id != conn.id and ref.n >= conn.n:
            if ref.id == MOVED:  # R18.5: the seat moved to another device
                conn.close(CloseCode.KICKED, "moved to another device", EndReason.KICKED)
            else:
                conn.close(CloseCode.REPLACED, "replaced by a newer connection",
                           EndReason.REPLACED)
            return False
        return True

    def local_change(self, room_code: str, change: Change) -> None:
        """A change this process saved (and published): its sockets get it now, without
        waiting for the message and parsing it, unless changes before it are still on
        their way (then the message brings it, in order)."""
        room = self.rooms.get(room_code)
        if room is not None and room.version in (None, change.room_version - 1):
            self._apply(room_code, room, change)

    def _on_message(self, room_code: str, message: str) -> None:
        room = self.rooms.get(room_code)
        if room is None:
            return
        seen = room.version
        version, table = message_versions(message)
        if seen is not None and version is not None and version <= seen \
                and (table is None or table <= room.table):  # fmt: skip
            return  # applied already (`local_change`), or stale: not even parsed
        try:
            change = parse_message(message)
        except Exception:
            log.exception("room %s: undecodable published message", room_code)
            return
        if change is not None:
            self.docs.forget(room_code)  # saved by another process (or missed here)
            self._apply(room_code, room, change)

    def _apply(self, room_code: str, room: _LocalRoom, change: Change) -> bool:
        """Hand a change to the room's local sockets, unless one at least as new was
        applied already; True if it was applied."""
        last = room.version
        if last is not None and change.room_version <= last:
            if change.version <= room.table:
                return False  # a reload overtook this message: it is stale
            # A newer table under a store version not newer: the stored room went back
            # (a Redis master lost with a write, issue 27); its changes go on from here.
            log.warning("room %s: the store's version went back from %d to %d",
                        room_code, last, change.room_version)
        if last is not None and change.room_version > last + 1:
            # Each message holds the whole room, so this one brings the sockets up to
            # date; only the missed events are gone (owed looks come back, R16.3).
            log.debug("room %s: changes %d..%d not seen here", room_code, last + 1,
                      change.room_version - 1)
        room.version = change.room_version
        room.table = max(room.table, change.version)
        self.docs.see(room_code, change.version)
        room.latest_conns = change.conns
        room.player_ids = change.player_ids
        sent = 0
        for conn in list(room.conns):
            if self._judge(conn, change.conns, change.player_ids, change.state):
                conn.deliver(change)
                sent += 1
        self.hooks.updates_sent(room_code, sent)
        return True

    async def _load(self, room_code: str, still_wanted: Callable[[], bool]) -> Change | None:
        """The room as stored now, retrying while the store does not answer and
        `still_wanted()`; None if it is not wanted any more. A room that is gone
        closes its local sockets (4404)."""
        for attempt in itertools.count():
            if not still_wanted():
                return None
            try:
                found = await self.store.load(room_code)
            except StoreUnavailable:
                await asyncio.sleep(RELOAD_BACKOFF_S[min(attempt, len(RELOAD_BACKOFF_S) - 1)])
                continue
            if found is None:
                room = self.rooms.get(room_code)
                for conn in list(room.conns if room else ()):
                    conn.close(CloseCode.ROOM_GONE, "room no longer exists", EndReason.ROOM_GONE)
                return None
            return Change.of_doc(RoomDoc.loads(found.doc), found.version)
        return None

    async def _resync(self, room_code: str) -> None:
        """Messages of the room may have been lost: reload it and send every local
        socket the current table (each skips it if it has that version already)."""
        change = await self._load(room_code, lambda: room_code in self.rooms)
        room = self.rooms.get(room_code)
        if change is not None and room is not None and room.version is not None \
                and change.room_version < room.version:  # fmt: skip
            # The store has an older room than this process applied: it went back (a
            # Redis master lost with a write, issue 27). Its next changes go on from
            # the stored version (their tables are newer: changes.py saves them so).
            log.warning("room %s: the store's version went back from %d to %d", room_code,
                        room.version, change.room_version)
            room.version = change.room_version
        if change is not None and room is not None and self._apply(room_code, room, change):
            log.info("room %s: changes missed during a pub/sub loss, reloaded (version %d)",
                     room_code, change.room_version)

    def refresh(self, conn: Connection) -> None:
        """After `outcome_unknown` (or owed looks that could not be claimed): once
        the store answers again, send `conn` the current table, even if it is the one
        it has (the client waits for it)."""
        if conn.closing:
            return
        conn.expect_refresh()
        if conn in self._refreshing:
            return  # the running one answers

        async def run() -> None:
            try:
                change = await self._load(conn.room_code, lambda: not conn.closing)
                room = self.rooms.get(conn.room_code)
                if change is not None and room is not None:
                    self._apply(conn.room_code, room, change)
                    if self._judge(conn, change.conns, change.player_ids, change.state):
                        conn.deliver(change, refresh=True)
            finally:
                self._refreshing.pop(conn, None)

        self._refreshing[conn] = asyncio.create_task(run(), name=f"refresh-{conn.room_code}")

    def close_all(self, close_code: CloseCode, reason: str) -> list[Connection]:
        """Queue a close on every local socket (shutdown); returns them."""
        conns = [c for room in self.rooms.values() for c in room.conns]
        for conn in conns:
            conn.close(close_code, reason, EndReason.SHUTDOWN)
        return conns

    async def unsubscribe_all(self) -> None:
        """Drop every subscription (shutdown)."""
        tasks, self._refreshing = list(self._refreshing.values()), {}
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        rooms, self.rooms = self.rooms, {}
        for room_code, room in rooms.items():
            if room.unsubscribe is not None:
                try:
                    await room.unsubscribe()
                except Exception:
                    log.debug("room %s: unsubscribe at shutdown failed", room_code)
