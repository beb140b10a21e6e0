"""Diagnostics: run `crisp serve` with every garbage-collector pause over 5 ms logged.

    CRISP_TEST_HOOKS=1 CRISP_TIME_SCALE=1 ... python -m crisp.bench.traced --port 8765
    crisp bench --url http://127.0.0.1:8765 ...

Each slow collection prints `gc: gen G P ms (collected N)` on stderr, and a
summary every 10 s; `kill -USR1 PID` prints a census of the tracked objects.
Used to find the latency spikes described in docs/benchmarks.md.
"""

from __future__ import annotations

import gc
import os
import signal
import sys
import threading
import time
from collections import Counter
from typing import Any

from crisp.cli import main as crisp_main

_start = 0.0
_last_report = time.monotonic()
_totals = {0: [0, 0.0], 1: [0, 0.0], 2: [0, 0.0]}


def _callback(phase: str, info: dict[str, Any]) -> None:
    global _start, _last_report
    now = time.perf_counter()
    if phase == "start":
        _start = now
        return
    gen = int(info["generation"])
    ms = (now - _start) * 1000
    _totals[gen][0] += 1
    _totals[gen][1] += ms
    if ms > 5:
        print(f"gc: gen {gen} {ms:.1f} ms (collected {info['collected']})", file=sys.stderr,
              flush=True)  # fmt: skip
    if time.monotonic() - _last_report > 10:
        _last_report = time.monotonic()
        parts = [f"gen{g}: {n} runs {t:.0f} ms" for g, (n, t) in _totals.items()]
        print("gc totals: " + ", ".join(parts), file=sys.stderr, flush=True)


def _census(signum: int, frame: Any) -> None:
    """SIGUSR1: print how many objects the collector tracks, by type (top 25)."""
    objs = gc.get_objects()
    counts = Counter(type(o).__qualname__ for o in objs)
    print(f"gc census: {len(objs)} tracked objects; gen counts {gc.get_count()}",
          file=sys.stderr)  # fmt: skip
    for name, n in counts.most_common(25):
        print(f"  {n:9d} {name}", file=sys.stderr)
    sys.stderr.flush()


def _tune() -> None:
    """Experiments, by environment: BENCH_GC_THRESHOLD="700,10,10" (gc.set_threshold)
    and BENCH_GC_FREEZE_S=S (gc.freeze() every S seconds, from a thread)."""
    threshold = os.environ.get("BENCH_GC_THRESHOLD")
    if threshold:
        gc.set_threshold(*(int(x) for x in threshold.split(",")))
    every = float(os.environ.get("BENCH_GC_FREEZE_S") or 0)
    if every > 0:

        def freezer() -> None:
            for _ in range(100_000):
                time.sleep(every)
                gc.freeze()

        threading.Thread(target=freezer, daemon=True).start()
    print(f"gc: thresholds {gc.get_threshold()}, freeze every {every or 'never'} s",
          file=sys.stderr, flush=True)  # fmt: skip


def main(argv: list[str]) -> int:
    """`crisp serve ARGV` with the collector traced (see the module docstring)."""
    gc.callbacks.append(_callback)
    signal.signal(signal.SIGUSR1, _census)
    _tune()
    return crisp_main(["serve", *argv])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
