"""`crisp bench` smoke test: it starts its own server (memory store), plays, reports, stops."""

from __future__ import annotations

import json
import subprocess
import sys

from crisp.bench import table


def test_bench_smoke_memory_store() -> None:
    cmd = [sys.executable, "-m", "crisp.bench", "--rooms", "3", "--duration", "5",
           "--warmup", "1", "--think-ms", "50", "--seed", "1", "--json"]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout)
    assert report["connections"]["opened"] == 12
    assert report["connections"]["failed"] == 0
    assert report["actions"] > 0 and report["actions_per_s"] > 0
    assert report["answered"] > 0 and report["updates_per_s"] > 0
    lat = report["latency_ms"]
    assert lat["n"] == report["answered"]
    assert 0 < lat["p50"] <= lat["p95"] <= lat["p99"] <= lat["max"]
    assert report["processes"]["server"]["peak_rss_mb"] > 0
    assert "latency p99" in table(report)
