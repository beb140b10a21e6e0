"""A bench-only probe of the event loop's lag (docs/benchmarks.md, issue 13).

With `CRISP_LOOP_LAG_DIR` set, each server process (each uvicorn worker) wakes
every `EVERY_S` and writes how late it woke, one line per wake-up, to
`$CRISP_LOOP_LAG_DIR/lag-<pid>.txt`: `<unix time s> <lag ms>`. A wake-up that
is late by 600 ms is a 600 ms stall of everything the process serves (a full
garbage collection, a long synchronous step). `crisp bench` sets the variable
and reads the lines of its measured window; `crisp/bench/floor.py` runs the same
probe. Without the variable nothing runs. It is not a setting of the server:
it exists for benchmarks only.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from pathlib import Path

ENV = "CRISP_LOOP_LAG_DIR"
EVERY_S = 0.05
FLUSH_S = 1.0


def start_from_env() -> asyncio.Task[None] | None:
    """Start the probe in the running loop if `CRISP_LOOP_LAG_DIR` is set."""
    folder = os.environ.get(ENV)
    if not folder:
        return None
    path = Path(folder) / f"lag-{os.getpid()}.txt"
    return asyncio.get_running_loop().create_task(_probe(path), name="crisp-loop-lag")


async def stop(task: asyncio.Task[None] | None) -> None:
    """End a probe started by `start_from_env` (its lines are flushed)."""
    if task is None:
        return
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task


async def _probe(path: Path) -> None:
    with path.open("a", encoding="ascii") as out:
        flushed = time.perf_counter()
        try:
            while True:
                before = time.perf_counter()
                await asyncio.sleep(EVERY_S)
                after = time.perf_counter()
                out.write(f"{time.time():.3f} {(after - before - EVERY_S) * 1000:.2f}\n")
                if after - flushed >= FLUSH_S:
                    out.flush()
                    flushed = after
        finally:
            out.flush()


def read_lags(folder: str | Path, start: float, end: float) -> list[float]:
    """The lags (ms) that every probe in `folder` wrote between the unix times
    `start` and `end`."""
    lags: list[float] = []
    for path in Path(folder).glob("lag-*.txt"):
        for line in path.read_text(encoding="ascii").splitlines():
            parts = line.split()
            if len(parts) == 2 and start <= float(parts[0]) <= end:
                lags.append(float(parts[1]))
    return lags
