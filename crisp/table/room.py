"""A hosted table: the room state the server keeps for every game but Crisp, behind
the same few calls the server's rooms service makes of Crisp's engine
(crisp/server/wire/rules.py dispatches between the two; docs/architecture.md "The seam").

`GameTable` holds a `crisp.table.Table` plus the room's test setup (protocol v2
"decks", "dealer") and whether the host role waits for the first person who
connects (R17.4), and answers what the server reads of a room's state: its
players, host, version, options (`watchers`, R18.1), whether it is abandoned
(R17.5: no human seat left). Around the table it keeps, as Crisp's engine does,
the host's hand-over after 60 s away (R17.4) and the pause while no person is
connected (R17.6: no computer seat acts, the game's deadlines wait).

`GameEvent` is an event of the table or of its game as the server passes it
between processes (published changes) and redacts it per seat: the game's own
`redact` says what each viewer gets.

Every operation is pure, given `now` and a CSPRNG for the game's randomness.
"""

from __future__ import annotations

import secrets
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from crisp.games import registry
from crisp.games.api import JSON, Ctx, Event, Game, GameError, Setup
from crisp.table import table as tables
from crisp.table import view as table_view
from crisp.table.table import AWAY_MS, Said, Seat, Table
from crisp.table.vocabulary import TableAction, TableError, TableEvent, TableStatus

RNG = secrets.SystemRandom()  # shuffles use a CSPRNG
HOST_AWAY_MS = 60_000  # R17.4: a host away (R17.2) this much longer hands the role on
WATCHERS = "watchers"  # R18.1: the option that opens a room to watchers, where a game has it


class TableOptions(dict[str, JSON]):
    """A table's options as the server reads them: the game's own names, and
    whether watchers are welcome (R18.1: on unless the game's option says no)."""

    @property
    def watchers(self) -> bool:
        return bool(self.get(WATCHERS, True))

    def to_json(self) -> dict[str, JSON]:
        return dict(self)


@dataclass(frozen=True)
class GameEvent:
    """An event of a table room: the table's own (`said`, public) or its game's
    (redacted by the game: `private`, `secret`, `sealed` as in `crisp.games.api.Event`)."""

    game: str
    kind: str
    data: Mapping[str, JSON]
    said: bool = False
    private: frozenset[str] | None = None
    secret: tuple[str, ...] = ()
    sealed: tuple[str, ...] = ()
    to: None = None  # no event of a table room is addressed to one socket (projection.py)
    look: None = None  # nor is any a look owed to a seat (look_ledger.py: Crisp's)

    @staticmethod
    def of(game: str, event: Event) -> GameEvent:
        return GameEvent(game, event.kind, dict(event.data), isinstance(event, Said),
                         event.private, tuple(event.secret), tuple(event.sealed))

    def redact(self, viewer: str | None) -> dict[str, JSON] | None:
        """The event as `viewer` (None: a watcher) receives it, or None."""
        if self.said:
            return {"kind": self.kind, **self.data}
        event = Event(self.kind, self.data, self.private, self.secret, self.sealed)
        return registry.get(self.game).redact(event, viewer)

    def to_json(self) -> dict[str, JSON]:
        """The server-internal form (published changes), markers kept."""
        out: dict[str, JSON] = {"game": self.game, "kind": self.kind, "data": dict(self.data)}
        if self.said:
            out["said"] = True
        if self.private is not None:
            out["private"] = sorted(self.private)
        if self.secret:
            out["secret"] = list(self.secret)
        if self.sealed:
            out["sealed"] = list(self.sealed)
        return out

    @staticmethod
    def from_json(raw: Mapping[str, Any]) -> GameEvent:
        private = raw.get("private")
        return GameEvent(str(raw["game"]), str(raw["kind"]), dict(raw["data"]),
                         bool(raw.get("said", False)),
                         None if private is None else frozenset(private),
                         tuple(raw.get("secret", ())), tuple(raw.get("sealed", ())))


class GameTable:
    """A table room's state: the table, the test setup its games start with, and
    whether the host role waits for the first person who connects (R17.4)."""

    __slots__ = ("dealer", "decks", "host_pending", "table")

    def __init__(self, table: Table, decks: tuple[tuple[str, ...], ...] | None = None,
                 dealer: int | None = None, host_pending: bool = False) -> None:
        self.table = table
        self.decks = decks
        self.dealer = dealer
        # R17.4: the host role was to be handed on with no person connected: the first
        # person who connects takes it (the table's `host` until then: its last holder)
        self.host_pending = host_pending

    # ---- what the server reads of a room's state ----

    @property
    def game(self) -> Game[Any, Any]:
        return self.table.game

    @property
    def players(self) -> tuple[Seat, ...]:
        return self.table.seats

    @property
    def host(self) -> str:
        return self.table.host

    @property
    def version(self) -> int:
        return self.table.version

    @version.setter
    def version(self, value: int) -> None:
        self.table = replace(self.table, version=value)

    @property
    def options(self) -> TableOptions:
        return TableOptions(self.table.options)

    @property
    def abandoned(self) -> bool:
        """R17.5: no human seat is left (the last one left)."""
        return not any(s.bot_level is None for s in self.table.seats)

    @property
    def round(self) -> int:
        """The table's game record is one per game: its number is 1 once played."""
        return 0 if self.table.play is None else 1

    @property
    def status(self) -> str:
        """`lobby` before a game is dealt, else the game's status as of its last
        change (what the server compares with the lobby; `status_at` for a view's)."""
        return self.status_at(0)

    def status_at(self, now: int) -> str:
        """The view's `status` at `now`: the lobby, or the game's own."""
        if self.table.play is None:
            return TableStatus.LOBBY
        return str(table_view.view(self.table, None, now)["status"])

    def copy(self) -> GameTable:
        return GameTable(self.table, self.decks, self.dealer, self.host_pending)

    def with_table(self, table: Table, host_pending: bool | None = None) -> GameTable:
        pending = self.host_pending if host_pending is None else host_pending
        return GameTable(table, self.decks, self.dealer, pending)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GameTable) and self.to_json() == other.to_json()

    __hash__ = None  # type: ignore[assignment]

    # ---- the stored form ----

    def to_json(self) -> dict[str, JSON]:
        out = self.table.to_json()
        if self.decks is not None:
            out["decks"] = [list(d) for d in self.decks]
        if self.dealer is not None:
            out["dealer"] = self.dealer
        if self.host_pending:
            out["host_pending"] = True
        return out

    @staticmethod
    def from_json(raw: Mapping[str, Any]) -> GameTable:
        decks = raw.get("decks")
        return GameTable(Table.from_json(raw),
                         None if decks is None else tuple(tuple(d) for d in decks),
                         raw.get("dealer"), bool(raw.get("host_pending", False)))


Events = list[GameEvent]


def _events(gt: GameTable, events: list[Event]) -> Events:
    return [GameEvent.of(gt.table.game_id, ev) for ev in events]


def new_table(game_id: str, host_name: str, now: int, time_scale: float = 1.0,
              decks: list[list[str]] | None = None, dealer: int | None = None) -> GameTable:
    """A lobby of `game_id` with its host as p1 (raises UnknownGame)."""
    table = tables.new_table(game_id, host_name, now, time_scale)
    return GameTable(table, None if decks is None else tuple(tuple(d) for d in decks), dealer)


def add_player(gt: GameTable, name: str, now: int) -> tuple[GameTable, str, Events]:
    table, pid, events = tables.join(gt.table, name, now)
    return gt.with_table(table), pid, _events(gt, events)


def set_connected(gt: GameTable, pid: str, connected: bool, now: int,
                  since: int | None = None) -> tuple[GameTable, Events]:
    """A seat's presence (R17.2); `since`: when a lost connection last showed life.
    A person who connects while the host role waits for one takes it (R17.4); one
    who connects while nobody was (R17.6) ends the pause: after every person's seat
    went away the decision then in progress gets its full time again
    (`Game.resume`), after a shorter time every deadline moves by the pause's
    length, so each keeps what was left of it (`Game.shift`), as in Crisp."""
    if not any(s.id == pid for s in gt.table.seats):
        return gt, []
    ends_pause = connected and paused(gt)
    humans = [s for s in gt.table.seats if s.bot_level is None]
    all_away = all(s.away for s in humans)
    began = max((s.gone_since for s in humans if s.gone_since is not None), default=None)
    table, events = tables.set_connected(gt.table, pid, connected,
                                         now if since is None or connected else min(now, since))
    if ends_pause and events and table.play is not None:
        if all_away:
            table = replace(table, play=table.game.resume(table.play, now))
        elif began is not None and now > began:
            table = replace(table, play=table.game.shift(table.play, now - began))
    if connected and events and gt.host_pending and table.seat(pid).bot_level is None:
        if table.host != pid:
            table = replace(table, host=pid)
            events.append(tables.said(TableEvent.HOST_CHANGED, {"player": pid}))
        return gt.with_table(table, host_pending=False), _events(gt, events)
    return gt.with_table(table), _events(gt, events)


def _host_away_until(gt: GameTable) -> int | None:
    """R17.4: when an away host, away 60 s more, hands the role on (None: not away,
    or the role already waits for the first person who connects)."""
    t = gt.table
    host = next((s for s in t.seats if s.id == t.host), None)
    if gt.host_pending or host is None or host.bot_level is not None or not host.away:
        return None
    if host.gone_since is None:
        return None
    return host.gone_since + round(AWAY_MS * t.time_scale) + round(HOST_AWAY_MS * t.time_scale)


def _pass_host(gt: GameTable) -> tuple[GameTable, list[Event]]:
    """R17.4: the connected person who joined earliest (seat order is join order)
    becomes host; with none connected, the first person who connects will."""
    t = gt.table
    for s in t.seats:
        if s.bot_level is None and s.connected and s.id != t.host:
            table = replace(t, host=s.id, version=t.version + 1)
            return (gt.with_table(table, host_pending=False),
                    [tables.said(TableEvent.HOST_CHANGED, {"player": s.id})])
    return gt.with_table(replace(t, version=t.version + 1), host_pending=True), []


def paused(gt: GameTable) -> bool:
    """R17.6: a game is played and no person is connected (there are people): nothing
    acts, neither the computer nor the game's timers, until one is back (Crisp's
    reading, crisp/engine/presence.py)."""
    t = gt.table
    if t.play is None or t.over:
        return False
    humans = [s for s in t.seats if s.bot_level is None]
    return bool(humans) and not any(s.connected for s in humans)


def _presence_due(t: Table) -> int | None:
    """The next seat going away (R17.2)."""
    return min((a for a in (tables._away_at(t, s) for s in t.seats) if a is not None),
               default=None)


def _table_due(gt: GameTable) -> int | None:
    """The table's next deadline: a seat going away, and the game's own unless paused."""
    return _presence_due(gt.table) if paused(gt) else tables.due(gt.table)


def _going_away(t: Table, now: int) -> tuple[Table, list[Event]]:
    """The seats whose player has been gone 20 s are away (R17.2), the game untouched."""
    new, events = t, []
    for seat in t.seats:
        at = tables._away_at(t, seat)
        if at is not None and at <= now:
            new = new._with(seats=new._seat_with(seat.id, away=True))
            events.append(tables.said(TableEvent.AWAY, {"player": seat.id}))
    return new, events


def next_deadline(gt: GameTable) -> int | None:
    """The table's next deadline (the game's unless paused, a seat going away) or
    the host's hand-over (R17.4)."""
    times = [d for d in (_table_due(gt), _host_away_until(gt)) if d is not None]
    return min(times, default=None)


def advance(gt: GameTable, now: int) -> tuple[GameTable, Events]:
    if (due := next_deadline(gt)) is None or due > now:
        return gt, []
    events: list[Event] = []
    if (table_due := _table_due(gt)) is not None and table_due <= now:
        if paused(gt):
            table, events = _going_away(gt.table, now)
        else:
            table, events = tables.advance(gt.table, Ctx(now, RNG))
        gt = gt.with_table(table)
    if (host_due := _host_away_until(gt)) is not None and host_due <= now:
        gt, more = _pass_host(gt)
        events += more
    return gt, _events(gt, events)


def _bot_name(table: Table) -> str:
    """R17.1: the next free "Computer k" (a human named so keeps the name)."""
    used = {unicodedata.normalize("NFKC", s.name).casefold() for s in table.seats}
    return next(f"Computer {k}" for k in range(1, len(table.seats) + 2)
                if f"computer {k}" not in used)


def _field(message: Mapping[str, JSON], name: str) -> str:
    value = message.get(name)
    if not isinstance(value, str) or not 0 < len(value) <= 32:
        raise GameError(TableError.BAD_MESSAGE, f"{name} must be a player id")
    return value


def apply(gt: GameTable, pid: str, message: Mapping[str, JSON],
          now: int) -> tuple[GameTable, Events]:
    """A seat's client message (its `id` already set aside): the table's own types,
    else the game's (its `parse` refuses what is not one of them)."""
    t = gt.table
    kind = message.get("type")
    others = {k: v for k, v in message.items() if k != "type"}
    if kind == TableAction.OPTIONS:
        table, events = tables.set_options(t, pid, others)
    elif kind in (TableAction.START, TableAction.LEAVE, TableAction.REMATCH) and others:
        raise GameError(TableError.BAD_MESSAGE, f"{kind} takes no fields")
    elif kind == TableAction.START:
        setup = Setup(decks=gt.decks, dealer=gt.dealer)
        table, events = tables.start(t, pid, setup, Ctx(now, RNG))
    elif kind == TableAction.KICK:
        table, events = tables.kick(t, pid, _field(message, "player"))
    elif kind == TableAction.ADD_BOT:
        if set(others) - {"level"}:
            raise GameError(TableError.BAD_MESSAGE, "add_bot takes a level only")
        level = others.get("level", t.game.bot_levels[len(t.game.bot_levels) // 2])
        table, events = tables.add_bot(t, pid, level, _bot_name(t))
    elif kind == TableAction.LEAVE:
        table, events = tables.leave(t, pid)
        if t.host == pid:  # R17.4: to a connected person, else the first who connects
            new_host = next((s for s in table.seats if s.id == table.host), None)
            pending = new_host is None or not new_host.connected
            return gt.with_table(table, host_pending=pending), _events(gt, events)
    elif kind == TableAction.REMATCH:
        table, events = tables.rematch(t, pid)
    else:
        table, events = tables.act(t, pid, message, Ctx(now, RNG))
    return gt.with_table(table), _events(gt, events)


def view_for(gt: GameTable, viewer: str | None, now: int) -> dict[str, JSON]:
    return table_view.view(gt.table, viewer, now)


def computer_seats(gt: GameTable, now: int) -> list[tuple[str, str]]:
    """(seat, level) the computer must act for now (R17.1, R17.2, R17.6: none while no
    person is connected)."""
    return [] if paused(gt) else tables.computer(gt.table, now)


def replay(gt: GameTable) -> dict[str, JSON] | None:
    """The game's record once it is over (R18.2), else None."""
    return tables.replay(gt.table)
