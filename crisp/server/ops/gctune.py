"""The garbage collector of a server process (issue 13, docs/benchmarks.md).

With thousands of sockets a process holds about a million objects the cyclic
collector tracks (coroutines, tasks, queues of each connection), and a full
collection of them stopped the event loop for 0.6-1.1 s on a 2-core machine.
Most objects of the hot path live for one change and die by reference
counting; the collector need not look at them that often.

`tune()` runs once the server has started: everything alive then (modules,
the app, settings) goes to the permanent generation (`gc.freeze()`), which no
collection scans again, and the thresholds are raised so that young
collections are rarer (fewer short-lived objects caught alive and promoted)
and a full collection waits for many more of them.
"""

from __future__ import annotations

import gc

THRESHOLDS = (20_000, 20, 50)  # CPython's defaults: (700, 10, 10)


def tune() -> None:
    """Freeze what start-up made and raise the collector's thresholds."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*THRESHOLDS)
