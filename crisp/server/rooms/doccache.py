"""The room documents this process read or wrote last (issue 13).

A document loaded again unchanged, the same store version and the same text,
is not parsed again (`parse`). And a change may start from the document this
process saved or loaded less than `RECENT_S` ago without loading it (`recent`):
its save is a compare-and-set on that version, so if another process changed
the room meanwhile, or it is gone, the save fails, the entry is forgotten and
the change starts again from the stored document (`Rooms.mutate`). With one
process, or rooms whose sockets are on one process, that is one Redis round
trip per action instead of two. An entry is trusted for moments only, so a
room that expired in the store (hours idle) and a new one given the same code
can never be mistaken for each other.

Documents are never changed in place (the engine copies), so one parsed
document can serve every change that starts from it.

It also remembers the highest state version this process has seen of each room
(saved, loaded, or handed to its sockets: `see`, `seen`), kept when a document is
forgotten: after a Redis master is lost with an acknowledged write, the stored
room goes back to an older version, and the next change must not give its table
a version the players were already shown (issue 27: `RoomChanges.mutate` saves it
above `seen`).
"""

from __future__ import annotations

import time

from crisp.server.rooms.document import RoomDoc
from crisp.store import Versioned

MAX_ROOMS = 4096
RECENT_S = 30.0


class DocCache:
    """The newest document seen here of each room, at most `size` rooms (the room
    used longest ago goes first)."""

    def __init__(self, size: int = MAX_ROOMS) -> None:
        self.size = size
        self._docs: dict[str, tuple[int, str, RoomDoc, float]] = {}
        self._seen: dict[str, int] = {}  # room -> the highest state version seen here

    def parse(self, room_code: str, found: Versioned) -> RoomDoc:
        """`RoomDoc.loads(found.doc)`, without the parse if this version's text was seen."""
        hit = self._docs.get(room_code)
        if hit is not None and hit[0] == found.version and hit[1] == found.doc:
            self.keep(room_code, found.version, found.doc, hit[2])
            return hit[2]
        doc = RoomDoc.loads(found.doc)
        self.keep(room_code, found.version, found.doc, doc)
        return doc

    def recent(self, room_code: str) -> tuple[int, str, RoomDoc] | None:
        """(version, text, document) as this process last saved or loaded them, if
        that was less than `RECENT_S` ago; to be validated by a compare-and-set."""
        hit = self._docs.get(room_code)
        if hit is None or time.monotonic() - hit[3] > RECENT_S:
            return None
        return hit[0], hit[1], hit[2]

    def keep(self, room_code: str, version: int, text: str, doc: RoomDoc) -> None:
        """Remember `doc`, whose text `text` the store holds as `version` (now)."""
        self._docs.pop(room_code, None)  # to the end: used last
        self._docs[room_code] = (version, text, doc, time.monotonic())
        if len(self._docs) > self.size:
            del self._docs[next(iter(self._docs))]
        self.see(room_code, doc.state.version)

    def see(self, room_code: str, state_version: int) -> None:
        """This process saved, loaded or sent a table of the room with this version."""
        seen = self._seen.get(room_code)
        if seen is None or state_version > seen:
            if seen is None and len(self._seen) >= 4 * self.size:
                del self._seen[next(iter(self._seen))]  # the room seen first goes
            self._seen[room_code] = state_version

    def seen(self, room_code: str) -> int:
        """The highest state version of the room this process has seen (-1: none)."""
        return self._seen.get(room_code, -1)

    def forget(self, room_code: str) -> None:
        """The room's entry is out of date (a compare-and-set failed on it)."""
        self._docs.pop(room_code, None)
