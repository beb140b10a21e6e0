"""Print the markdown table of docs/benchmarks.md from bench/results/*.json.

python bench/summarize.py [NAME...]     (default: every result, in run_matrix order)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ORDER = ["mem-100", "redis-100", "mem-100-human", "redis-100-human", "mem-1000", "redis-1000",
         "mem-1000-human", "redis-1000-human", "redis-1000-human-w2", "mem-1000-slow",
         "redis-1000-slow", "redis-1000-slow-w2", "redis-1000-slow-pool"]  # fmt: skip
HEAD = ("| run | rooms | pace | store (workers) | actions/s | updates/s | p50 | p95 | p99 | max "
        "| errors | server RSS / CPU | redis RSS / CPU | generator CPU | others CPU |")  # fmt: skip


def row(name: str, r: dict[str, Any]) -> str:
    c, lat, p = r["config"], r["latency_ms"], r["processes"]
    pace = f"{c['think_ms'] / 1000:g} s, x{c['time_scale']:g}"
    store = f"{c['store']} ({c['server_workers']})"
    if c.get("redis_max_connections"):
        store += f" pool {c['redis_max_connections']}"
    errors = ", ".join(f"{k} {v}" for k, v in sorted(r["errors"].items())) or "-"
    srv = p.get("server", {})
    red = p.get("redis-server")
    cells = [
        name, str(c["rooms"]), pace, store,
        f"{r['answered_per_s']:g}" + ("" if r["answered_per_s"] == r["actions_per_s"]
                                      else f" ({r['actions_per_s']:g} sent)"),
        f"{r['updates_per_s']:g}",
        *(f"{lat[k]:g}" if lat[k] is not None else "-" for k in ("p50", "p95", "p99", "max")),
        errors,
        f"{srv.get('peak_rss_mb', 0):g} MB / {srv.get('cpu_pct', 0):g} %",
        f"{red['peak_rss_mb']:g} MB / {red['cpu_pct']:g} %" if red else "-",
        f"{r['generator']['cpu_pct']:g} %",
        f"{r['machine']['others_pct']:g} %",
    ]  # fmt: skip
    return "| " + " | ".join(cells) + " |"


def main(names: list[str]) -> None:
    results = Path(__file__).parent / "results"
    names = names or [n for n in ORDER if (results / f"{n}.json").exists()]
    print(HEAD)
    print("|" + "---|" * HEAD.count(" | ") + "---|")
    for name in names:
        print(row(name, json.loads((results / f"{name}.json").read_text())))


if __name__ == "__main__":
    main(sys.argv[1:])
