"""`crisp bench` smoke test: it starts its own server (memory store), plays, reports, stops."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from crisp.bench import table
from crisp.bench.report import compare


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


@pytest.mark.redis
def test_bench_floor_side_by_side() -> None:
    """`--floor`: Crisp and bench/floor.py under the same driver, each row with the
    server's CPU per action, its loop lag (the probe), RSS per idle connection and
    Redis bytes per room, and the ratios."""
    cmd = [sys.executable, "-m", "crisp.bench", "--store", "redis", "--floor", "--rooms", "2",
           "--duration", "3", "--warmup", "1", "--think-ms", "50", "--seed", "1",
           "--json"]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-3000:]
    both = json.loads(done.stdout)
    for name in ("crisp", "floor"):
        r = both[name]
        assert r["config"]["target"] == name
        assert r["connections"]["opened"] == 8 and r["answered"] > 0, name
        srv = r["server"]
        assert srv["cpu_ms_per_action"] > 0, name
        assert srv["loop_lag_ms"]["n"] > 10, name  # one wake-up every 50 ms for 3 s
        assert srv["idle_rss_kib_per_conn"] is not None, name
        assert srv["redis_bytes_per_room"] > 0, name
    text = compare(both["crisp"], both["floor"])
    assert "server CPU per action" in text and "x" in text.splitlines()[2]
