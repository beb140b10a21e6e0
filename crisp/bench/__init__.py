"""`crisp bench`: load-test a Crisp server with websocket clients (docs/benchmarks.md).

    procs   child processes: redis-server, `crisp serve`, readiness, stops, /proc readings
    client  one websocket per seat playing random legal moves; which frame answers a message
    run     the run itself (ramp, warm-up, measured window) and the command line
    report  the figures as a dict (--json) and as a table
"""

from .report import table
from .run import main

__all__ = ["main", "table"]
