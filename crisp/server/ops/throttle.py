"""Logs that a client cannot flood (docs/deploy.md, "Logs").

`LogThrottle` lets the first `lines` log lines of a key (a seat and error code,
an address and refusal reason, ...) through in each `interval`, counts the
rest, and hands back the count: with the next line of that key that may be
logged, or from `drain()` once the interval is over (the server drains its
throttles every interval and logs one summary line per key). So a client that
sends garbage a thousand times a second costs one log line per interval.

Keys name clients like the other limits (issue 39): an IPv4 address or an IPv6
/64 (`addresses.client_key`); a line about an IPv6 client also spends from the
/48 around it (`wider`), which has `SITE_FACTOR` times the lines of one key, so
the 65,536 /64s of one site do not get 65,536 budgets. Over all clients one
`LogCeiling` per process (`CEILING`, `CRISP_LOG_CEILING_PER_S`) lets at most so
many lines a second through; past it lines are left out and counted, and one
line per interval says how many (`LogCeiling.drain`). 250 addresses then write
at most the ceiling, not 250 times the per-key budget.

`AccessThrottle` is the same for uvicorn's own lines (a logging filter): its
access log (one line per HTTP request, per client) and the warnings a client can
trigger (invalid HTTP requests).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Hashable
from dataclasses import dataclass

from crisp.server.ops.addresses import client_key, wider_key

MAX_KEYS = 20_000  # keys remembered; beyond, the oldest windows are dropped
SITE_FACTOR = 16  # an IPv6 /48's lines, in lines of one key (like edge/limits.py)
CEILING_PER_S = 20.0  # CRISP_LOG_CEILING_PER_S's default
CEILING_BURST_S = 5.0  # the ceiling's burst, in seconds of its rate


class LogCeiling:
    """At most `per_s` client log lines a second over all clients (a bucket of
    `per_s * CEILING_BURST_S`); the lines it refuses are counted until `drain`."""

    def __init__(self, per_s: float = CEILING_PER_S) -> None:
        self.configure(per_s)

    def configure(self, per_s: float) -> None:
        """Set the rate (the bucket starts full; the count left out is kept)."""
        self.per_s = per_s
        self.burst = max(1.0, per_s * CEILING_BURST_S)
        self.tokens = self.burst
        self.last = time.monotonic()
        self.left_out = getattr(self, "left_out", 0)

    def take(self, now: float | None = None, stands_for: int = 1) -> bool:
        """Spend one line if the ceiling has one; else count it as left out (as
        `stands_for` lines: a summary line of a key's left-out lines)."""
        now = time.monotonic() if now is None else now
        self.tokens = min(self.burst, self.tokens + max(0.0, now - self.last) * self.per_s)
        self.last = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        self.left_out += stands_for
        return False

    def drain(self) -> int:
        """How many lines the ceiling left out since the last drain."""
        count, self.left_out = self.left_out, 0
        return count


# The process's ceiling: every LogThrottle shares it unless given another
# (context.py sets its rate from the settings at start).
CEILING = LogCeiling()


@dataclass
class _Window:
    start: float
    logged: int = 0
    suppressed: int = 0


class LogThrottle:
    """At most `lines` log lines per key per `interval` seconds, and at most
    `lines * SITE_FACTOR` per wider key (an IPv6 /48), all under `ceiling`."""

    def __init__(
        self, interval: float, lines: int = 1, max_keys: int = MAX_KEYS,
        ceiling: LogCeiling | None = None,
    ) -> None:  # fmt: skip
        self.interval = interval
        self.lines = lines
        self.max_keys = max_keys
        self.ceiling = CEILING if ceiling is None else ceiling
        self._windows: dict[Hashable, _Window] = {}

    def allow(
        self, key: Hashable, now: float | None = None, wider: str | None = None
    ) -> int | None:
        """None: leave this line out (it is counted). Otherwise log it: the number is
        how many lines of this key were left out before it (0 usually). `wider`: the
        /48 of an IPv6 client, which shares a larger budget with its /64s; by default
        the /48 of the first part of a tuple key that is an IPv6 client key."""
        now = time.monotonic() if now is None else now
        if wider is None:
            wider = _wider_of(key)
        window = self._window(key, now)
        site = self._window(("site", wider), now) if wider is not None else None
        if (
            window.logged >= self.lines
            or (site is not None and site.logged >= self.lines * SITE_FACTOR)
            or not self.ceiling.take(now)
        ):
            window.suppressed += 1
            return None
        window.logged += 1
        if site is not None:
            site.logged += 1
        left_out, window.suppressed = window.suppressed, 0
        return left_out

    def allow_client(
        self, host: str | None, what: Hashable = None, now: float | None = None
    ) -> int | None:
        """`allow` for a line about the client at `host` (an address or a client key),
        keyed by its `client_key` (and `what`), its /48 as the wider key."""
        return self.allow((client_key(host), what), now)

    def _window(self, key: Hashable, now: float) -> _Window:
        """The key's window, a new one when none is open (carrying the count of
        lines left out in the last one, until a line or `drain` reports it)."""
        window = self._windows.get(key)
        if window is not None and now - window.start < self.interval:
            return window
        if window is None and len(self._windows) >= self.max_keys:
            self._forget_oldest()
        fresh = self._windows[key] = _Window(now, 0, window.suppressed if window else 0)
        return fresh

    def drain(self, now: float | None = None) -> list[tuple[Hashable, int]]:
        """The keys whose interval is over with lines left out, and how many; they
        are forgotten (the next line of such a key is logged at once)."""
        now = time.monotonic() if now is None else now
        done = [k for k, w in self._windows.items() if now - w.start >= self.interval]
        out = [(k, self._windows[k].suppressed) for k in done if self._windows[k].suppressed]
        for key in done:
            del self._windows[key]
        return out

    def _forget_oldest(self) -> None:
        for key in list(self._windows)[: max(1, self.max_keys // 10)]:
            del self._windows[key]


def _wider_of(key: Hashable) -> str | None:
    """The /48 of the first IPv6 client key (`2001:db8:1:2::/64`) in a tuple key."""
    for part in key if isinstance(key, tuple) else (key,):
        if isinstance(part, str) and "/" in part:
            wider = wider_key(part)
            if wider is not None:
                return wider
    return None


class AccessThrottle(logging.Filter):
    """A logging filter for uvicorn's loggers: per client address, at most `lines`
    access lines (websocket handshakes included) per `interval`; a client-triggered
    warning (an invalid HTTP request) at most once per interval. A line that follows
    left-out ones says how many were left out."""

    def __init__(
        self, interval: float = 30.0, lines: int = 100, ceiling: LogCeiling | None = None
    ) -> None:
        super().__init__()
        self.access = LogThrottle(interval, lines, ceiling=ceiling)
        self.warnings = LogThrottle(interval, 1, ceiling=ceiling)

    def filter(self, record: logging.LogRecord) -> bool:
        if record.name == "uvicorn.access" or _websocket_line(record):
            args = record.args
            client = args[0] if isinstance(args, tuple) and args else "-"
            left_out = self.access.allow_client(str(client).rsplit(":", 1)[0])
        elif record.name == "uvicorn.error" and record.levelno == logging.WARNING:
            left_out = self.warnings.allow(str(record.msg))
        else:
            return True
        if left_out is None:
            return False
        if left_out:
            record.msg = f"{record.msg} ({left_out} similar lines left out)"
        return True


def _websocket_line(record: logging.LogRecord) -> bool:
    """uvicorn's line per websocket handshake (`'%s - "WebSocket %s" [accepted]'`, at
    INFO on `uvicorn.error`): an access line like any other (issue 23: one address
    opening websockets in a loop wrote 732 lines a second)."""
    msg = record.msg
    return record.name == "uvicorn.error" and isinstance(msg, str) and '"WebSocket ' in msg
