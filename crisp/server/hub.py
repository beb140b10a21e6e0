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

from .connection import Connection
from .hooks import NOOP_HOOKS, ServerHooks
from .protocol import CloseCode, EndReason
from .roomdoc import ConnRef, parse_message

log = logging.getLogger("crisp.server.hub")


@dataclass
class _LocalRoom:
    conns: set[Connection] = field(default_factory=set)
    unsubscribe: Callable[[], Awaitable[None]] | None = None
    latest_conns: dict[str, ConnRef] = field(default_factory=dict)
    player_ids: frozenset[str] | None = None  # the seated players, as last published


class Hub:
    """The local sockets of this process, grouped by room."""

    def __init__(self, store: Store, hooks: ServerHooks = NOOP_HOOKS) -> None:
        self.store = store
        self.hooks = hooks
        self.rooms: dict[str, _LocalRoom] = {}
        self._locks: dict[str, asyncio.Lock] = {}

    def _lock(self, room_code: str) -> asyncio.Lock:
        lock = self._locks.get(room_code)
        if lock is None:
            lock = self._locks[room_code] = asyncio.Lock()
        return lock

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

                room.unsubscribe = await self.store.subscribe(room_code, handler)
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
        self, conn: Connection, conns: dict[str, ConnRef], player_ids: frozenset[str] | None
    ) -> bool:
        """Close `conn` if kicked or replaced; True if it may receive updates."""
        if conn.closing:
            return False
        if player_ids is not None and conn.player_id not in player_ids:
            conn.close(CloseCode.KICKED, "kicked", EndReason.KICKED)
            return False
        ref = conns.get(conn.player_id)
        if conn.n is not None and ref is not None and ref.id != conn.id and ref.n >= conn.n:
            conn.close(CloseCode.REPLACED, "replaced by a newer connection", EndReason.REPLACED)
            return False
        return True

    def _on_message(self, room_code: str, message: str) -> None:
        room = self.rooms.get(room_code)
        if room is None:
            return
        try:
            change = parse_message(message)
        except Exception:
            log.exception("room %s: undecodable published message", room_code)
            return
        if change is None:
            return
        room.latest_conns = change.conns
        room.player_ids = change.player_ids
        sent = 0
        for conn in list(room.conns):
            if self._judge(conn, change.conns, change.player_ids):
                conn.deliver(change)
                sent += 1
        self.hooks.updates_sent(room_code, sent)

    def close_all(self, close_code: CloseCode, reason: str) -> list[Connection]:
        """Queue a close on every local socket (shutdown); returns them."""
        conns = [c for room in self.rooms.values() for c in room.conns]
        for conn in conns:
            conn.close(close_code, reason, EndReason.SHUTDOWN)
        return conns

    async def unsubscribe_all(self) -> None:
        """Drop every subscription (shutdown)."""
        rooms, self.rooms = self.rooms, {}
        for room_code, room in rooms.items():
            if room.unsubscribe is not None:
                try:
                    await room.unsubscribe()
                except Exception:
                    log.debug("room %s: unsubscribe at shutdown failed", room_code)
