"""The soak of issue 23 (`crisp bench soak`, docs/benchmarks.md "Soak"): rooms of
websocket players on two `crisp serve` processes sharing one Redis, under a
schedule of faults, then an account of every action a player sent.

Modules, each importing only those above it (and the bench's own `client`,
`pacing`, `stats`, `answers` and `procs` outside it):

    client     seats that reconnect and record each action they send
    record     the witness: every change Redis published, room by room
    account    each action held against that history (the violations)
    ramp       the servers' settings, opening the rooms and seating their players
    faults     the processes under test (`Stack`) and the faults done to them
    report     the samples, the figures, the table and the verdict
    run        the run itself and its command line (`main`)
"""

from .run import SoakConfig, main, run_soak

__all__ = ["SoakConfig", "main", "run_soak"]
