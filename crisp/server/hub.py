"""Per-process fan-out: one store subscription per room that has local sockets.

Each published change is decoded once, then handed to every local connection of
the room, which projects it for its own seat. The change also carries the
room's `conns` (the newest connection of each seat, across all processes) and
its seats, so a socket whose seat was taken over elsewhere is closed with 4409
and a kicked seat's socket with 4403 — on whichever process it lives.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from crisp.store import Store

from .connection import CLOSE_KICKED, CLOSE_REPLACED, Connection
from .hooks import NOOP_HOOKS, ServerHooks
from .roomdoc import ConnRef, parse_message

log = logging.getLogger("crisp.server.hub")


@dataclass
class _LocalRoom:
    conns: set[Connection] = field(default_factory=set)
    unsubscribe: Callable[[], Awaitable[None]] | None = None
    latest_conns: dict[str, ConnRef] = field(default_factory=dict)
    seats: frozenset[str] | None = None


class Hub:
    """The local sockets of this process, grouped by room."""

    def __init__(self, store: Store, hooks: ServerHooks = NOOP_HOOKS) -> None:
        self.store = store
        self.hooks = hooks
        self.rooms: dict[str, _LocalRoom] = {}
        self._locks: dict[str, asyncio.Lock] = {}

    def _lock(self, code: str) -> asyncio.Lock:
        lock = self._locks.get(code)
        if lock is None:
            lock = self._locks[code] = asyncio.Lock()
        return lock

    @property
    def connection_count(self) -> int:
        return sum(len(r.conns) for r in self.rooms.values())

    async def attach(self, conn: Connection) -> None:
        """Register a socket; subscribe to its room first if it is the room's first here."""
        async with self._lock(conn.code):
            room = self.rooms.get(conn.code)
            if room is None:
                room = _LocalRoom()
                code = conn.code

                async def handler(message: str) -> None:
                    self._on_message(code, message)

                room.unsubscribe = await self.store.subscribe(code, handler)
                self.rooms[code] = room
            room.conns.add(conn)

    async def detach(self, conn: Connection) -> None:
        """Forget a socket; unsubscribe when the room has no local sockets left."""
        async with self._lock(conn.code):
            room = self.rooms.get(conn.code)
            if room is None:
                return
            room.conns.discard(conn)
            if not room.conns:
                del self.rooms[conn.code]
                self._locks.pop(conn.code, None)
                if room.unsubscribe is not None:
                    try:
                        await room.unsubscribe()
                    except Exception:
                        log.exception("room %s: unsubscribe failed", conn.code)

    def check_replaced(self, conn: Connection) -> None:
        """After `conn.n` is known: close it if a newer connection of its seat was seen."""
        room = self.rooms.get(conn.code)
        if room is not None:
            self._judge(conn, room.latest_conns, room.seats)

    def _judge(
        self, conn: Connection, conns: dict[str, ConnRef], seats: frozenset[str] | None
    ) -> bool:
        """Close `conn` if kicked or replaced; True if it may receive updates."""
        if conn.closing:
            return False
        if seats is not None and conn.pid not in seats:
            conn.close(CLOSE_KICKED, "kicked", "kicked")
            return False
        ref = conns.get(conn.pid)
        if conn.n is not None and ref is not None and ref.id != conn.id and ref.n >= conn.n:
            conn.close(CLOSE_REPLACED, "replaced by a newer connection", "replaced")
            return False
        return True

    def _on_message(self, code: str, message: str) -> None:
        room = self.rooms.get(code)
        if room is None:
            return
        try:
            change = parse_message(message)
        except Exception:
            log.exception("room %s: undecodable published message", code)
            return
        if change is None:
            return
        room.latest_conns = change.conns
        room.seats = change.seats
        sent = 0
        for conn in list(room.conns):
            if self._judge(conn, change.conns, change.seats):
                conn.deliver(change)
                sent += 1
        self.hooks.updates_sent(code, sent)

    def close_all(self, code: int, reason: str) -> list[Connection]:
        """Queue a close on every local socket (shutdown); returns them."""
        conns = [c for room in self.rooms.values() for c in room.conns]
        for conn in conns:
            conn.close(code, reason, "shutdown")
        return conns

    async def unsubscribe_all(self) -> None:
        """Drop every subscription (shutdown)."""
        rooms, self.rooms = self.rooms, {}
        for code, room in rooms.items():
            if room.unsubscribe is not None:
                try:
                    await room.unsubscribe()
                except Exception:
                    log.debug("room %s: unsubscribe at shutdown failed", code)
