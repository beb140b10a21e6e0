"""`crisp bench` and every other benchmark of the project: the one home of benchmark
code (docs/benchmarks.md, "Layout"); measured results are kept in bench/results/.

Modules, each importing only those above it:

    ports      free loopback ports (per test worker with CRISP_TEST_PORTS)
    child      a child process: its own session, killed with us, its output, stops
    services   redis-server, `crisp serve`, the floor as child processes; Redis's counters
    cluster    a Redis Cluster on loopback, with replicas; kill, freeze, wait for failover
    proxy      the shipped nginx example in front of the server processes
    readings   /proc: a process tree's RSS and CPU, the machine's busy time
    procs      the process helpers above in one import (the test suite uses it)
    answers    which frame answers a client message (the test suite's players use it)
    stats      what a run's clients count
    pacing     how fast they play: the `table` and `fast` paces
    client     one websocket per seat, playing random legal moves at the pace
    report     the figures of a run, its table, the side-by-side with the floor
    run        one run against one target: processes, ramp, warm-up, window
    soak_*     the soak of issue 23 (`crisp bench soak`): client (seats that reconnect
               and record each action), record (the witness of every published
               change), account, ramp, faults, report
    soak       the soak: servers on one Redis under faults, every action accounted for
    cli        the `crisp bench` command line
    matrix     the named runs behind docs/benchmarks.md, and their summary table
    floor      the floor: the stack (FastAPI, uvicorn, redis.asyncio) with no rules
    traced     `crisp serve` with every garbage-collector pause logged
    profile    a py-spy profile of the server summed by area and function
    lighthouse Lighthouse on the web client with applied mobile throttling
"""

from .cli import main
from .report import table

__all__ = ["main", "table"]
