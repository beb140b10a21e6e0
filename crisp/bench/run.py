"""One `crisp bench` run against one target: the processes it needs (Redis or a
Redis Cluster, `crisp serve` or the floor, one process or several, nginx in
front or not), the rooms and their clients, the ramp, the warm-up and the
measured window, and what is read around it (CPU, RSS, loop lag, Redis
counters)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import os
import random
import shutil
import ssl
import tempfile
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from crisp.server.ops import looplag

from .client import Client, Room
from .gameclient import GameClient, game_for, hosted_check
from .pacing import Pace, pace_for
from .procs.child import Proc
from .procs.cluster import RedisClusterProcs, start_redis_cluster
from .procs.proxy import insecure_tls, start_nginx
from .procs.readings import Watched, machine_busy
from .procs.services import (
    CrispServer,
    FloorServer,
    redis_counters,
    redis_data_bytes,
    start_crisp,
    start_floor,
    start_redis,
)
from .redis_account import Monitor, merged
from .report import Window, build
from .stats import Stats

SAMPLE_EVERY_S = 0.5


def server_env(args: argparse.Namespace, pace: Pace, redis_url: str | None,
               lag_dir: str | None) -> dict[str, str]:  # fmt: skip
    """`crisp serve`'s environment for a run: test hooks (for the time scale), no
    per-client limits (every client is on this one address: HTTP limits off, no
    cap of connections per client, no message budget per client), the loop-lag
    probe writing to `lag_dir`."""
    env = dict(os.environ)
    env.pop("CRISP_REDIS_URL", None)
    if lag_dir:
        env[looplag.ENV] = lag_dir
    env.update({
        "CRISP_WORKERS": str(args.server_workers),
        "CRISP_TEST_HOOKS": "1", "CRISP_TIME_SCALE": str(pace.time_scale),
        "CRISP_RATE_PER_S": "1000", "CRISP_RATE_BURST": "10000", "CRISP_RATE_STRIKES": "1000",
        "CRISP_HTTP_LIMITS": "off", "CRISP_MAX_CONNECTIONS_PER_CLIENT": "0",
        "CRISP_CLIENT_RATE_PER_S": "100000", "CRISP_TRUSTED_PROXIES": "127.0.0.1",
        "CRISP_LOG_LEVEL": "error", "PYTHONUNBUFFERED": "1",
    })  # fmt: skip
    if redis_url:
        env["CRISP_REDIS_URL"] = redis_url
    for item in args.server_env:
        key, _, value = item.partition("=")
        env[key] = value
    return env


@dataclass
class Target:
    """What a run drives and watches: the URLs the clients spread their seats over
    (one, or one per server process without a proxy), the processes, how to read
    Redis (its URLs, one per master), the TLS context through a proxy."""

    urls: list[str]
    procs: list[Proc] = field(default_factory=list)
    watched: list[Watched] = field(default_factory=list)
    redis_urls: list[str] = field(default_factory=list)
    tls: ssl.SSLContext | None = None


class Bench:
    """One run: opens the rooms, lets their clients play, measures a window. It is
    the clients' `Driver` (client.py)."""

    def __init__(self, args: argparse.Namespace, target: Target, lag_dir: str | None,
                 game: str | None = None) -> None:  # fmt: skip
        self.args = args
        self.game = game  # --game: seats play it with its bots (gameclient.py)
        self.target = target
        self.lag_dir = lag_dir  # the servers' loop-lag probe (crisp/server/ops/looplag.py)
        self.pace: Pace = args.pace_obj
        self.refused: float = args.refused
        self.stats = Stats()
        self.rng = random.Random(args.seed)
        self.clients: list[Client] = []
        self.rooms: list[Room] = []
        self.t_measure = float("inf")
        self.t_stop = float("inf")
        self.tasks: set[asyncio.Task[Any]] = set()
        self.lags: list[float] = []
        self._seat = 0  # seats spread round-robin over the target's URLs

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[Any]) -> None:
        self.tasks.discard(task)
        if not task.cancelled() and task.exception() is not None and self.stats.measuring:
            self.stats.errors["send_failed"] += 1

    def _next_url(self) -> str:
        url = self.target.urls[self._seat % len(self.target.urls)]
        self._seat += 1
        return url

    async def room(self, http: httpx.AsyncClient, i: int) -> None:
        n = self.args.players
        try:
            seats: list[dict[str, Any]] = []
            for k in range(n):
                path = "/api/rooms" if k == 0 else f"/api/rooms/{seats[0]['code']}/players"
                body = {"name": f"bench{i}-{k}"}
                if self.game and k == 0:
                    body["game"] = self.game
                r = await http.post(self.target.urls[0] + path, json=body)
                r.raise_for_status()
                seats.append(r.json())
        except (httpx.HTTPError, KeyError, ValueError) as exc:
            self.stats.failed += n
            self.stats.fail_reasons[f"http:{type(exc).__name__}"] += n
            return
        room = Room(seats[0]["code"], len(seats))
        if self.game:
            game = game_for(self.game, n)
            room.clients = [GameClient(self, room, s["player_id"], s["token"], k == 0, game,
                                       self.args.bot_level) for k, s in enumerate(seats)]
        else:
            room.clients = [Client(self, room, s["player_id"], s["token"], k == 0)
                            for k, s in enumerate(seats)]  # fmt: skip
        self.clients.extend(room.clients)
        self.rooms.append(room)
        await asyncio.gather(*(c.open("ws" + self._next_url()[4:], self.target.tls)
                               for c in room.clients))  # fmt: skip

    async def _sampler(self) -> None:
        loop = asyncio.get_running_loop()
        while not self.stats.stopping:
            for w in self.target.watched:
                w.sample()
            now = time.perf_counter()
            for c in self.clients:
                c.sweep(now)
            t = loop.time()
            await asyncio.sleep(SAMPLE_EVERY_S)
            if self.stats.measuring:
                self.lags.append((loop.time() - t - SAMPLE_EVERY_S) * 1000)

    def _server_rss(self) -> int:
        return sum(w.sample()[0] for w in self.target.watched if w.name.startswith("server"))

    def _redis_counters(self) -> dict[str, int]:
        total: dict[str, int] = {}
        for url in self.target.redis_urls:
            for key, value in redis_counters(url).items():
                total[key] = total.get(key, 0) + value
        return total

    async def run(self) -> dict[str, Any]:
        a, st, watched = self.args, self.stats, self.target.watched
        idle_rss = self._server_rss()
        sampler = asyncio.create_task(self._sampler())
        limits = httpx.Limits(max_connections=64, max_keepalive_connections=64)
        t_start = time.perf_counter()
        async with httpx.AsyncClient(limits=limits, timeout=30, trust_env=False,
                                     verify=self.target.tls or True) as http:  # fmt: skip
            if self.game:
                listing = await http.get(self.target.urls[0] + "/api/games")
                problem = hosted_check(self.game, listing.json() if listing.is_success else {})
                if problem:
                    raise RuntimeError(problem)
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
        idle_per_conn = (self._server_rss() - idle_rss) // st.opened if st.opened else None
        # Every room waits in its lobby until now; hosts start within the warm-up.
        gc.collect()
        gc.freeze()  # the clients are long-lived: keep them out of the collector's scans
        loop = asyncio.get_running_loop()
        for c in self.clients:
            if c.counter and c.ws is not None:
                c.room.go = True
                loop.call_later(self.rng.uniform(0, a.warmup / 2), c.replan)
        await asyncio.sleep(a.warmup)
        redis0 = await asyncio.to_thread(self._redis_counters)
        monitors = [Monitor(u) for u in self.target.redis_urls] if a.redis_account else []
        for m in monitors:
            m.start()
        cpu0, pcpu0 = time.process_time(), [w.sample()[1] for w in watched]
        busy0 = machine_busy()
        self.t_measure = time.perf_counter()
        epoch0 = time.time()
        st.measuring = True
        await asyncio.sleep(a.duration)
        st.measuring = False
        self.t_stop = time.perf_counter()
        window = self.t_stop - self.t_measure
        cpu1, pcpu1 = time.process_time(), [w.sample()[1] for w in watched]
        busy = machine_busy() - busy0
        epoch1 = time.time()
        redis1 = await asyncio.to_thread(self._redis_counters)
        accounts = [m.stop() for m in monitors]
        redis_bytes = None
        if self.target.redis_urls and self.rooms:
            total = sum(redis_data_bytes(u) for u in self.target.redis_urls)
            redis_bytes = total // len(self.rooms)
        st.stopping = True
        await self._close_all()
        sampler.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await sampler
        for w in watched:
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
            idle_rss_per_conn=idle_per_conn if watched else None,
            redis_bytes_per_room=redis_bytes,
            redis_delta={k: v - redis0.get(k, 0) for k, v in redis1.items()},
        )
        report = build(a, self.target.urls[0], st, watched, measured)
        if accounts and report["redis"] and st.answered:
            report["redis"]["by_call"] = merged(accounts).per(st.answered)
        return report

    async def _close_all(self) -> None:
        for c in self.clients:
            c.cancel()
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


def _start_store(args: argparse.Namespace, target: Target, aof_dir: str | None) -> str | None:
    """Redis (or a Redis Cluster) for the run, if it needs one: its store URL."""
    if args.cluster:
        cluster: RedisClusterProcs = start_redis_cluster(
            args.cluster_masters, replicas=args.cluster_replicas, appendonly=args.aof,
            appendfsync="everysec")  # fmt: skip
        target.procs.extend(cluster.nodes)
        for node in cluster.nodes:
            target.watched.append(Watched(f"redis-{node.port}", node.pid))
        target.redis_urls = [f"redis://127.0.0.1:{p}/0" for p in cluster.masters()]
        return cluster.url
    if args.store != "redis":
        return None
    redis = start_redis(max_clients=20000, appendonly_dir=aof_dir, appendfsync="everysec")
    target.procs.append(redis)
    target.watched.append(Watched("redis-server", redis.pid))
    target.redis_urls = [redis.url]
    return redis.url


def _start_servers(args: argparse.Namespace, kind: str, store_url: str | None,
                   lag_dir: str, target: Target) -> list[int]:  # fmt: skip
    """`--server-procs` processes of `crisp serve` (or the floor) on the store: their
    ports, first in `target.watched`."""
    ports = []
    for i in range(args.server_procs):
        server: CrispServer | FloorServer
        name = "server" if i == 0 else f"server-{i + 1}"
        if kind in ("floor", "outside"):
            assert store_url is not None
            env = {**os.environ, looplag.ENV: lag_dir}
            server = start_floor(env, store_url, workers=args.server_workers,
                                 log=args.server_log,
                                 module="floor" if kind == "floor" else "outside_floor")
        else:
            url = store_url
            if url and args.redis_max_connections:
                pool = f"max_connections={args.redis_max_connections}"
                url += ("&" if "?" in url else "?") + pool
            env = server_env(args, args.pace_obj, url, lag_dir)
            server = start_crisp(env, port=args.port or None, workers=args.server_workers,
                                 ready="/readyz", timeout=60, log=args.server_log)  # fmt: skip
        ports.append(server.port)
        target.procs.append(server)
        target.watched.insert(i, Watched(name, server.pid))
    return ports


def run_target(args: argparse.Namespace, kind: str) -> dict[str, Any]:
    """One run against `kind` ("crisp": `crisp serve`, or `--url`; "floor": the floor,
    crisp/bench/floor.py; "outside": the outside floor, crisp/bench/outside_floor.py),
    each with its own Redis; raises RuntimeError if a process
    does not start."""
    lag_dir = tempfile.mkdtemp(prefix="crisp-bench-lag-")
    work = tempfile.mkdtemp(prefix="crisp-bench-")
    aof_dir = tempfile.mkdtemp(prefix="crisp-bench-aof-") if args.aof else None
    target = Target(urls=[])
    try:
        if args.url:
            target.urls = [args.url.rstrip("/")]
        else:
            store_url = _start_store(args, target, aof_dir)
            ports = _start_servers(args, kind, store_url, lag_dir, target)
            if args.proxy == "nginx":
                proxy = start_nginx(ports, Path(work), args.rooms * args.players + 1024)
                target.procs.append(proxy)
                target.watched.append(Watched("nginx", proxy.pid))
                target.urls = [proxy.base]
                target.tls = insecure_tls()
            else:
                target.urls = [f"http://127.0.0.1:{p}" for p in ports]
        game = args.game if kind == "crisp" else None  # the floors speak their own protocol
        bench = Bench(args, target, None if args.url else lag_dir, game)
        factory: Callable[[], asyncio.AbstractEventLoop] | None = None
        if not args.no_uvloop:
            with contextlib.suppress(ImportError):
                import uvloop

                factory = uvloop.new_event_loop
        with asyncio.Runner(loop_factory=factory) as runner:
            report = runner.run(bench.run())
    finally:
        for proc in reversed(target.procs):
            proc.stop()
        for folder in (lag_dir, aof_dir, work):
            if folder:
                shutil.rmtree(folder, ignore_errors=True)
    report["config"]["target"] = kind
    return report


def resolve_pace(args: argparse.Namespace) -> Pace:
    """The run's pace: `--pace` with any of `--think-ms`, `--time-scale`,
    `--crisp-chance` given."""
    return pace_for(args.pace, think_ms=args.think_ms, time_scale=args.time_scale,
                    crisp_chance=args.crisp_chance)  # fmt: skip
