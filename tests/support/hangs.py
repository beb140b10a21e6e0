"""A hung test, named and shown (issue 28: "flakes are defects").

pytest-timeout ends a test that runs 300 s by ending its worker, and what it
prints is lost with the worker. A browser test blocks inside Playwright's event
loop while the test itself waits in a suspended greenlet, which no thread dump
shows. So each test gets a watchdog: at `HANG_S` it writes, to
`test-artifacts/hung-<worker>-<n>.txt`, the test's id, every thread's stack and
every suspended greenlet's stack (the test's own Playwright call among them);
the controller prints those files at the end of the run (`report`)."""

from __future__ import annotations

import gc
import os
import sys
import threading
import time
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

HANG_S = 240.0  # before pytest-timeout's 300 s (pyproject.toml) ends the worker
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
PREFIX = "hung-"


def stacks() -> str:
    """Every thread's stack, then every suspended greenlet's."""
    out = []
    for ident, frame in sys._current_frames().items():
        out.append(f"--- thread {ident}\n" + "".join(traceback.format_stack(frame)))
    try:
        import greenlet
    except ImportError:  # pragma: no cover - Playwright brings it
        return "\n".join(out)
    for obj in gc.get_objects():
        try:
            frame = obj.gr_frame if isinstance(obj, greenlet.greenlet) else None
        except ReferenceError:  # a weak proxy whose object is gone
            continue
        if frame is not None:
            out.append("--- greenlet\n" + "".join(traceback.format_stack(frame)))
    return "\n".join(out)


@contextmanager
def watched(nodeid: str, hang_s: float = HANG_S) -> Iterator[None]:
    """Run the block; if it is still running after `hang_s`, write the report."""
    done = threading.Event()
    started = time.monotonic()

    def watch() -> None:
        if done.wait(hang_s):
            return
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        ARTIFACTS.mkdir(exist_ok=True)
        path = ARTIFACTS / f"{PREFIX}{worker}-{int(time.time())}.txt"
        path.write_text(f"{nodeid}: still running after {time.monotonic() - started:.0f} s\n\n"
                        + stacks())  # fmt: skip

    thread = threading.Thread(target=watch, name="hang-watchdog", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()


def clear() -> None:
    """The reports of an earlier run go (the controller, at the start)."""
    for path in ARTIFACTS.glob(f"{PREFIX}*.txt"):
        path.unlink(missing_ok=True)


def report() -> str:
    """The reports of this run, for the end of its output ("" when none)."""
    return "\n\n".join(p.read_text() for p in sorted(ARTIFACTS.glob(f"{PREFIX}*.txt")))
