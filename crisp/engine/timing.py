"""The durations of the online timing rules, scaled by the table's time scale."""

from __future__ import annotations

from .state import State

PEEK_MS = 10_000  # R16.2: the peek phase lasts at most 10 s
START_DELAY_MS = 2_000  # R10.4: the next player may start 2 s after a turn ended
WINDOW_MS = 3_000  # R10.4: the crisp window lasts 3 s
AWAY_MS = 20_000  # R17.2: a seat with no connection for 20 s is away
HOST_AWAY_MS = 60_000  # R17.4: a host away for 60 s hands the role on


def scaled(state: State, ms: int) -> int:
    """A duration in ms under the table's time scale (CRISP_TIME_SCALE in tests)."""
    return ms if state.time_scale == 1.0 else max(1, round(ms * state.time_scale))


def draw_ms(state: State) -> int | None:
    """The time each draw has (R14.1), or None without a limit."""
    seconds = state.options.draw_seconds
    return None if seconds is None else scaled(state, seconds * 1000)


def deadline_from(state: State, start: int) -> int | None:
    """The deadline of a draw whose time starts at `start` (R14.3)."""
    ms = draw_ms(state)
    return None if ms is None else start + ms
