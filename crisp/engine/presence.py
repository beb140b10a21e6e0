"""Absent players and computer players as state and rules (R17).

- R17.2: a human seat whose last connection ended 20 s ago is *away*; it is back
  the moment its player connects again.
- R17.4: the host role passes on when the host leaves or has been away for 60 s:
  to the connected human who joined earliest, else to the first human who connects.
- R17.5: a seat removed during a game (kick or leave) becomes a "normal" computer
  player; in the lobby the seat is freed.
- R17.6: while no human is connected the table is *paused* (issue 23: "every
  human seat is away" read as "no human connected", so the computer never plays a
  seat while nobody is there to see it): draw timers do not fire and the computer
  acts for no one. When a human comes back after every human seat had become away,
  the draw in progress gets its full time again; after a shorter pause it gets the
  time it had left (the deadline moves by the pause), so a reload buys no time.

Every duration is scaled by the table's time scale, like R10.4's.
"""

from __future__ import annotations

from .events import Event
from .state import State
from .timing import AWAY_MS, HOST_AWAY_MS, deadline_from, scaled
from .vocabulary import PLAYING, BotLevel, EventKind


def paused(state: State) -> bool:
    """R17.6: no human is connected (or none is left)."""
    for p in state.players:  # noqa: SIM110 - a plain loop: next_deadline runs this often
        if p.bot_level is None and p.connected:
            return False
    return True


def presence_deadline(state: State) -> int | None:
    """The earliest R17.2 away or R17.4 hand-over deadline, or None. (A computer
    player has no clock: its `gone_since` is always None.)"""
    due: int | None = None
    for p in state.players:  # one pass, nothing more while everyone is connected
        since = p.gone_since
        if since is None:
            continue
        if not p.away:  # a human seat's R17.2 clock (a bot has none)
            at = since + scaled(state, AWAY_MS)
        elif p.id == state.host and not state.host_pending:  # R17.4
            at = since + scaled(state, AWAY_MS) + scaled(state, HOST_AWAY_MS)
        else:
            continue
        due = at if due is None or at < due else due
    return due


def _host_deadline(state: State) -> int | None:
    """R17.4: when an away host, away for 60 s, hands the role on."""
    if state.host_pending:
        return None
    seat = state.seat_of(state.host)
    if seat is None:
        return None
    host = state.players[seat]
    if not host.away or host.gone_since is None:
        return None
    return host.gone_since + scaled(state, AWAY_MS) + scaled(state, HOST_AWAY_MS)


def apply_presence(state: State, due: int, events: list[Event]) -> bool:
    """Apply the presence deadlines that fall due at `due`; True if one did."""
    applied = False
    away_ms = scaled(state, AWAY_MS)
    for p in state.players:
        if p.gone_since is not None and not p.away and p.gone_since + away_ms == due:
            p.away = True  # R17.2
            events.append(Event(EventKind.AWAY, {"player": p.id}))
            applied = True
    if _host_deadline(state) == due:
        pass_host(state, events)  # R17.4
        applied = True
    return applied


def pass_host(state: State, events: list[Event]) -> None:
    """R17.4: the connected human who joined earliest (seat order is join order)
    becomes host; with none connected, the first human who connects will."""
    for p in state.players:
        if p.bot_level is None and p.connected and p.id != state.host:
            state.host = p.id
            state.host_pending = False
            events.append(Event(EventKind.HOST_CHANGED, {"player": p.id}))
            return
    state.host_pending = True


def arrived(state: State, seat: int, now: int, events: list[Event]) -> None:
    """A human seat's player connected at `now`: back from away at once (R17.2),
    the table resumes (R17.6), a pending host role is theirs (R17.4)."""
    p = state.players[seat]
    was_paused = paused(state)
    humans = [q for q in state.players if q.bot_level is None]
    all_away = all(q.away for q in humans)
    since = max((q.gone_since for q in humans if q.gone_since is not None), default=None)
    p.connected = True
    p.gone_since = None
    events.append(Event(EventKind.CONNECTED, {"player": p.id}))
    if p.away:
        p.away = False
        events.append(Event(EventKind.BACK, {"player": p.id}))
    if was_paused:
        resume(state, now, None if all_away else since)
    if state.host_pending:
        state.host_pending = False
        if state.host != p.id:
            state.host = p.id
            events.append(Event(EventKind.HOST_CHANGED, {"player": p.id}))


def resume(state: State, now: int, since: int | None = None) -> None:
    """R17.6: the draw in progress gets its full time again, from `now` (or from
    when the turn may start, if that is later: R14.3); with `since` (the pause began
    then, and not every human seat became away) it gets the time it had left."""
    turn = state.turn
    if state.status == PLAYING and turn is not None and turn.draw_deadline is not None:
        if since is None:
            turn.draw_deadline = deadline_from(state, max(now, turn.may_start_at))
        elif since < turn.draw_deadline:
            turn.draw_deadline += now - since


def to_computer(state: State, seat: int, events: list[Event]) -> None:
    """R17.5: a seat removed during a game is played by a "normal" computer player
    for the rest of the game; a host who leaves hands the role on (R17.4)."""
    p = state.players[seat]
    p.bot_level = BotLevel.NORMAL
    p.connected = False
    p.away = False
    p.gone_since = None
    events.append(Event(EventKind.TOOK_OVER, {"player": p.id}))
    if p.id == state.host:
        pass_host(state, events)
    mark_abandoned(state)


def mark_abandoned(state: State) -> None:
    """No human seat is left: nobody can ever act as a human again, so the server
    deletes the room (`state.abandoned`)."""
    if all(p.bot_level is not None for p in state.players):
        state.abandoned = True
