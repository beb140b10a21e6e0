"""A generic table: seats, host, options, start, kick, leave, add_bot, rematch and
the match tally, presence and away seats, around any game (crisp.games.api). It
knows no card rule: the game is reached only through its interface.

Pure like a game (no I/O, no clock: `now` is given, randomness through `Ctx`):
every operation takes a `Table` and returns a new one with the events it made
(the table's own events are public; the game's are redacted by the game), or
raises `GameError` (the table's codes: `TableError`; the game's: its own). The
version grows with every change. Seats are named "p1", "p2", ... in the order
they arrive, never reused.

The server holds it for every game but Crisp (crisp/table/room.py;
docs/architecture.md "The seam"); Crisp's rooms are still played through its
engine.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from crisp.games import registry
from crisp.games.api import JSON, Ctx, Event, Game, GameError, Setup, options_of

from .vocabulary import TableError, TableEvent

AWAY_MS = 20_000  # R17.2: a human seat without a connection this long is away


def refused(code: TableError, message: str) -> GameError:
    return GameError(code, message)


class Said(Event):
    """An event of the table itself (public), told apart from the game's by its type."""


def said(kind: TableEvent, data: dict[str, JSON]) -> Event:
    return Said(kind, data)


@dataclass(frozen=True)
class Seat:
    """One seat: a human's (bot_level None) or the computer's."""

    id: str
    name: str
    bot_level: str | None = None
    connected: bool = False
    away: bool = False
    gone_since: int | None = None  # a human seat's last connection ended (or never began)

    def to_json(self) -> dict[str, JSON]:
        return {"id": self.id, "name": self.name, "bot_level": self.bot_level,
                "connected": self.connected, "away": self.away, "gone_since": self.gone_since}

    @staticmethod
    def from_json(raw: Mapping[str, Any]) -> Seat:
        return Seat(raw["id"], raw["name"], raw["bot_level"], raw["connected"], raw["away"],
                    raw["gone_since"])


@dataclass(frozen=True)
class Table:
    """A room's table. `play` is the game's state while a game is played or over
    (None in the lobby); `over` once it ended; `match` the tally across rematches."""

    game_id: str
    host: str
    seats: tuple[Seat, ...]
    options: Mapping[str, JSON]
    play: Any = None
    over: bool = False
    winners: tuple[str, ...] = ()
    match: Mapping[str, int] = field(default_factory=dict)
    version: int = 1
    next_no: int = 2
    time_scale: float = 1.0
    # R18.2: the game's events, unredacted (sealed fields too), `i` and `at` added:
    # never in a view; `replay` shows them once the game is over
    record: tuple[Mapping[str, JSON], ...] = ()
    previous: Any = None  # the last game's final state, for a rematch (Setup.previous)

    @property
    def game(self) -> Game[Any, Any]:
        return registry.get(self.game_id)

    def seat(self, pid: str) -> Seat:
        for s in self.seats:
            if s.id == pid:
                return s
        raise refused(TableError.UNKNOWN_PLAYER, f"no player {pid!r} at this table")

    def ids(self) -> list[str]:
        return [s.id for s in self.seats]

    def _with(self, **changes: Any) -> Table:
        return replace(self, version=self.version + 1, **changes)

    def _seat_with(self, pid: str, **changes: Any) -> tuple[Seat, ...]:
        return tuple(replace(s, **changes) if s.id == pid else s for s in self.seats)

    # ---- the stored form ----

    def to_json(self) -> dict[str, JSON]:
        return {"game": self.game_id, "host": self.host,
                "seats": [s.to_json() for s in self.seats], "options": dict(self.options),
                "play": None if self.play is None else self.game.to_json(self.play),
                "over": self.over, "winners": list(self.winners), "match": dict(self.match),
                "version": self.version, "next_no": self.next_no,
                "time_scale": self.time_scale, "record": [dict(m) for m in self.record],
                "previous": (None if self.previous is None
                             else self.game.to_json(self.previous))}

    @staticmethod
    def from_json(raw: Mapping[str, Any]) -> Table:
        game = registry.get(raw["game"])
        return Table(raw["game"], raw["host"], tuple(Seat.from_json(s) for s in raw["seats"]),
                     dict(raw["options"]),
                     None if raw["play"] is None else game.from_json(raw["play"]),
                     raw["over"], tuple(raw["winners"]), dict(raw["match"]), raw["version"],
                     raw["next_no"], raw["time_scale"],
                     tuple(dict(m) for m in raw.get("record", ())),
                     None if raw.get("previous") is None else game.from_json(raw["previous"]))


def new_table(game_id: str, host_name: str, now: int, time_scale: float = 1.0) -> Table:
    """A lobby of `game_id` (raises UnknownGame) with its host as p1, not connected
    yet (a host who never connects is away 20 s later, R17.2)."""
    game = registry.get(game_id)
    return Table(game.id, "p1", (Seat("p1", host_name, gone_since=now),),
                 options_of(game, {}), time_scale=time_scale)


def _lobby(t: Table) -> None:
    if t.play is not None:
        raise refused(TableError.WRONG_PHASE, "only in the lobby")


def _host(t: Table, pid: str) -> None:
    t.seat(pid)
    if t.host != pid:
        raise refused(TableError.NOT_HOST, "only the host may do this")


def join(t: Table, name: str, now: int) -> tuple[Table, str, list[Event]]:
    """A new human seat in the lobby (`game_started` after, `room_full` at the
    game's maximum)."""
    if t.play is not None:
        raise refused(TableError.GAME_STARTED, "the game has already started")
    if len(t.seats) >= t.game.seats.max:
        raise refused(TableError.ROOM_FULL, f"the room has {t.game.seats.max} players")
    pid = f"p{t.next_no}"
    new = t._with(seats=(*t.seats, Seat(pid, name, gone_since=now)), next_no=t.next_no + 1)
    return new, pid, [said(TableEvent.JOINED, {"player": pid})]


def add_bot(t: Table, pid: str, level: JSON, name: str) -> tuple[Table, list[Event]]:
    """The host adds a computer player of one of the game's levels (R17.1)."""
    _host(t, pid)
    _lobby(t)
    if level not in t.game.bot_levels:
        raise refused(TableError.BAD_MESSAGE,
                      f"level must be one of {', '.join(t.game.bot_levels)}")
    if len(t.seats) >= t.game.seats.max:
        raise refused(TableError.ROOM_FULL, f"the room has {t.game.seats.max} players")
    bot = f"p{t.next_no}"
    new = t._with(seats=(*t.seats, Seat(bot, name, bot_level=str(level))),
                  next_no=t.next_no + 1)
    return new, [said(TableEvent.BOT_ADDED, {"player": bot, "level": level})]


def set_options(t: Table, pid: str, given: Mapping[str, JSON]) -> tuple[Table, list[Event]]:
    """The host changes options: the game's names and choices only (`bad_message`)."""
    _host(t, pid)
    _lobby(t)
    options = options_of(t.game, {**t.options, **given})
    return t._with(options=options), [said(TableEvent.OPTIONS, dict(options))]


def start(t: Table, pid: str, setup: Setup, ctx: Ctx) -> tuple[Table, list[Event]]:
    """The host starts the game (`illegal` outside the game's seat range)."""
    _host(t, pid)
    _lobby(t)
    rule = t.game.seats
    if not rule.min <= len(t.seats) <= rule.max:
        raise refused(TableError.ILLEGAL, f"this game takes {rule.min} to {rule.max} players")
    setup = replace(setup, time_scale=t.time_scale, match=dict(t.match), previous=t.previous)
    play, events = t.game.start(t.ids(), t.options, setup, _numbered(t, ctx))
    return t._with(play=play, over=False, winners=(), record=_moves((), events, ctx.now)), events


def _taken_over(t: Table, pid: str) -> Table:
    """A human seat removed during a game: the computer plays it from now (R17.5)."""
    levels = t.game.bot_levels
    return t._with(seats=t._seat_with(pid, bot_level=levels[len(levels) // 2],
                                      connected=False, away=False, gone_since=None))


def _without(t: Table, pid: str) -> Table:
    seats = tuple(s for s in t.seats if s.id != pid)
    return t._with(seats=seats, host=_next_host(seats, t.host if t.host != pid else None))


def _next_host(seats: tuple[Seat, ...], host: str | None) -> str:
    """The host, or the first human seat (connected first) if the host left (R17.4)."""
    if host is not None:
        return host
    humans = [s for s in seats if s.bot_level is None]
    ranked = sorted(humans, key=lambda s: not s.connected)
    return ranked[0].id if ranked else (seats[0].id if seats else "")


def kick(t: Table, pid: str, target: str) -> tuple[Table, list[Event]]:
    """The host removes a seat: in the lobby it is gone, in a game the computer plays it."""
    _host(t, pid)
    seat = t.seat(target)
    if target == pid:
        raise refused(TableError.ILLEGAL, "the host cannot kick themself")
    if t.play is None:
        return _without(t, target), [said(TableEvent.LEFT, {"player": target})]
    if seat.bot_level is not None:
        raise refused(TableError.ILLEGAL, "the computer already plays this seat")
    return _taken_over(t, target), [said(TableEvent.TOOK_OVER, {"player": target})]


def leave(t: Table, pid: str) -> tuple[Table, list[Event]]:
    """A human leaves: the lobby frees the seat, a game hands it to the computer;
    a leaving host hands the role on (R17.4, R17.5)."""
    if t.seat(pid).bot_level is not None:
        raise refused(TableError.ILLEGAL, "a computer player does not leave")
    if t.play is None:
        new, events = _without(t, pid), [said(TableEvent.LEFT, {"player": pid})]
    else:  # R17.5: told as a kick is, the computer takes the seat
        new, events = _taken_over(t, pid), [said(TableEvent.TOOK_OVER, {"player": pid})]
    if t.host == pid:
        host = _next_host(tuple(s for s in new.seats if s.id != pid), None)
        new = replace(new, host=host)
        events.append(said(TableEvent.HOST_CHANGED, {"player": host}))
    return new, events


def rematch(t: Table, pid: str) -> tuple[Table, list[Event]]:
    """The host sends everyone back to the lobby after a game; the tally stays."""
    _host(t, pid)
    if not t.over:
        raise refused(TableError.WRONG_PHASE, "only once the game is over")
    return (t._with(play=None, over=False, winners=(), record=(), previous=t.play),
            [said(TableEvent.REMATCH, {"player": pid})])


def set_connected(t: Table, pid: str, connected: bool, now: int) -> tuple[Table, list[Event]]:
    """A human seat's presence: connecting brings an away seat back (R17.2)."""
    seat = t.seat(pid)
    if seat.bot_level is not None or seat.connected == connected:
        return t, []
    if connected:
        events = [said(TableEvent.CONNECTED, {"player": pid})]
        if seat.away:
            events.append(said(TableEvent.BACK, {"player": pid}))
        return t._with(seats=t._seat_with(pid, connected=True, away=False,
                                          gone_since=None)), events
    return (t._with(seats=t._seat_with(pid, connected=False, gone_since=now)),
            [said(TableEvent.DISCONNECTED, {"player": pid})])


def _away_at(t: Table, seat: Seat) -> int | None:
    if seat.bot_level is not None or seat.away or seat.gone_since is None:
        return None
    return seat.gone_since + round(AWAY_MS * t.time_scale)


def due(t: Table) -> int | None:
    """The table's next deadline: the game's, or a seat going away (R17.2)."""
    times = [a for a in (_away_at(t, s) for s in t.seats) if a is not None]
    if t.play is not None and not t.over:
        d = t.game.due(t.play)
        if d is not None:
            times.append(d)
    return min(times, default=None)


def advance(t: Table, ctx: Ctx) -> tuple[Table, list[Event]]:
    """Whatever fell due by `ctx.now`: seats going away, the game's deadlines."""
    new, events = t, []
    for seat in t.seats:
        at = _away_at(t, seat)
        if at is not None and at <= ctx.now:
            new = new._with(seats=new._seat_with(seat.id, away=True))
            events.append(said(TableEvent.AWAY, {"player": seat.id}))
    if new.play is not None and not new.over:
        d = new.game.due(new.play)
        if d is not None and d <= ctx.now:
            play, evs = new.game.advance(new.play, _numbered(new, ctx))
            new, more = _played(new, play, evs, ctx.now)
            events += more
    return new, events


def act(t: Table, pid: str, message: Mapping[str, JSON], ctx: Ctx) -> tuple[Table, list[Event]]:
    """A seat's game message: the game parses it (what is not one of its messages is
    `bad_message` in any phase), then applies it."""
    t.seat(pid)
    action = t.game.parse(message)
    if t.play is None or t.over:
        raise refused(TableError.WRONG_PHASE, "no game is being played")
    play, events = t.game.apply(t.play, pid, action, _numbered(t, ctx))
    return _played(t, play, events, ctx.now)


def _numbered(t: Table, ctx: Ctx) -> Ctx:
    """`ctx` with the version the change of `t` about to be made produces."""
    return replace(ctx, version=t.version + 1)


def _moves(record: tuple[Mapping[str, JSON], ...], events: list[Event],
           now: int) -> tuple[Mapping[str, JSON], ...]:
    """`record` with the game's `events` appended whole (R18.2: the replay's moves)."""
    return (*record, *({"i": len(record) + n, "at": now, "kind": ev.kind, **ev.data}
                       for n, ev in enumerate(events)))


def replay(t: Table) -> dict[str, JSON] | None:
    """The game's replay once it is over (None before): who sat where, the options
    and every move as it happened, nothing redacted (R18.2)."""
    if not t.over:
        return None
    return {"game": t.game_id, "players": [{"id": s.id, "name": s.name} for s in t.seats],
            "options": dict(t.options), "winners": list(t.winners),
            "moves": [dict(m) for m in t.record]}


def _played(t: Table, play: Any, events: list[Event], now: int) -> tuple[Table, list[Event]]:
    record = _moves(t.record, events, now)
    outcome = t.game.outcome(play)
    if outcome is None:
        return t._with(play=play, record=record), events
    match = dict(t.match)
    for p, points in outcome.points.items():
        match[p] = match.get(p, 0) + points
    # the game tells its own end in its events; the view shows `winners` and `match`
    return t._with(play=play, over=True, winners=tuple(outcome.winners), match=match,
                   record=record), events


def computer(t: Table, now: int) -> list[tuple[str, str]]:
    """(player, level) of the seats the computer plays now: computer players and
    away seats (at the game's middle level) that the game waits for."""
    if t.play is None or t.over:
        return []
    waiting = set(t.game.to_act(t.play, now))
    levels = t.game.bot_levels
    out = []
    for s in t.seats:
        level = s.bot_level or (levels[len(levels) // 2] if s.away else None)
        if level is not None and s.id in waiting:
            out.append((s.id, level))
    return out
