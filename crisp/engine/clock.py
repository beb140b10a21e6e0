"""Timing as data: the state's deadlines and what happens when they fall due
(R10.4 window close, R14.2 timeouts, R16.2 peek phase end, R17.2 away seats,
R17.4 host hand-over; R17.6: no draw timer fires while the table is paused)."""

from __future__ import annotations

from .events import Event
from .lateness import close_window
from .presence import apply_presence, paused, presence_deadline
from .rounds import end_peek, end_turn
from .state import State
from .turns import take_from_stock
from .vocabulary import PEEK, PLAYING, EventKind


def next_deadline(state: State) -> int | None:
    """The earliest time at which `advance` has something to do, or None."""
    due: int | None = None
    if state.status == PEEK and state.peek_ends_at is not None:
        due = state.peek_ends_at
    if state.windows:  # the oldest window closes first (each lasts 3 s)
        closes = state.windows[0].closes_at
        due = closes if due is None else min(due, closes)
    turn = state.turn
    if (state.status == PLAYING and turn is not None and turn.draw_deadline is not None
            and not paused(state)):
        due = turn.draw_deadline if due is None else min(due, turn.draw_deadline)
    presence = presence_deadline(state)
    if presence is not None:
        due = presence if due is None else min(due, presence)
    return due


def at_moment(state: State, now: int) -> State:
    """The state as it is at `now`: a copy with every due deadline applied, or the
    state itself when none is due. Views and legal lists describe one moment."""
    due = next_deadline(state)
    if due is None or due > now:
        return state
    state = state.copy()
    advance_in_place(state, now, [])
    return state


def advance_in_place(state: State, now: int, events: list[Event]) -> bool:
    """Apply, in time order, every deadline up to `now`. True if anything changed."""
    changed = False
    while True:
        due = next_deadline(state)
        if due is None or due > now:
            return changed
        changed = True
        if state.status == PEEK and state.peek_ends_at == due:
            end_peek(state, due, events)  # R16.2: 10 s after the deal
        elif state.windows and state.windows[0].closes_at == due:
            # R10.4: the oldest 3-second window closed without a call; R18.4: a call
            # already on its way from a slow connection may still be credited
            close_window(state, state.windows.pop(0))
        elif not apply_presence(state, due, events):  # R17.2, R17.4
            time_out(state, due, events)


def time_out(state: State, at: int, events: list[Event]) -> None:
    """R14.2: the current draw ran out of time; the rest of the turn is lost."""
    turn = state.turn
    assert turn is not None
    player = state.players[turn.player]
    events.append(Event(EventKind.TIMEOUT, {"player": player.id}))
    card = state.holding
    if card is None and not turn.started:
        card = take_from_stock(state, events)  # R14.2a: the turn's first draw, made for them
    if card is not None:  # R14.2b: a held card is discarded unused, a King too
        state.holding = None
        state.discard.append(card)
        events.append(Event(EventKind.DISCARDED, {"player": player.id, "card": card.text,
                                          "timeout": True}))
    turn.extra_draws = 0  # R14.2c (revised): nothing is drawn for an extra draw not yet made
    end_turn(state, at, True, events)  # R14.2d: no crisp call, no window; R9.3: the Kings
