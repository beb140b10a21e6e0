"""Watchers (R18.1): who watches a room, kept in its document.

A watcher is nobody's seat: the room document holds the connection ids of its
watchers (`RoomDoc.watchers`), so the count is one number every process agrees
on, published with each change (the view's `watchers`) and capped at
`MAX_WATCHERS` by the compare-and-set itself. A watcher arriving or leaving is not
a change of the table: the state's version does not move and nothing is published
(changes.py); players see the new count in their next update.

A watcher's socket holds a presence lease like a seat's (`Lease(code,
WATCHER_SEAT, connection id)`, rooms/leases.py), so the watchers of a process that
died are taken off the count once their leases run out (`expire`), by whichever
process claims them. A graceful stop takes its watchers off the count at once
(sockets/watcher_socket.py): they have no presence to keep, and come back as new
connections.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

from crisp.server.rooms.changes import Outcome
from crisp.server.rooms.document import RoomDoc
from crisp.server.wire.failures import RoomNotFound

if TYPE_CHECKING:
    from crisp.server.rooms.service import Rooms

MAX_WATCHERS = 50  # R18.1: a room's watchers at most
WATCHER_SEAT = "~watcher"  # the seat of a watcher's presence lease (no player id has a ~)


class WatchRefused(Exception):
    """A watcher may not watch this room: watching is off (`full` False, close 4403)
    or the room has `MAX_WATCHERS` already (`full` True, close 4413)."""

    def __init__(self, full: bool) -> None:
        super().__init__("the room has its watchers" if full else "watching is off")
        self.full = full


async def watch(rooms: Rooms, room_code: str, conn_id: str) -> RoomDoc:
    """Count `conn_id` among the room's watchers; the document as saved (or as it was,
    if it counted it already). Raises WatchRefused, RoomNotFound."""

    def fn(doc: RoomDoc, now: int) -> Outcome | None:
        if not doc.state.options.watchers:
            raise WatchRefused(full=False)
        if conn_id in doc.watchers:
            return None
        if len(doc.watchers) >= MAX_WATCHERS:
            raise WatchRefused(full=True)
        return Outcome(doc.with_(watchers=doc.watchers | {conn_id}), followed=True)

    out = await rooms.mutate(room_code, fn)
    if out is not None:
        return out.doc
    doc = await rooms.load(room_code)
    if doc is None:
        raise RoomNotFound(room_code)
    return doc


async def unwatch(rooms: Rooms, room_code: str, conn_id: str) -> None:
    """`conn_id` no longer watches (its socket ended, or its lease ran out)."""

    def fn(doc: RoomDoc, now: int) -> Outcome | None:
        if conn_id not in doc.watchers:
            return None
        return Outcome(doc.with_(watchers=doc.watchers - {conn_id}), followed=True)

    with contextlib.suppress(RoomNotFound):
        await rooms.mutate(room_code, fn)


def closed_to_watchers(doc: RoomDoc) -> RoomDoc:
    """The host turned watching off (R18.1): nobody is counted any more (each
    watcher's socket is closed with 4403 as the change reaches its process)."""
    return doc.with_(watchers=frozenset()) if doc.watchers else doc
