"""Round records (R18.2): each round's record is appended to the room's log as the
round is played, in the same atomic save as the change that played it.

A round's record is a header line (the round, the dealer, the options, the deal:
every hand and the stock from its top, from `round_started`'s sealed fields) and one
line per game event, unredacted, with its index `i` and the change's time `at`
(`engine.replay`), JSON lines. Each save appends, per round it touched, one log
entry holding its lines (`LogWrite`, store/base.py). Nothing of a round's record is
sent while the round is played: only `GET /api/rooms/{code}/rounds/{n}` reads it,
once the round is over (http/rounds.py).

Where each round is in the log is kept in the room document (`RoomDoc.record`, a
`RecordMeta`): per round of the current game its first entry, its entry count, its
size and its move count. So the records are bounded without reading the log:
- a round whose record passes `MAX_ROUND_BYTES` stops being recorded and is not
  served (404 `no_round`, "too long to keep"); a real round is far below it
  (docs/server.md, "Round records": sizes);
- when the game's records pass `MAX_GAME_BYTES`, the oldest rounds are trimmed
  from the log's start (404 `no_round` for them);
- a new game (the deal of round 1, or a rematch) empties the log (R18.2: a rematch
  starts a new game with no rounds).
Every save of a room that has a log carries a `LogWrite`, empty if need be, so the
log keeps the room's idle expiry and goes with it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

import orjson

from crisp.engine import Event, Options
from crisp.engine.replay import header_of, move_of, replay
from crisp.engine.vocabulary import EventKind as K
from crisp.store import LogWrite

MAX_ROUND_BYTES = 256 * 1024  # a round's record (bytes of JSON lines)
MAX_GAME_BYTES = 2 * 1024 * 1024  # the records of one game together


@dataclass(frozen=True)
class Span:
    """Where one round's record is: its first log entry (an absolute index: entries
    trimmed from the log's start still count), how many entries, bytes and moves
    it has, whether it is still being recorded, and whether it grew too long."""

    round: int
    first: int
    entries: int = 0
    size: int = 0
    moves: int = 0
    open: bool = True
    too_long: bool = False

    def to_json(self) -> list[Any]:
        return [self.round, self.first, self.entries, self.size, self.moves, self.open,
                self.too_long]

    @staticmethod
    def from_json(raw: list[Any]) -> Span:
        return Span(*raw)


@dataclass(frozen=True)
class RecordMeta:
    """The room's log as the document knows it (see the module docstring): `base`
    is the absolute index of the log's first entry now, `end` the index after its
    last; `game` counts the games recorded in this room (a reset starts the next);
    `dropped` the rounds of this game whose records were trimmed; `live` says a log
    exists in the store."""

    game: int = 0
    base: int = 0
    end: int = 0
    spans: tuple[Span, ...] = ()
    dropped: tuple[int, ...] = ()
    live: bool = False

    def span(self, round_no: int) -> Span | None:
        return next((s for s in self.spans if s.round == round_no), None)

    def to_json(self) -> dict[str, Any]:
        return {"game": self.game, "base": self.base, "end": self.end,
                "spans": [s.to_json() for s in self.spans], "dropped": list(self.dropped),
                "live": self.live}

    @staticmethod
    def from_json(raw: dict[str, Any] | None) -> RecordMeta:
        if not raw:
            return RecordMeta()
        return RecordMeta(raw["game"], raw["base"], raw["end"],
                          tuple(Span.from_json(s) for s in raw["spans"]),
                          tuple(raw["dropped"]), raw["live"])


def _line(data: dict[str, Any]) -> str:
    return str(orjson.dumps(data).decode()) + "\n"


@dataclass
class _Save:
    """What one save does to the record, built event by event."""

    meta: RecordMeta
    reset: bool = False
    spans: list[Span] = field(default_factory=list)
    texts: dict[int, list[str]] = field(default_factory=dict)  # round -> lines this save
    order: list[int] = field(default_factory=list)  # rounds in the order they got lines

    def __post_init__(self) -> None:
        self.spans = list(self.meta.spans)

    def new_game(self) -> None:
        """R18.2: a new game has no rounds; the log starts again."""
        self.reset = True
        self.meta = RecordMeta(game=self.meta.game + 1, live=True)
        self.spans, self.texts, self.order = [], {}, []

    def add(self, round_no: int, line: str) -> None:
        if round_no not in self.texts:
            self.texts[round_no] = []
            self.order.append(round_no)
        self.texts[round_no].append(line)

    def open_span(self) -> Span | None:
        return self.spans[-1] if self.spans and self.spans[-1].open else None

    def set_last(self, span: Span) -> None:
        self.spans[-1] = span


def follow(meta: RecordMeta, events: Iterable[Event], options: Options,
           now: int) -> tuple[RecordMeta, LogWrite | None]:
    """The record after a change whose events are `events` (made at `now`, with the
    table's `options`), and what its save writes to the log (None: nothing, and
    the room has no log)."""
    save = _Save(meta)
    closing = False  # a round_over was recorded: only game_over may follow it
    for ev in events:
        kind = ev.kind
        if kind == K.REMATCH or (kind == K.ROUND_STARTED and ev.data["round"] == 1
                                 and (save.spans or not save.meta.live)):
            save.new_game()  # (a rematch's log is already new: round 1 keeps it)
        if kind == K.ROUND_STARTED:
            if save.open_span() is not None:  # the last round ended in this same save
                save.set_last(replace(save.spans[-1], open=False))
            round_no = int(ev.data["round"])
            save.spans.append(Span(round_no, first=-1))
            header = header_of(ev, options.to_json())
            save.add(round_no, _line({"game": save.meta.game, **header}))
            closing = False
            continue
        span = save.open_span()
        if span is None or (closing and kind != K.GAME_OVER):
            continue
        move = move_of(ev, span.moves, now)
        if move is None:
            continue
        save.set_last(replace(span, moves=span.moves + 1))
        save.add(span.round, _line(move))
        if kind == K.ROUND_OVER:
            closing = True
    if closing and save.open_span() is not None:
        save.set_last(replace(save.spans[-1], open=False))
    return _write(save)


def _write(save: _Save) -> tuple[RecordMeta, LogWrite | None]:
    """Place this save's lines in the log (one entry per round), apply the bounds,
    and say what to write."""
    meta = save.meta
    end = meta.end
    appended: list[str] = []
    spans = save.spans
    for round_no in save.order:
        k = next(i for i, s in enumerate(spans) if s.round == round_no)
        span = spans[k]
        if span.too_long:
            continue
        text = "".join(save.texts[round_no])
        if span.size + len(text) > MAX_ROUND_BYTES:  # stop recording it (never served)
            spans[k] = replace(span, open=False, too_long=True)
            continue
        first = end if span.first < 0 else span.first
        spans[k] = replace(span, first=first, entries=span.entries + 1,
                           size=span.size + len(text))
        appended.append(text)
        end += 1
    spans = [s for s in spans if s.first >= 0 or s.open]  # a span with no entry yet stays
    base, trim, dropped = meta.base, 0, list(meta.dropped)
    while len(spans) > 1 and sum(s.size for s in spans) > MAX_GAME_BYTES:
        oldest = spans.pop(0)  # the game's oldest record goes (its entries lead the log)
        trim += oldest.entries
        base += oldest.entries
        dropped.append(oldest.round)
    live = meta.live or bool(appended) or save.reset
    new = RecordMeta(meta.game, base, end, tuple(spans), tuple(dropped), live)
    if not live:
        return new, None
    return new, LogWrite(tuple(appended), trim=trim, reset=save.reset)


def replay_of(entries: list[str], game: int, round_no: int, moves: int) -> dict[str, Any] | None:
    """The replay (protocol.md v1.2) of a round from its log entries, or None when
    they are not that round's whole record of game `game` (the log changed between
    reading the document and reading the log: a new game, or the round trimmed)."""
    lines = "".join(entries).splitlines()
    if not lines:
        return None
    header = orjson.loads(lines[0])
    if header.get("game") != game or header.get("round") != round_no:
        return None
    recorded = [orjson.loads(line) for line in lines[1:]]
    if [m["i"] for m in recorded] != list(range(moves)):
        return None
    del header["game"]
    return replay(header, recorded)
