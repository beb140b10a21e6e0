"""The server clock: integer milliseconds since the Unix epoch (protocol.md)."""

from __future__ import annotations

import time


def now_ms() -> int:
    """Current wall-clock time in ms; every `now` given to the engine comes from here."""
    return time.time_ns() // 1_000_000
