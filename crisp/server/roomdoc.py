"""The room document kept in the store, and the message published on each change.

Document (JSON text):
    {"v": 1, "code": "K7QX", "created_ms": ..., "state": <engine State.to_json()>,
     "seats": {player_id: sha256(token) hex},
     "conns": {player_id: {"id": connection id, "n": connection number}}}

`conns` names the newest websocket of each seat (any process). It decides which
connection is replaced (4409) and whether a closing socket marks its seat
disconnected: only the newest one does.

Published message (JSON text), one per saved change:
    {"t": "change", "state": <State.to_json()>, "events": [<Event.to_json()>...],
     "conns": {...}, "seats": [player ids]}
Every process fans it out to its local sockets without reloading the room.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any

from crisp.engine import Event, State

DOC_VERSION = 1


@dataclass(frozen=True)
class ConnRef:
    """The newest connection of a seat: its id and its number (1, 2, ... per seat)."""

    id: str
    n: int


@dataclass(frozen=True)
class RoomDoc:
    """One room as stored: engine state plus seats (hashed tokens) and connections."""

    code: str
    state: State
    seats: dict[str, str]
    conns: dict[str, ConnRef] = field(default_factory=dict)
    created_ms: int = 0

    def dumps(self) -> str:
        """Serialize for the store."""
        return json.dumps(
            {
                "v": DOC_VERSION,
                "code": self.code,
                "created_ms": self.created_ms,
                "state": self.state.to_json(),
                "seats": self.seats,
                "conns": {pid: {"id": c.id, "n": c.n} for pid, c in self.conns.items()},
            },
            separators=(",", ":"),
        )

    @classmethod
    def loads(cls, text: str) -> RoomDoc:
        """Parse a stored document."""
        data = json.loads(text)
        return cls(
            code=data["code"],
            state=State.from_json(data["state"]),
            seats=dict(data["seats"]),
            conns={pid: ConnRef(c["id"], int(c["n"])) for pid, c in data.get("conns", {}).items()},
            created_ms=int(data.get("created_ms", 0)),
        )

    def with_(self, **changes: Any) -> RoomDoc:
        """A copy with some fields replaced."""
        return replace(self, **changes)


@dataclass(frozen=True)
class Change:
    """A published room change, as decoded by each process."""

    state: State
    events: list[Event]
    conns: dict[str, ConnRef]
    seats: frozenset[str]

    @property
    def version(self) -> int:
        return int(self.state.version)


def change_message(doc: RoomDoc, events: list[Event]) -> str:
    """The pub/sub message for a saved document and the events that produced it."""
    return json.dumps(
        {
            "t": "change",
            "state": doc.state.to_json(),
            "events": [ev.to_json() for ev in events],
            "conns": {pid: {"id": c.id, "n": c.n} for pid, c in doc.conns.items()},
            "seats": sorted(doc.seats),
        },
        separators=(",", ":"),
    )


def parse_message(text: str) -> Change | None:
    """Decode a pub/sub message; None for kinds this version does not know."""
    data = json.loads(text)
    if not isinstance(data, dict) or data.get("t") != "change":
        return None
    return Change(
        state=State.from_json(data["state"]),
        events=[Event.from_json(ev) for ev in data["events"]],
        conns={pid: ConnRef(c["id"], int(c["n"])) for pid, c in data["conns"].items()},
        seats=frozenset(data["seats"]),
    )
