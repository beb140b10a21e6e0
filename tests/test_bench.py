"""`crisp bench` smoke tests: it starts its own servers (memory, Redis, a Redis
Cluster, two processes behind nginx), plays, reports, stops. Short runs: they
check that every part runs and reports, not the figures.

Each run is seconds of real-time load (its `--duration` and `--warmup`, whatever the
machine's speed), so they are marked `soak`: run by `.ci/run`'s soak step (`pytest -m
soak`), not by the main run (docs/testing.md, "Where the suite's time goes")."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from typing import Any

import pytest

from crisp.bench import table
from crisp.bench.cli import parser
from crisp.bench.matrix import RUNS
from crisp.bench.report import compare


def bench(*args: str, timeout: float = 180) -> Any:
    cmd = [sys.executable, "-m", "crisp.bench", *args, "--seed", "1", "--json"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


@pytest.mark.soak
def test_bench_smoke_memory_store() -> None:
    report = bench("--rooms", "3", "--duration", "5", "--warmup", "1", "--pace", "fast",
                   "--think-ms", "50")  # fmt: skip
    assert report["connections"]["opened"] == 12
    assert report["connections"]["failed"] == 0
    assert report["actions"] > 0 and report["actions_per_s"] > 0
    assert report["answered"] > 0 and report["updates_per_s"] > 0
    lat = report["latency_ms"]
    assert lat["n"] == report["answered"]
    assert 0 < lat["p50"] <= lat["p95"] <= lat["p99"] <= lat["max"]
    assert report["processes"]["server"]["peak_rss_mb"] > 0
    assert "latency p99" in table(report)


@pytest.mark.soak
def test_a_table_pace_sends_nothing_the_server_refuses() -> None:
    """The default pace: real game time, only moves legal when they arrive; every
    action is answered, the mix has draws and turn moves, and each action makes at
    least one room change (timers make more)."""
    report = bench("--rooms", "3", "--duration", "6", "--warmup", "2", "--think-ms", "300")
    assert report["config"]["pace"] == "table" and report["config"]["time_scale"] == 1.0
    assert report["errors"] == {} and report["unanswered"] == 0
    assert report["answered"] == report["actions"] > 0
    assert {"draw"} <= set(report["mix"]) and report["changes_per_action"] >= 1.0
    assert report["refused"]["sent"] == 0


@pytest.mark.soak
def test_refused_messages_are_counted_apart_from_actions() -> None:
    report = bench("--rooms", "2", "--duration", "5", "--warmup", "2", "--think-ms", "300",
                   "--refused", "1")  # fmt: skip
    assert report["refused"]["sent"] > 0 and report["refused"]["p50_ms"] is not None
    assert report["errors"] == {}  # asked-for refusals are not errors of the run
    assert report["answered"] > 0


@pytest.mark.soak
@pytest.mark.redis
def test_bench_floor_side_by_side() -> None:
    """`--floor`: Crisp and the floor under the same driver, each row with the
    server's CPU per action, its loop lag (the probe), RSS per idle connection,
    Redis bytes per room and commands per action, and the ratios."""
    both = bench("--store", "redis", "--floor", "--rooms", "2", "--duration", "3",
                 "--warmup", "1", "--pace", "fast", "--think-ms", "50")  # fmt: skip
    for name in ("crisp", "floor"):
        r = both[name]
        assert r["config"]["target"] == name
        assert r["connections"]["opened"] == 8 and r["answered"] > 0, name
        srv = r["server"]
        assert srv["cpu_ms_per_action"] > 0, name
        assert srv["loop_lag_ms"]["n"] > 10, name  # one wake-up every 50 ms for 3 s
        assert srv["idle_rss_kib_per_conn"] is not None, name
        assert srv["redis_bytes_per_room"] > 0, name
        assert r["redis"]["commands_per_action"] > 0, name
    text = compare(both["crisp"], both["floor"])
    assert "server CPU per action" in text and "x" in text.splitlines()[2]


@pytest.mark.soak
@pytest.mark.redis
def test_bench_on_a_redis_cluster_with_the_floor() -> None:
    both = bench("--cluster", "--floor", "--rooms", "2", "--duration", "3", "--warmup", "1",
                 "--pace", "fast", "--think-ms", "50", timeout=240)  # fmt: skip
    for name in ("crisp", "floor"):
        r = both[name]
        assert r["config"]["store"] == "cluster" and r["answered"] > 0, name
        assert r["server"]["redis_bytes_per_room"] > 0, name
        assert sum(1 for p in r["processes"] if p.startswith("redis-")) == 3, name


@pytest.mark.soak
@pytest.mark.redis
def test_two_processes_behind_the_shipped_nginx() -> None:
    if not shutil.which("nginx", path="/usr/sbin:/sbin:/usr/bin") or not shutil.which("openssl"):
        pytest.skip("nginx or openssl is not installed (apt-get install nginx-light)")
    r = bench("--store", "redis", "--server-procs", "2", "--proxy", "nginx", "--rooms", "2",
              "--duration", "3", "--warmup", "1", "--pace", "fast", "--think-ms", "50")  # fmt: skip
    assert r["connections"]["opened"] == 8 and r["answered"] > 0 and r["errors"] == {}
    assert {"server", "server-2", "nginx"} <= set(r["processes"])
    assert len(r["server"]["cpu_ms_per_action_per_process"]) == 2


def test_every_named_run_parses() -> None:
    for name, args in RUNS.items():
        parsed = parser().parse_args(args.split())
        assert parsed.rooms > 0, name


@pytest.mark.soak
@pytest.mark.redis
def test_the_two_floors_side_by_side_with_medians() -> None:
    """`--no-crisp --floor --outside-floor --repeat 2` (issue 38): both floors play,
    each run's reports kept by target, in the order they ran."""
    both = bench("--store", "redis", "--no-crisp", "--floor", "--outside-floor", "--repeat", "2",
                 "--rooms", "2", "--duration", "2", "--warmup", "1", "--pace", "fast",
                 "--think-ms", "50")  # fmt: skip
    assert set(both) == {"floor", "outside"}
    for name, runs in both.items():
        assert len(runs) == 2
        for r in runs:
            assert r["config"]["target"] == name and r["answered"] > 0, name
            assert r["redis"]["commands_per_action"] > 0, name
