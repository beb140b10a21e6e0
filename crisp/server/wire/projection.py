"""Updates as text, with what every seat shares serialised once (issue 13).

An update is `{"type": "update", "seq", "now", "view", "events"}` (protocol.md),
the view being `engine.view_for(state, pid, now)` plus `code`, `locked`,
`watchers`, the `replay` of each `history` entry (`room_fields`: R18.1, R18.2)
and the connection's `lag_ms` (R18.4: its measured delay, sockets/lag.py). A
watcher's view is nobody's seat's (`pid` None: `you` null, `watching` true).
Between the seats of one table at one moment only `you`, `holding`, `legal` and
`crisp.window` differ (`engine.view.seat_fields`), and each event is one of at
most two texts (its owner's and everyone else's, R16.3). A `Frame` serialises
the view once with markers in those four places and keeps the text between
them; a seat's view is then those pieces joined with its own four values. The
text of each event of a change is made once per variant (`EventTexts`).

The result is the text `plain_update` makes (`json.dumps` of the payload), byte
for byte: tests/server/test_server_projection.py checks it on many random
tables. A frame describes one moment: a writer reuses the frame of the change
it sends only while its own clock is at most `SHARE_MS` past the frame's
`now` (the seats of one change are written within the same few ms), else it
makes its own.
"""

from __future__ import annotations

import json
import secrets
from typing import Any

import orjson

from crisp import engine
from crisp.engine import Event, State
from crisp.engine.clock import at_moment
from crisp.engine.view import seat_fields
from crisp.games.registry import DEFAULT as CRISP
from crisp.server.wire import rules
from crisp.server.wire.vocabulary import MessageType
from crisp.table.room import GameEvent, GameTable

SHARE_MS = 20

_TAG = secrets.token_hex(8)  # markers no name or card can spell
_MARKS = ("you", "window", "holding", "legal", "lag_ms")
_MARK = {k: f"\x00{k}-{_TAG}\x00" for k in _MARKS}


_json = json.JSONEncoder(separators=(",", ":")).encode


def dumps(data: Any) -> str:
    """Compact JSON, exactly as `json.dumps(data, separators=(",", ":"))` writes it,
    made by orjson (about ten times faster) whenever that gives the same text: its
    output is all printable ASCII (the stdlib escapes everything else, orjson writes
    it as UTF-8)."""
    out = orjson.dumps(data)
    if out.isascii() and b"\x7f" not in out:
        return out.decode()
    return _json(data)


def room_fields(view: dict[str, Any], room_code: str, locked: bool, watchers: int) -> None:
    """What the server adds to the engine's view, the same for every viewer: `game`
    (v2: this projection is Crisp's, `engine.view_for`, so its rooms are the default
    game's), `code`, `locked`, `watchers` (R18.1) and each `history` entry's `replay`
    (R18.2)."""
    view["game"] = CRISP
    view["code"] = room_code
    view["locked"] = locked
    view["watchers"] = watchers
    for entry in view["history"]:
        entry["replay"] = f"/api/rooms/{room_code}/rounds/{entry['round']}"


def plain_update(
    state: rules.RoomState, room_code: str, locked: bool, pid: str | None, seq: int, now: int,
    events: list[dict[str, Any]], lag_ms: int | None = None, watchers: int = 0,
) -> str:  # fmt: skip
    """The update as one `json.dumps` of the whole payload (the reference). `pid`
    None: a watcher's (R18.1)."""
    if isinstance(state, GameTable):
        view = table_view(state, room_code, locked, pid, now, watchers)
    else:
        view = dict(engine.view_for(state, pid, now))
        room_fields(view, room_code, locked, watchers)
    view["lag_ms"] = lag_ms
    return dumps({"type": MessageType.UPDATE, "seq": seq, "now": now, "view": view,
                  "events": events})


_LISTS: dict[tuple[str, ...], str] = {}  # legal lists as text: a few hundred at most
_PLAYER = ',"watching":false'  # `watching` follows `you` in the view (engine.view_for)
_WATCHER = 'null,"watching":true'  # R18.1: nobody's seat


def _word(text: str) -> str:
    """A player id or a card as JSON (these never need escaping; dumps if they do)."""
    return f'"{text}"' if text.isalnum() and text.isascii() else dumps(text)


def _list(words: list[str]) -> str:
    key = tuple(words)
    text = _LISTS.get(key)
    if text is None:
        text = dumps(words)
        if len(_LISTS) < 4096:
            _LISTS[key] = text
    return text


def table_view(
    state: GameTable, room_code: str, locked: bool, pid: str | None, now: int, watchers: int
) -> dict[str, Any]:
    """A table room's view (rules.view_for) with what the server adds for every game:
    `code`, `locked`, `watchers` (R18.1) and `history`, the game's replay once it
    is over (R18.2: one record per game)."""
    view = rules.view_for(state, pid, now)
    view["code"] = room_code
    view["locked"] = locked
    view["watchers"] = watchers
    over = state.table.over
    view["history"] = ([{"round": 1, "winners": list(state.table.winners),
                         "replay": f"/api/rooms/{room_code}/rounds/1"}] if over else [])
    return view


class TableFrame:
    """A table room at one moment (`Frame`'s interface): each viewer's view made
    from the game's `view`, which may differ in any field between seats."""

    __slots__ = ("_locked", "_room_code", "_state", "_watchers", "now")

    def __init__(
        self, state: GameTable, room_code: str, locked: bool, now: int, watchers: int = 0
    ) -> None:
        self.now = now
        self._state = state
        self._room_code = room_code
        self._locked = locked
        self._watchers = watchers

    def view_text(self, pid: str | None, lag_ms: int | None = None) -> str:
        view = table_view(self._state, self._room_code, self._locked, pid, self.now,
                          self._watchers)
        view["lag_ms"] = lag_ms
        return dumps(view)

    def update_text(
        self, pid: str | None, seq: int, events: list[str], lag_ms: int | None = None
    ) -> str:
        return update_text(self.now, seq, self.view_text(pid, lag_ms), events)


def update_text(now: int, seq: int, view_text: str, events: list[str]) -> str:
    """An update's text from its view's and its events' texts (`plain_update`'s
    layout, byte for byte)."""
    return (f'{{"type":"update","seq":{seq},"now":{now},'
            f'"view":{view_text},"events":[{",".join(events)}]}}')  # fmt: skip


class Frame:
    """One table at one moment (`now`), serialised once for all its seats."""

    __slots__ = ("_pieces", "_seats", "_state", "now")

    def __init__(
        self, state: State, room_code: str, locked: bool, now: int, watchers: int = 0
    ) -> None:
        self.now = now
        self._state = at_moment(state, now)
        self._seats = {p.id: i for i, p in enumerate(self._state.players)}
        first = self._state.players[0].id
        view = dict(engine.view_for(self._state, first, now))
        view["you"] = _MARK["you"]  # with `watching`, which follows it
        del view["watching"]
        view["crisp"] = {**view["crisp"], "window": _MARK["window"]}
        view["holding"] = _MARK["holding"]
        view["legal"] = _MARK["legal"]
        room_fields(view, room_code, locked, watchers)
        view["lag_ms"] = _MARK["lag_ms"]  # per connection (R18.4)
        text = dumps(view)
        pieces: list[str] = []
        for key in _MARKS:  # the order in which they appear in the view
            before, text = text.split(dumps(_MARK[key]), 1)
            pieces.append(before)
        pieces.append(text)
        self._pieces = pieces

    def view_text(self, pid: str | None, lag_ms: int | None = None) -> str:
        """`pid`'s view (with `code`, `locked`, `watchers` and the connection's
        `lag_ms`) as JSON text; `pid` None: a watcher's (R18.1)."""
        seat = None if pid is None else self._seats[pid]
        holding, legal, window = seat_fields(self._state, seat, self.now)
        p = self._pieces
        you = _WATCHER if pid is None else _word(pid) + _PLAYER
        return (p[0] + you + p[1] + ("null" if window is None else dumps(window)) + p[2]
                + ("null" if holding is None else _word(holding)) + p[3] + _list(legal)
                + p[4] + ("null" if lag_ms is None else str(int(lag_ms))) + p[5])  # fmt: skip

    def update_text(
        self, pid: str | None, seq: int, events: list[str], lag_ms: int | None = None
    ) -> str:
        """The whole update for `pid` (None: a watcher), its events given as JSON texts."""
        return update_text(self.now, seq, self.view_text(pid, lag_ms), events)


class EventTexts:
    """The JSON text of each event of one change, as each seat may see it: made
    once per variant (the owner's, everyone else's) and shared by the seats."""

    __slots__ = ("_ids", "_texts")

    def __init__(self, events: list[Any]) -> None:
        self._ids = {id(ev) for ev in events}  # they stay alive with the change
        self._texts: dict[tuple[int, bool], str] = {}

    def text(self, ev: Event | GameEvent, pid: str | None) -> str | None:
        """`engine.redact(ev, pid)` as JSON text, or None if it is not for `pid`
        (None: a watcher, who gets the variant of everyone but the event's owner).
        A table room's event: its game's redaction for `pid`, made per seat."""
        if isinstance(ev, GameEvent):
            red = ev.redact(pid)
            return None if red is None else dumps(red)
        if ev.to is not None and ev.to != pid:
            return None
        if id(ev) not in self._ids:  # made for this seat alone (an owed look)
            red = engine.redact(ev, pid)
            return None if red is None else dumps(red)
        key = (id(ev), bool(ev.secret) and ev.data.get("player") == pid)
        text = self._texts.get(key)
        if text is None:
            red = engine.redact(ev, pid)
            if red is None:
                return None
            text = self._texts[key] = dumps(red)
        return text


class Shared:
    """What the seats of one change share in this process: its newest frame and its
    event texts. Kept on the change (`Change.shared`)."""

    __slots__ = ("events", "frame")

    def __init__(self) -> None:
        self.frame: Frame | TableFrame | None = None
        self.events: EventTexts | None = None

    def frame_at(
        self, state: rules.RoomState, room_code: str, locked: bool, now: int, watchers: int = 0
    ) -> Frame | TableFrame:
        """The change's frame if it describes a moment at most `SHARE_MS` before `now`,
        else a new one at `now` (kept for the seats after). `watchers`: how many
        watch (R18.1), the same for every socket of one change."""
        frame = self.frame
        if frame is None or not 0 <= now - frame.now <= SHARE_MS:
            made = (TableFrame(state, room_code, locked, now, watchers)
                    if isinstance(state, GameTable)
                    else Frame(state, room_code, locked, now, watchers))
            frame = self.frame = made
        return frame

    def event_texts(self, events: list[Any]) -> EventTexts:
        if self.events is None:
            self.events = EventTexts(events)
        return self.events
