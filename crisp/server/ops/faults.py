"""Crash points for tests (a test hook): with `CRISP_TEST_HOOKS=1` and
`CRISP_TEST_FAULT=<point>`, the process kills itself (SIGKILL) when it reaches that
point, as a crash there would, so that a test can prove what survives a crash at an
exact moment (issue 23). Without both settings nothing happens.

Points: `after_look_claim` (an owed look claimed for a socket, not yet written).
"""

from __future__ import annotations

import os
import signal

_armed: str | None = None


def arm(point: str | None) -> None:
    """The point this process dies at (None: none); set once at start."""
    global _armed
    _armed = point


def crash_at(point: str) -> None:
    """Die here if this is the armed point."""
    if _armed == point:
        os.kill(os.getpid(), signal.SIGKILL)
