"""Logs that a client cannot flood (docs/deploy.md, "Logs").

`LogThrottle` lets the first `lines` log lines of a key (a seat and error code,
an address and refusal reason, ...) through in each `interval`, counts the
rest, and hands back the count: with the next line of that key that may be
logged, or from `drain()` once the interval is over (the server drains its
throttles every interval and logs one summary line per key). So a client that
sends garbage a thousand times a second costs one log line per interval.

`AccessThrottle` is the same for uvicorn's own lines (a logging filter): its
access log (one line per HTTP request, per client address) and the warnings a
client can trigger (invalid HTTP requests).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Hashable
from dataclasses import dataclass

MAX_KEYS = 20_000  # keys remembered; beyond, the oldest windows are dropped


@dataclass
class _Window:
    start: float
    logged: int = 0
    suppressed: int = 0


class LogThrottle:
    """At most `lines` log lines per key per `interval` seconds."""

    def __init__(self, interval: float, lines: int = 1, max_keys: int = MAX_KEYS) -> None:
        self.interval = interval
        self.lines = lines
        self.max_keys = max_keys
        self._windows: dict[Hashable, _Window] = {}

    def allow(self, key: Hashable, now: float | None = None) -> int | None:
        """None: leave this line out (it is counted). Otherwise log it: the number is
        how many lines of this key were left out before it (0 usually)."""
        now = time.monotonic() if now is None else now
        window = self._windows.get(key)
        if window is None or now - window.start >= self.interval:
            carried = window.suppressed if window is not None else 0
            if window is None and len(self._windows) >= self.max_keys:
                self._forget_oldest()
            self._windows[key] = _Window(now, 1)
            return carried
        if window.logged < self.lines:
            window.logged += 1
            return 0
        window.suppressed += 1
        return None

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


class AccessThrottle(logging.Filter):
    """A logging filter for uvicorn's loggers: per client address, at most `lines`
    access lines (websocket handshakes included) per `interval`; a client-triggered
    warning (an invalid HTTP request) at most once per interval. A line that follows
    left-out ones says how many were left out."""

    def __init__(self, interval: float = 30.0, lines: int = 100) -> None:
        super().__init__()
        self.access = LogThrottle(interval, lines)
        self.warnings = LogThrottle(interval, 1)

    def filter(self, record: logging.LogRecord) -> bool:
        if record.name == "uvicorn.access" or _websocket_line(record):
            args = record.args
            client = args[0] if isinstance(args, tuple) and args else "-"
            throttle, key = self.access, str(client).rsplit(":", 1)[0]
        elif record.name == "uvicorn.error" and record.levelno == logging.WARNING:
            throttle, key = self.warnings, str(record.msg)
        else:
            return True
        left_out = throttle.allow(key)
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
