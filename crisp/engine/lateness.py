"""R18.4: a crisp call that a slow connection brought after the window's end.

A call counts when the caller made it within the 3 seconds as their phone showed
them (R18.4). The server measures each connection's one-way delay and hands it to
the engine as data, with the action: `CallCrisp(allowance_ms)`. The engine never
reads a socket or a clock; it only credits a call that arrives at most
`min(allowance_ms, LATE_CAP_MS)` after the window's `closes_at` (a game duration,
scaled like the window under test hooks).

To do so it remembers the windows that closed less than the cap ago
(`State.late_windows`): a window that falls due moves there (`close_window`)
instead of vanishing. They are never shown (the view's windows are the open
ones, the update at `closes_at` still says the window closed), have no deadline
of their own (a stale one credits nothing: the check is against `now`), and go
with the round, the call and the rematch, like the open windows. The next
player's start (R10.4: 2 s after the turn ended) does not move.

Why 300 ms, with the arithmetic: docs/server.md, "A fair window on a slow
network".
"""

from __future__ import annotations

from .state import State, Window
from .timing import scaled
from .vocabulary import PLAYING

LATE_CAP_MS = 300  # R18.4: the most a call may be credited, whatever the delay


def late_cap(state: State) -> int:
    """The cap in this table's time (scaled like the window, CRISP_TIME_SCALE)."""
    return scaled(state, LATE_CAP_MS)


def close_window(state: State, window: Window) -> None:
    """`window` fell due (R10.4): keep it among the late windows for the cap's
    length (R18.4), dropping those whose credit has run out by its close."""
    cap = late_cap(state)
    kept = [w for w in state.late_windows if w.closes_at + cap > window.closes_at]
    kept.append(window)
    state.late_windows = kept


def credited(state: State, seat: int, now: int, allowance_ms: int) -> bool:
    """Whether `seat`'s call at `now`, after its window closed, is credited its
    connection's delay: play goes on, nobody has called (R10.3), and a window of
    the seat closed at most min(allowance, cap) ago (strictly: a window is open
    until `closes_at`, exclusive, and its credit the same way). `state` is the table
    at `now` (its due windows closed)."""
    if allowance_ms <= 0 or state.status != PLAYING or state.caller is not None:
        return False
    credit = min(allowance_ms, late_cap(state))
    return any(w.player == seat and w.closes_at <= now < w.closes_at + credit
               for w in state.late_windows)
