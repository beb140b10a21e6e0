"""`crisp bench` and every other benchmark of the project: the one home of benchmark
code (docs/benchmarks.md, "Layout"); measured results are kept in bench/results/.

Modules, each importing only those above it:

    procs/     the child processes (its own map): ports, child, readings, services
               (redis-server, `crisp serve`, the floor), cluster, proxy; the package
               names the common helpers in one import (the test suite uses it)
    answers    which frame answers a client message (the test suite's players use it)
    stats      what a run's clients count
    pacing     how fast they play: the `table` and `fast` paces
    client     one websocket per seat, playing random legal moves at the pace
    gameclient a seat of any registered game, played by that game's bot (--game)
    report     the figures of a run, its table, the side-by-side with the floor
    run        one run against one target: processes, ramp, warm-up, window
    soak/      the soak of issue 23 (`crisp bench soak`, its own map): servers on
               one Redis under faults, every action accounted for
    cli        the `crisp bench` command line
    matrix     the named runs behind docs/benchmarks.md, and their summary table
    floor      the floor: the stack (FastAPI, uvicorn, redis.asyncio) with no rules
    outside_floor  an independent floor of the same definition, sharing no code
    traced     `crisp serve` with every garbage-collector pause logged
    profile    a py-spy profile of the server summed by area and function
    lighthouse Lighthouse on the web client with applied mobile throttling
"""

from .cli import main
from .report import table

__all__ = ["main", "table"]
