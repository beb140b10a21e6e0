"""The room document kept in the store, and the message published on each change.

Document (JSON text):
    {"v": 1, "code": "K7QX", "game": "crisp", "created_ms": ...,
     "state": <engine State.to_json(), or a table room's GameTable.to_json()>,
     "seats": {player_id: sha256(token) hex},
     "conns": {player_id: {"id": connection id, "n": connection number}},
     "locked": true, "seq": 7,
     "revoked": [sha256(token) hex, ...],
     "computer": {player_id: {"memory": ..., "plan": {"need": ..., "at": ms | null} | null}},
     "saves": [save id, ...], "watchers": [connection id, ...], "record": {...}}

`game` is the room's game (crisp.games.registry; v2), which never changes; a
document stored before games were named has none and is Crisp's.
`seats` holds each seat's token hash (`RoomDoc.token_hashes`); `v` is
`DOC_VERSION`, and a document of another version is refused with
`UnknownDocVersion` rather than misread.
`conns` names the newest websocket of each seat (any process). It decides which
connection is replaced (4409) and whether a closing socket marks its seat
disconnected: only the newest one does. Connection numbers come from the room's
`seq`, which only grows: a seat that disconnects (its entry leaves `conns`) and
comes back gets a number above every earlier one, so a process that has not yet
seen the disconnect never takes the new socket for an old one (absent `seq`: the
largest number in `conns`).
`locked` (absent: false) closes the lobby to new players: a kick sets it, and
only the host clears it (docs/protocol-additions.md, "Locked rooms").
`revoked` holds the token hashes of seats removed during a game (R17.5): a hello
with one is closed with 4403. `saves` holds the ids of the room's last saves, so a
process whose save's outcome was unknown can learn later whether it landed.
`computer` holds the seats the computer plays, their memories and next moves
(computer_seats.py); it is never published. `watchers` holds the connection ids
of the watchers (R18.1, rooms/watch_count.py): only their number is published.
`record` says where each round's record is in the room's log (R18.2,
rooms/round_record.py).

Published message (JSON text), one per saved change:
    {"t": "change", "v": <store version>, "sv": <state version>, "state": <State.to_json()>,
     "events": [<Event.to_json()>...], "conns": {...}, "seats": [player ids],
     "locked": bool, "watchers": int}
`v` is the version the store gave this save (the compare-and-set's expected
version + 1), so a process can tell a stale message from a new one and notice
one it missed; `sv` is the table's version (`state.version`), read with `v`
without parsing the rest (`message_versions`): a change whose store version is not
new but whose table is (the stored room went back, a Redis master lost with a
write) is applied all the same (hub.py). `seats` lists the players who hold a
seat (`Change.player_ids`).
Every process fans it out to its local sockets without reloading the room; a
document loaded from the store gives the same `Change` (`Change.of_doc`), with
no events. The process that saved a change hands it to its own sockets at once
(`Change.of_save`, hub.py) and skips its own message when it comes back,
reading only its `v` (`message_version`), which the message starts with.

Both texts are written by orjson, and the state's JSON is made once for the
document and the message of a save (`save_texts`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any

import orjson

from crisp.games.registry import DEFAULT
from crisp.server.rooms.computer_types import Computer, ComputerSeat
from crisp.server.rooms.round_record import RecordMeta
from crisp.server.wire.projection import Shared
from crisp.server.wire.rules import RoomEvent, RoomState, event_from_json, state_from_json

DOC_VERSION = 1
_MESSAGE_HEAD = '{"t":"change","v":'
_STATE_VERSION = ',"sv":'


def _state_json(state: RoomState) -> orjson.Fragment:
    """`state.to_json()` as JSON, to be put into a document or a message as it is."""
    return orjson.Fragment(orjson.dumps(state.to_json()))


def _dumps(data: dict[str, Any]) -> str:
    return str(orjson.dumps(data).decode())


class UnknownDocVersion(ValueError):
    """A stored room document of a version this server cannot read (written by a
    newer server, or corrupt)."""


@dataclass(frozen=True)
class ConnRef:
    """The newest connection of a seat: its id and its number (1, 2, ... per seat)."""

    id: str
    n: int


@dataclass(frozen=True)
class RoomDoc:
    """One room as stored: engine state plus each seat's token hash and connection."""

    room_code: str
    state: RoomState  # Crisp's engine State, or a GameTable (wire/rules.py)
    token_hashes: dict[str, str]  # player id -> sha256(token) hex
    conns: dict[str, ConnRef] = field(default_factory=dict)
    created_ms: int = 0
    locked: bool = False  # no one may join (a kick locks; the host unlocks)
    conn_seq: int = 0  # the last connection number given in this room (`next_conn`)
    revoked: frozenset[str] = frozenset()  # token hashes of seats removed in a game
    computer: Computer = field(default_factory=dict)  # the seats the computer plays
    saves: tuple[str, ...] = ()  # ids of the last saves, newest first (changes.py)
    watchers: frozenset[str] = frozenset()  # R18.1: the connection ids watching now
    record: RecordMeta = field(default_factory=RecordMeta)  # R18.2: round_record.py
    game: str = DEFAULT  # v2: the room's game, for good (absent in older documents: Crisp)

    def dumps(self, state_json: orjson.Fragment | None = None) -> str:
        """Serialize for the store (`state_json`: the state's JSON, if made already)."""
        return _dumps(
            {
                "v": DOC_VERSION,
                "code": self.room_code,
                "game": self.game,
                "created_ms": self.created_ms,
                "state": _state_json(self.state) if state_json is None else state_json,
                "seats": self.token_hashes,
                "conns": {pid: {"id": c.id, "n": c.n} for pid, c in self.conns.items()},
                "locked": self.locked,
                "seq": self.conn_seq,
                "revoked": sorted(self.revoked),
                "computer": {pid: s.to_json() for pid, s in self.computer.items()},
                "saves": list(self.saves),
                "watchers": sorted(self.watchers),
                "record": self.record.to_json(),
            }
        )

    @classmethod
    def loads(cls, text: str) -> RoomDoc:
        """Parse a stored document (raises UnknownDocVersion for another version)."""
        data = orjson.loads(text)
        version = data.get("v") if isinstance(data, dict) else None
        if version != DOC_VERSION:
            raise UnknownDocVersion(
                f"room document version {version!r}: this server reads version {DOC_VERSION}"
            )
        conns = {pid: ConnRef(c["id"], int(c["n"])) for pid, c in data.get("conns", {}).items()}
        return cls(
            room_code=data["code"],
            state=state_from_json(data["state"]),
            token_hashes=dict(data["seats"]),
            conns=conns,
            created_ms=int(data.get("created_ms", 0)),
            locked=bool(data.get("locked", False)),
            conn_seq=int(data.get("seq", max((c.n for c in conns.values()), default=0))),
            revoked=frozenset(data.get("revoked", ())),
            computer={
                pid: ComputerSeat.from_json(s) for pid, s in data.get("computer", {}).items()
            },
            saves=tuple(data.get("saves", ())),
            watchers=frozenset(data.get("watchers", ())),
            record=RecordMeta.from_json(data.get("record")),
            game=str(data.get("game", DEFAULT)),
        )

    def next_conn(self, pid: str, conn_id: str) -> RoomDoc:
        """`conn_id` becomes the seat's newest connection, numbered above every number
        given in this room before (so numbers never repeat, even after a disconnect)."""
        n = max([self.conn_seq, *(c.n for c in self.conns.values())]) + 1
        return replace(self, conns={**self.conns, pid: ConnRef(conn_id, n)}, conn_seq=n)

    def with_(self, **changes: Any) -> RoomDoc:
        """A copy with some fields replaced."""
        return replace(self, **changes)


def changed_fields(old: RoomDoc, new: RoomDoc) -> set[str]:
    """The fields of `RoomDoc` whose values differ between two documents: every field
    of the model, the state compared by its version (the engine moves it on with
    every change of the table). A change saves the document when this is not empty
    (changes.py), so a field added to `RoomDoc` is saved with no other word."""
    out = {name for name in _FIELDS if getattr(old, name) != getattr(new, name)}
    if old.state.version != new.state.version:
        out.add("state")
    return out


_FIELDS = tuple(f.name for f in fields(RoomDoc) if f.name != "state")


@dataclass(frozen=True)
class Change:
    """A room as saved (store version `room_version`), with the events that produced
    it: a published change as decoded by each process, or a reloaded document."""

    state: RoomState
    events: list[RoomEvent]
    conns: dict[str, ConnRef]
    player_ids: frozenset[str]  # the players holding a seat after the change
    room_version: int  # the store's version of the document
    locked: bool = False  # RoomDoc.locked after the change
    watchers: int = 0  # R18.1: how many watch, as of this save (the view's `watchers`)
    # What its seats' updates share in this process (projection.py).
    shared: Shared = field(default_factory=Shared, compare=False, repr=False)

    @property
    def version(self) -> int:
        """The table's version (the view's `version`)."""
        return int(self.state.version)

    @classmethod
    def of_doc(cls, doc: RoomDoc, room_version: int) -> Change:
        """A document loaded from the store, as a change without events."""
        return cls.of_save(doc, [], room_version)

    @classmethod
    def of_save(cls, doc: RoomDoc, events: list[RoomEvent], room_version: int) -> Change:
        """The change a save of `doc` as store version `room_version` publishes."""
        return cls(doc.state, events, dict(doc.conns), frozenset(doc.token_hashes),
                   room_version, doc.locked, len(doc.watchers))


def save_texts(doc: RoomDoc, events: list[RoomEvent], room_version: int) -> tuple[str, str]:
    """The document's text and its `change_message`, the state serialised once."""
    state_json = _state_json(doc.state)
    return doc.dumps(state_json), change_message(doc, events, room_version, state_json)


def change_message(
    doc: RoomDoc, events: list[RoomEvent], room_version: int,
    state_json: orjson.Fragment | None = None,
) -> str:  # fmt: skip
    """The pub/sub message for a document saved as store version `room_version`, and
    the events that produced it (`state_json`: the state's JSON, if made already)."""
    return _dumps(
        {
            "t": "change",
            "v": room_version,
            "sv": doc.state.version,
            "state": _state_json(doc.state) if state_json is None else state_json,
            "events": [ev.to_json() for ev in events],
            "conns": {pid: {"id": c.id, "n": c.n} for pid, c in doc.conns.items()},
            "seats": sorted(doc.token_hashes),
            "locked": doc.locked,
            "watchers": len(doc.watchers),
        }
    )


def message_version(text: str) -> int | None:
    """The `v` of a change message, read without parsing the rest (None if the
    message does not start as `change_message` writes it)."""
    return message_versions(text)[0]


def message_versions(text: str) -> tuple[int | None, int | None]:
    """The `v` (store version) and `sv` (table version) of a change message, read
    without parsing the rest (None for what the message does not start with as
    `change_message` writes it)."""
    if not text.startswith(_MESSAGE_HEAD):
        return None, None
    end = text.find(",", len(_MESSAGE_HEAD))
    digits = text[len(_MESSAGE_HEAD) : end]
    if end <= 0 or not digits.isdigit():
        return None, None
    if not text.startswith(_STATE_VERSION, end):
        return int(digits), None
    start = end + len(_STATE_VERSION)
    stop = text.find(",", start)
    sv = text[start:stop]
    return int(digits), int(sv) if stop > 0 and sv.isdigit() else None


def parse_message(text: str) -> Change | None:
    """Decode a pub/sub message; None for kinds this version does not know."""
    data = orjson.loads(text)
    if not isinstance(data, dict) or data.get("t") != "change":
        return None
    return Change(
        state=state_from_json(data["state"]),
        events=[event_from_json(ev) for ev in data["events"]],
        conns={pid: ConnRef(c["id"], int(c["n"])) for pid, c in data["conns"].items()},
        player_ids=frozenset(data["seats"]),
        room_version=int(data["v"]),
        locked=bool(data.get("locked", False)),
        watchers=int(data.get("watchers", 0)),
    )
