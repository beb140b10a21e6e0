"""`crisp bench`: load-test a Crisp server with websocket clients playing random legal moves.

It starts the server itself (`--store memory|redis`; for Redis a private
`redis-server` without persistence), or targets a running one (`--url`), opens
`--rooms` rooms of `--players` clients in batches, plays for `--duration`
seconds and reports the action-to-update latency, throughput, errors, the
server's (and Redis's) peak RSS and CPU, and the generator's own CPU. Loopback
only. See docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import random
import resource
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Coroutine
from typing import Any
from urllib.parse import urlsplit

import httpx

from crisp.server.ops import looplag

from .client import Client, Room, Stats
from .procs import (
    CrispServer,
    Proc,
    Watched,
    machine_busy,
    redis_data_bytes,
    start_crisp,
    start_floor,
    start_redis,
)
from .report import Window, build, compare, table

SAMPLE_EVERY_S = 0.5


def start_server(
    args: argparse.Namespace, redis_url: str | None, lag_dir: str | None = None
) -> CrispServer:
    """`crisp serve` for the run: test hooks, the time scale, no rate limits: every
    client is on this one address (HTTP limits off, no cap of connections per client,
    no message budget per client). `lag_dir`: where its loop-lag probe writes."""
    env = dict(os.environ)
    env.pop("CRISP_REDIS_URL", None)
    if lag_dir:
        env[looplag.ENV] = lag_dir
    env.update({
        "CRISP_WORKERS": str(args.server_workers),
        "CRISP_TEST_HOOKS": "1", "CRISP_TIME_SCALE": str(args.time_scale),
        "CRISP_RATE_PER_S": "1000", "CRISP_RATE_BURST": "10000", "CRISP_RATE_STRIKES": "1000",
        "CRISP_HTTP_LIMITS": "off", "CRISP_MAX_CONNECTIONS_PER_CLIENT": "0",
        "CRISP_CLIENT_RATE_PER_S": "100000",
        "CRISP_LOG_LEVEL": "error", "PYTHONUNBUFFERED": "1",
    })  # fmt: skip
    if redis_url:
        env["CRISP_REDIS_URL"] = redis_url
    for item in args.server_env:
        key, _, value = item.partition("=")
        env[key] = value
    return start_crisp(env, port=args.port or None, workers=args.server_workers,
                       ready="/readyz", timeout=60, log=args.server_log)  # fmt: skip


class Bench:
    """One run: opens the rooms, lets their clients play, measures a window."""

    def __init__(
        self,
        args: argparse.Namespace,
        url: str,
        watched: list[Watched],
        redis_url: str | None = None,
        lag_dir: str | None = None,
    ) -> None:
        self.args = args
        self.url = url
        self.redis_url = redis_url  # for its memory per room
        self.lag_dir = lag_dir  # the server's loop-lag probe (crisp/server/looplag.py)
        self.ws_url = "ws" + url[4:]
        self.watched = watched
        self.stats = Stats()
        self.rng = random.Random(args.seed)
        self.clients: list[Client] = []
        self.rooms: list[Room] = []
        self.t_measure = float("inf")
        self.tasks: set[asyncio.Task[Any]] = set()
        self.lags: list[float] = []

    def think(self) -> float:
        return float(self.args.think_ms) / 1000 * (0.5 + self.rng.random())

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[Any]) -> None:
        self.tasks.discard(task)
        if not task.cancelled() and task.exception() is not None and self.stats.measuring:
            self.stats.errors["send_failed"] += 1

    async def room(self, http: httpx.AsyncClient, i: int) -> None:
        try:
            seats: list[dict[str, Any]] = []
            for k in range(self.args.players):
                path = "/api/rooms" if k == 0 else f"/api/rooms/{seats[0]['code']}/players"
                r = await http.post(path, json={"name": f"bench{i}-{k}"})
                r.raise_for_status()
                seats.append(r.json())
        except (httpx.HTTPError, KeyError, ValueError) as exc:
            self.stats.failed += self.args.players
            self.stats.fail_reasons[f"http:{type(exc).__name__}"] += self.args.players
            return
        room = Room(seats[0]["code"], len(seats))
        clients = [Client(self, room, s["player_id"], s["token"], k == 0)
                   for k, s in enumerate(seats)]  # fmt: skip
        self.clients.extend(clients)
        self.rooms.append(room)
        await asyncio.gather(*(c.open(self.ws_url) for c in clients))

    async def _sampler(self) -> None:
        loop = asyncio.get_running_loop()
        while not self.stats.stopping:
            for w in self.watched:
                w.sample()
            now = time.perf_counter()
            for c in self.clients:
                c.sweep(now)
            t = loop.time()
            await asyncio.sleep(SAMPLE_EVERY_S)
            if self.stats.measuring:
                self.lags.append((loop.time() - t - SAMPLE_EVERY_S) * 1000)

    async def run(self) -> dict[str, Any]:
        a, st = self.args, self.stats
        idle_rss = self.watched[0].sample()[0] if self.watched else 0
        sampler = asyncio.create_task(self._sampler())
        limits = httpx.Limits(max_connections=64, max_keepalive_connections=64)
        t_start = time.perf_counter()
        async with httpx.AsyncClient(base_url=self.url, limits=limits, timeout=30,
                                     trust_env=False) as http:  # fmt: skip
            for first in range(0, a.rooms, a.ramp_batch):
                if time.perf_counter() - t_start > a.ramp_timeout:
                    st.fail_reasons["ramp_timeout"] += (a.rooms - first) * a.players
                    break
                batch = range(first, min(a.rooms, first + a.ramp_batch))
                await asyncio.gather(*(self.room(http, i) for i in batch))
                await asyncio.sleep(a.ramp_pause)
        ramp_s = time.perf_counter() - t_start
        # Every socket is open and idle in its lobby: the server's memory per connection.
        await asyncio.sleep(1.0)
        if self.watched and st.opened:
            idle_rss = (self.watched[0].sample()[0] - idle_rss) // st.opened
        # Every room waits in its lobby until now; hosts start within the warm-up.
        gc.collect()
        gc.freeze()  # the clients are long-lived: keep them out of the collector's scans
        loop = asyncio.get_running_loop()
        for c in self.clients:
            if c.host and c.ws is not None:
                c.room.go = True
                loop.call_later(self.rng.uniform(0, a.warmup / 2), c.replan)
        await asyncio.sleep(a.warmup)
        cpu0, pcpu0 = time.process_time(), [w.sample()[1] for w in self.watched]
        busy0 = machine_busy()
        self.t_measure = time.perf_counter()
        epoch0 = time.time()
        st.measuring = True
        await asyncio.sleep(a.duration)
        st.measuring = False
        window = time.perf_counter() - self.t_measure
        cpu1, pcpu1 = time.process_time(), [w.sample()[1] for w in self.watched]
        busy = machine_busy() - busy0
        epoch1 = time.time()
        redis_mem = 0
        if self.redis_url and self.rooms:
            redis_mem = redis_data_bytes(self.redis_url) // len(self.rooms)
        st.stopping = True
        await self._close_all()
        sampler.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await sampler
        for w in self.watched:
            w.sample()
        measured = Window(
            ramp_s=ramp_s,
            seconds=window,
            generator_cpu_s=cpu1 - cpu0,
            process_cpu_s=[c1 - c0 for c0, c1 in zip(pcpu0, pcpu1, strict=True)],
            machine_busy_s=busy,
            loop_lags_ms=self.lags,
            event_loop=type(asyncio.get_running_loop()).__module__,
            server_lags_ms=looplag.read_lags(self.lag_dir, epoch0, epoch1)
            if self.lag_dir else [],
            idle_rss_per_conn=idle_rss if self.watched and st.opened else None,
            redis_bytes_per_room=redis_mem if self.redis_url and self.rooms else None,
        )
        return build(a, self.url, st, self.watched, measured)

    async def _close_all(self) -> None:
        for c in self.clients:
            c._cancel()
        socks = [c.ws for c in self.clients if c.ws is not None]
        for i in range(0, len(socks), 500):
            chunk = socks[i : i + 500]
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.gather(*(s.close() for s in chunk),
                                                      return_exceptions=True), 10)  # fmt: skip
        tasks = [c.task for c in self.clients if c.task is not None] + list(self.tasks)
        for t in tasks:
            t.cancel()
        await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), 10)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="crisp bench", description=__doc__.split("\n\n")[0])
    p.add_argument("--store", choices=("memory", "redis"), default="memory")
    p.add_argument(
        "--floor",
        action="store_true",
        help="then run bench/floor.py (the stack with no rules) under the same load, and "
        "print both rows and the ratios (Redis only)",
    )
    p.add_argument(
        "--aof", action="store_true", help="Redis with append-only on (appendfsync everysec)"
    )
    p.add_argument("--url", help="target a running server (http://127.0.0.1:PORT) instead")
    p.add_argument("--server-workers", type=int, default=1, metavar="N")
    p.add_argument("--port", type=int, default=0, help="port for the server (default: free)")
    p.add_argument(
        "--server-env",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="extra environment for the server (repeatable)",
    )
    p.add_argument(
        "--redis-max-connections",
        type=int,
        metavar="N",
        help="append ?max_connections=N to the server's Redis URL (redis-py's pool size)",
    )
    p.add_argument("--server-log", metavar="PATH", help="keep the server's output in PATH")
    p.add_argument("--rooms", type=int, default=10)
    p.add_argument("--players", type=int, default=4, choices=range(2, 9), metavar="2-8")
    p.add_argument("--duration", type=float, default=30.0, metavar="S")
    p.add_argument(
        "--think-ms",
        type=float,
        default=200.0,
        help="mean think time before each move (uniform 0.5x-1.5x)",
    )
    p.add_argument("--time-scale", type=float, default=0.05, help="CRISP_TIME_SCALE")
    p.add_argument(
        "--crisp-chance",
        type=float,
        default=0.15,
        help="probability of calling crisp when the window opens",
    )
    p.add_argument("--ramp-batch", type=int, default=25, help="rooms opened at once")
    p.add_argument("--ramp-pause", type=float, default=0.05, metavar="S")
    p.add_argument("--ramp-timeout", type=float, default=300.0, metavar="S")
    p.add_argument(
        "--warmup",
        type=float,
        default=None,
        metavar="S",
        help="hosts start their games in its first half, then the window opens "
        "(default: 2 s + 6 mean think times)",
    )
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--no-uvloop", action="store_true")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    return p


def main(argv: list[str]) -> int:
    """`crisp bench ARGS` (also `crisp bench -- ARGS` and `python -m crisp.bench ARGS`)."""
    args = _parser().parse_args(argv[1:] if argv[:1] == ["--"] else argv)
    if args.warmup is None:
        args.warmup = round(2 + 6 * args.think_ms / 1000, 2)
    if args.rooms < 1 or args.duration <= 0 or args.ramp_batch < 1 or args.server_workers < 1:
        print("crisp bench: --rooms, --duration, --ramp-batch, --server-workers must be > 0",
              file=sys.stderr)  # fmt: skip
        return 2
    if args.url and urlsplit(args.url).hostname not in ("127.0.0.1", "localhost", "::1"):
        print("crisp bench: loopback targets only", file=sys.stderr)
        return 2
    if args.floor and (args.url or args.store != "redis"):
        print("crisp bench: --floor needs --store redis (and no --url)", file=sys.stderr)
        return 2
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    try:
        reports = [run_target(args, "crisp")]
        if args.floor:
            reports.append(run_target(args, "floor"))
    except RuntimeError as exc:
        print(f"crisp bench: {exc}", file=sys.stderr)
        return 2
    finally:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    if args.json:
        out: Any = reports[0] if len(reports) == 1 else {"crisp": reports[0], "floor": reports[1]}
        print(json.dumps(out, indent=2))
    else:
        print("\n\n".join(table(r) for r in reports))
        if len(reports) == 2:
            print("\n" + compare(reports[0], reports[1]))
    return 0 if all(r["answered"] > 0 for r in reports) else 1


def run_target(args: argparse.Namespace, kind: str) -> dict[str, Any]:
    """One run against `kind` ("crisp": `crisp serve`, or `--url`; "floor":
    bench/floor.py), each with its own redis-server; raises RuntimeError if a
    process does not start."""
    procs: list[Proc] = []
    watched: list[Watched] = []
    lag_dir = tempfile.mkdtemp(prefix="crisp-bench-lag-")
    aof_dir = tempfile.mkdtemp(prefix="crisp-bench-aof-") if args.aof else None
    redis_url: str | None = None
    try:
        if args.url:
            url = args.url.rstrip("/")
        else:
            if args.store == "redis":
                redis = start_redis(max_clients=20000, appendonly_dir=aof_dir,
                                    appendfsync="everysec")  # fmt: skip
                procs.append(redis)
                redis_url = redis.url
                watched.append(Watched("redis-server", redis.pid))
            server: Proc
            if kind == "floor":
                assert redis_url is not None
                env = {**os.environ, looplag.ENV: lag_dir}
                server = start_floor(env, redis_url, workers=args.server_workers,
                                     log=args.server_log)  # fmt: skip
                url = server.base
            else:
                server_redis = redis_url
                if redis_url and args.redis_max_connections:
                    server_redis = f"{redis_url}?max_connections={args.redis_max_connections}"
                server = start_server(args, server_redis, lag_dir)
                url = server.base
            procs.append(server)
            watched.insert(0, Watched("server", server.pid))
        bench = Bench(args, url, watched, redis_url, None if args.url else lag_dir)
        factory: Callable[[], asyncio.AbstractEventLoop] | None = None
        if not args.no_uvloop:
            with contextlib.suppress(ImportError):
                import uvloop

                factory = uvloop.new_event_loop
        with asyncio.Runner(loop_factory=factory) as runner:
            report = runner.run(bench.run())
    finally:
        for proc in reversed(procs):
            proc.stop()
        for folder in (lag_dir, aof_dir):
            if folder:
                shutil.rmtree(folder, ignore_errors=True)
    report["config"]["target"] = kind
    report["config"]["aof"] = bool(args.aof)
    return report
