"""The named runs behind docs/benchmarks.md: run them, and print their table.

    python -m crisp.bench.matrix run [NAME...]     # each run's JSON to bench/results/NAME.json
    python -m crisp.bench.matrix table [NAME...]   # the markdown table of those results

`run` first waits (at most 10 minutes) for the machine to be quiet (1-minute load
under 1.0), then runs `python -m crisp.bench ARGS --seed 1 --json` and prints
its table; the load average when it started goes into the JSON. Without NAMEs,
every run in `ORDER`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from .report import compare, table

RESULTS = Path(__file__).resolve().parents[2] / "bench" / "results"

_FAST = "--pace fast --duration 30"  # issue 10's stress load: 200 ms, time scale 0.05
_HUMAN = "--pace fast --duration 60 --time-scale 1 --think-ms 2500"
_SLOW = "--pace fast --duration 60 --time-scale 1 --think-ms 5000"
_ISSUE13 = ("--pace fast --think-ms 1000 --time-scale 0.1 --crisp-chance 0.15 --duration 20 "
            "--ramp-batch 50 --store redis --aof --floor")  # fmt: skip
_TABLE = "--store redis --aof --floor --duration 30 --ramp-batch 50"  # a real table (issue 27)

RUNS: dict[str, str] = {
    # issue 10 (docs/benchmarks.md, "The matrix")
    "mem-100": f"--store memory --rooms 100 {_FAST}",
    "redis-100": f"--store redis --rooms 100 {_FAST}",
    "mem-100-human": f"--store memory --rooms 100 {_HUMAN}",
    "redis-100-human": f"--store redis --rooms 100 {_HUMAN}",
    "mem-1000": f"--store memory --rooms 1000 {_FAST}",
    "redis-1000": f"--store redis --rooms 1000 {_FAST}",
    "mem-1000-human": f"--store memory --rooms 1000 {_HUMAN}",
    "redis-1000-human": f"--store redis --rooms 1000 {_HUMAN}",
    "redis-1000-human-w2": f"--store redis --rooms 1000 {_HUMAN} --server-workers 2",
    "mem-1000-slow": f"--store memory --rooms 1000 {_SLOW}",
    "redis-1000-slow": f"--store redis --rooms 1000 {_SLOW}",
    "redis-1000-slow-w2": f"--store redis --rooms 1000 {_SLOW} --server-workers 2",
    "redis-1000-slow-pool": f"--store redis --rooms 1000 {_SLOW} --redis-max-connections 4000",
    # issue 13's profile against the floor, and issue 27's table against the floor
    "issue13-250": f"{_ISSUE13} --rooms 250",
    "issue13-1000": f"{_ISSUE13} --rooms 1000",
    "table-250": f"{_TABLE} --rooms 250",
    "table-1000": f"{_TABLE} --rooms 1000",
    "table-250-refused": f"{_TABLE} --rooms 250 --refused 0.25",
    "cluster-250": f"{_TABLE.replace('--store redis', '--cluster')} --rooms 250",
    "cluster-1000": f"{_TABLE.replace('--store redis', '--cluster')} --rooms 1000",
    "procs1-nginx-250": "--store redis --aof --duration 30 --ramp-batch 50 --rooms 250 "
                        "--server-procs 1 --proxy nginx",
    "procs2-nginx-250": "--store redis --aof --duration 30 --ramp-batch 50 --rooms 250 "
                        "--server-procs 2 --proxy nginx",
    "procs1-nginx-1000": "--store redis --aof --duration 30 --ramp-batch 50 --rooms 1000 "
                         "--server-procs 1 --proxy nginx",
    "procs2-nginx-1000": "--store redis --aof --duration 30 --ramp-batch 50 --rooms 1000 "
                         "--server-procs 2 --proxy nginx",
}  # fmt: skip
ORDER = list(RUNS)

HEAD = ("| run | target | rooms | pace | actions/s | p50 | p95 | p99 | CPU/action | errors "
        "| server CPU | others CPU | load |")  # fmt: skip


def _quiet(limit: float = 1.0, wait_s: float = 600.0) -> float:
    """Wait until the 1-minute load is under `limit` (at most `wait_s`); the load then."""
    deadline = time.monotonic() + wait_s
    while os.getloadavg()[0] >= limit and time.monotonic() < deadline:
        time.sleep(10)  # the load average moves slowly: look again in a while
    return os.getloadavg()[0]


def run(names: list[str]) -> None:
    RESULTS.mkdir(parents=True, exist_ok=True)
    for name in names or ORDER:
        load = _quiet()
        args = [*RUNS[name].split(), "--seed", "1", "--json"]
        print(f"== {name}: crisp bench {' '.join(args)} (load {load:.2f})", flush=True)
        done = subprocess.run([sys.executable, "-m", "crisp.bench", *args],
                              capture_output=True, text=True)  # fmt: skip
        if done.returncode not in (0, 1):
            print(f"exit {done.returncode}: {done.stderr[-2000:]}")
            continue
        report = json.loads(done.stdout)
        report["loadavg_at_start"] = round(load, 2)
        (RESULTS / f"{name}.json").write_text(json.dumps(report, indent=2) + "\n")
        if "crisp" in report:
            print(table(report["crisp"]) + "\n\n" + table(report["floor"]) + "\n")
            print(compare(report["crisp"], report["floor"]))
        else:
            print(table(report))


def row(name: str, r: dict[str, Any], target: str) -> str:
    c, lat = r["config"], r["latency_ms"]
    pace = f"{c.get('pace', '-')} {c['think_ms'] / 1000:g} s, x{c['time_scale']:g}"
    errors = ", ".join(f"{k} {v}" for k, v in sorted(r["errors"].items())) or "-"
    cells = [name, target, str(c["rooms"]), pace, f"{r['answered_per_s']:g}",
             *(f"{lat[k]:g}" if lat[k] is not None else "-" for k in ("p50", "p95", "p99")),
             f"{r.get('server', {}).get('cpu_ms_per_action', '-')}", errors,
             f"{r['processes'].get('server', {}).get('cpu_pct', 0):g} %",
             f"{r['machine']['others_pct']:g} %",
             f"{r['machine'].get('loadavg_1m', '-')}"]  # fmt: skip
    return "| " + " | ".join(cells) + " |"


def summary(names: list[str]) -> str:
    names = names or [n for n in ORDER if (RESULTS / f"{n}.json").exists()]
    lines = [HEAD, "|" + "---|" * (HEAD.count(" | ") + 1)]
    for name in names:
        report = json.loads((RESULTS / f"{name}.json").read_text())
        if "crisp" in report:
            lines.append(row(name, report["crisp"], "crisp"))
            lines.append(row(name, report["floor"], "floor"))
        else:
            lines.append(row(name, report, report["config"].get("target", "crisp")))
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in ("run", "table") or not set(argv[1:]) <= set(RUNS):
        print(__doc__, file=sys.stderr)
        print("runs: " + ", ".join(ORDER), file=sys.stderr)
        return 2
    if argv[0] == "run":
        run(argv[1:])
    else:
        print(summary(argv[1:]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
