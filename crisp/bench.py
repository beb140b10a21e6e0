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
import ctypes
import gc
import json
import os
import random
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any, TextIO
from urllib.parse import urlsplit

import httpx
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

try:
    import orjson

    _loads: Callable[[str | bytes], Any] = orjson.loads
except ImportError:  # pragma: no cover - orjson is optional
    _loads = json.loads

HOST = "127.0.0.1"
ANSWER = {  # client message type -> event kind that answers it on the sender's connection
    "options": "options", "start": "round_started", "next_round": "round_started",
    "rematch": "round_started", "ready": "ready", "draw": "drew", "swap": "swapped",
    "discard": "discarded", "jack": "jack", "queen": "queen", "king": "king", "crisp": "crisp",
}  # fmt: skip
RESOLVE = ("swap", "discard", "jack", "queen", "king")
SLOTS = ("left", "middle", "right")
ANSWER_TIMEOUT_S = 5.0
HELLO_TIMEOUT_S = 15.0
SAMPLE_EVERY_S = 0.5
PAGE = os.sysconf("SC_PAGE_SIZE")
TICK = os.sysconf("SC_CLK_TCK")


# ---------------------------------------------------------------- processes and /proc


def _free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def _die_with_parent() -> None:  # in the child, before exec (Linux): SIGKILL if we die
    with contextlib.suppress(Exception):
        ctypes.CDLL(None).prctl(1, signal.SIGKILL)


def _tree(root: int) -> list[int]:
    """`root` and all its descendants, from /proc."""
    kids: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as f:
                    ppid = int(f.read().rsplit(b")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            kids.setdefault(ppid, []).append(int(entry))
    out: list[int] = []
    todo = [root]
    while todo and len(out) < 10_000:
        pid = todo.pop()
        out.append(pid)
        todo.extend(kids.get(pid, ()))
    return out


def _machine_busy() -> float:
    """CPU seconds spent by all cores (not idle, not iowait) since boot, from /proc/stat."""
    with open("/proc/stat", "rb") as f:
        ticks = [int(x) for x in f.readline().split()[1:9]]
    return (sum(ticks) - ticks[3] - ticks[4]) / TICK


def _usage(pids: list[int]) -> tuple[int, float]:
    """(RSS bytes, CPU seconds) summed over `pids`."""
    rss, cpu = 0, 0.0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/statm", "rb") as f:
                rss += int(f.read().split()[1]) * PAGE
            with open(f"/proc/{pid}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
            cpu += (int(fields[11]) + int(fields[12])) / TICK
        except (OSError, IndexError, ValueError):
            continue
    return rss, cpu


@dataclass
class Watched:
    """A process tree whose RSS is sampled (peak kept) and whose CPU is read."""

    name: str
    pid: int
    peak_rss: int = 0

    def sample(self) -> tuple[int, float]:
        rss, cpu = _usage(_tree(self.pid))
        self.peak_rss = max(self.peak_rss, rss)
        return rss, cpu


class Proc:
    """A child process (own session, dies with us) whose output goes to a temp file."""

    def __init__(
        self,
        name: str,
        cmd: list[str],
        env: dict[str, str],
        log: str | None = None,
        cleanup: str | None = None,
    ) -> None:
        self.name = name
        self.cleanup = cleanup
        self.log: TextIO = (
            open(log, "w+")  # noqa: SIM115
            if log
            else tempfile.TemporaryFile("w+", prefix=f"crisp-{name}-")  # noqa: SIM115
        )
        self.proc = subprocess.Popen(
            cmd, env=env, stdin=subprocess.DEVNULL, stdout=self.log, stderr=subprocess.STDOUT,
            start_new_session=True, preexec_fn=_die_with_parent,
        )  # fmt: skip

    def alive(self) -> bool:
        return self.proc.poll() is None

    def tail(self, n: int = 3000) -> str:
        self.log.seek(0)
        return self.log.read()[-n:]

    def stop(self) -> None:
        """SIGTERM the process group we started, SIGKILL after 10 s."""
        for sig, wait in ((signal.SIGTERM, 10.0), (signal.SIGKILL, 5.0)):
            if self.proc.poll() is not None:
                break
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, sig)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(wait)
        with contextlib.suppress(ProcessLookupError):  # workers left behind in the group
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.log.close()
        if self.cleanup:
            shutil.rmtree(self.cleanup, ignore_errors=True)


def start_redis() -> tuple[Proc, str]:
    port = _free_port()
    tmp = tempfile.mkdtemp(prefix="crisp-bench-redis-")
    cmd = ["/usr/bin/redis-server" if os.path.exists("/usr/bin/redis-server") else "redis-server",
           "--port", str(port), "--bind", HOST, "--save", "", "--appendonly", "no",
           "--dir", tmp, "--daemonize", "no", "--loglevel", "warning",
           "--maxclients", "20000"]  # fmt: skip
    proc = Proc("redis", cmd, dict(os.environ), cleanup=tmp)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and proc.alive():
        with contextlib.suppress(OSError), socket.create_connection((HOST, port), 0.5) as s:
            s.sendall(b"PING\r\n")
            if s.recv(16).startswith(b"+PONG"):
                return proc, f"redis://{HOST}:{port}/0"
        time.sleep(0.05)
    out = proc.tail()
    proc.stop()
    raise RuntimeError(f"redis-server did not start:\n{out}")


def start_server(args: argparse.Namespace, redis_url: str | None) -> tuple[Proc, str]:
    port = args.port or _free_port()
    env = dict(os.environ)
    env.pop("CRISP_REDIS_URL", None)
    env.update({
        "CRISP_HOST": HOST, "CRISP_PORT": str(port), "CRISP_WORKERS": str(args.server_workers),
        "CRISP_TEST_HOOKS": "1", "CRISP_TIME_SCALE": str(args.time_scale),
        "CRISP_RATE_PER_S": "1000", "CRISP_RATE_BURST": "10000", "CRISP_RATE_STRIKES": "1000",
        "CRISP_LOG_LEVEL": "error", "PYTHONUNBUFFERED": "1",
    })  # fmt: skip
    if redis_url:
        env["CRISP_REDIS_URL"] = redis_url
    for item in args.server_env:
        key, _, value = item.partition("=")
        env[key] = value
    cmd = [sys.executable, "-m", "crisp", "serve", "--host", HOST, "--port", str(port),
           "--workers", str(args.server_workers)]  # fmt: skip
    proc = Proc("server", cmd, env, log=args.server_log)
    url = f"http://{HOST}:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.alive():
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(url + "/readyz", timeout=1.0, trust_env=False).status_code == 200:
                return proc, url
        time.sleep(0.1)
    out = proc.tail()
    proc.stop()
    raise RuntimeError(f"the server did not become ready on {url}:\n{out}")


# ---------------------------------------------------------------- the clients


def _pct(sorted_ms: list[float], p: float) -> float | None:
    if not sorted_ms:
        return None
    return round(sorted_ms[min(len(sorted_ms) - 1, int(p / 100 * len(sorted_ms)))], 2)


@dataclass
class Stats:
    measuring: bool = False
    stopping: bool = False
    latencies: dict[str, list[float]] = field(default_factory=dict)
    sent: int = 0
    answered: int = 0
    unanswered: int = 0
    updates: int = 0
    rounds: int = 0
    games: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    errors_by_action: Counter[str] = field(default_factory=Counter)
    closes: Counter[str] = field(default_factory=Counter)
    opened: int = 0
    failed: int = 0
    fail_reasons: Counter[str] = field(default_factory=Counter)
    handshakes: list[float] = field(default_factory=list)


@dataclass
class Room:
    code: str
    size: int
    options_sent: bool = False
    go: bool = False  # the host may start the game (set once the ramp is over)


class Client:
    """One seat's websocket: plays whatever its latest view allows, one action in flight."""

    def __init__(self, bench: Bench, room: Room, pid: str, token: str, host: bool) -> None:
        self.b = bench
        self.room = room
        self.pid = pid
        self.token = token
        self.host = host
        self.ws: ClientConnection | None = None
        self.view: dict[str, Any] | None = None
        self.inflight: tuple[str, float, str] | None = None  # (type, sent at, expected event)
        self.timer: asyncio.TimerHandle | None = None
        self.planned: str | None = None
        self.crisp_window: int | None = None
        self.n = 0
        self.task: asyncio.Task[None] | None = None

    async def open(self, ws_url: str) -> None:
        t0 = time.perf_counter()
        ws: ClientConnection | None = None
        try:
            ws = await connect(f"{ws_url}/ws/{self.room.code}", compression=None, proxy=None,
                               ping_interval=None, open_timeout=HELLO_TIMEOUT_S, close_timeout=2,
                               max_size=2**20, max_queue=64)  # fmt: skip
            await ws.send(json.dumps({"type": "hello", "token": self.token}))
            first = await asyncio.wait_for(ws.recv(), HELLO_TIMEOUT_S)
        except Exception as exc:
            self.b.stats.failed += 1
            self.b.stats.fail_reasons[type(exc).__name__] += 1
            if ws is not None:
                with contextlib.suppress(Exception):
                    await ws.close()
            return
        self.b.stats.opened += 1
        self.b.stats.handshakes.append((time.perf_counter() - t0) * 1000)
        self.ws = ws
        self.task = asyncio.create_task(self._read())
        self.on_message(first, time.perf_counter())

    async def _read(self) -> None:
        assert self.ws is not None
        try:
            async for raw in self.ws:
                self.on_message(raw, time.perf_counter())
        except ConnectionClosed:
            pass
        finally:
            if not self.b.stats.stopping:
                self.b.stats.closes[str(self.ws.close_code)] += 1
            self._cancel()

    def on_message(self, raw: str | bytes, at: float) -> None:
        msg = _loads(raw)
        st = self.b.stats
        if msg["type"] == "update":
            if st.measuring:
                st.updates += 1
            self.view = view = msg["view"]
            events = msg["events"]
            if self.host:
                for ev in events:
                    kind = ev["kind"]
                    if kind == "round_started" and st.measuring:
                        st.rounds += 1
                    elif kind == "game_over" and st.measuring:
                        st.games += 1
            if self.inflight is not None:
                kind, sent, want = self.inflight
                for ev in events:
                    if ev["kind"] == want and ev.get("player", self.pid) == self.pid:
                        if sent >= self.b.t_measure:
                            st.latencies.setdefault(kind, []).append((at - sent) * 1000)
                            st.answered += 1
                        self.inflight = None
                        break
            if self.inflight is None:
                self.plan(view)
        elif msg["type"] == "error":
            if st.measuring:
                st.errors[msg.get("code", "?")] += 1
            if self.inflight is not None and msg.get("ref") == str(self.n):
                if st.measuring:
                    st.errors_by_action[f"{self.inflight[0]}:{msg.get('code')}"] += 1
                self.inflight = None
                self._cancel()
                self._schedule("replan", {}, self.b.think())

    def plan(self, view: dict[str, Any]) -> None:
        decision = self.decide(view)
        if decision is None:
            self._cancel()
            return
        kind, fields, delay = decision
        if self.timer is not None and self.planned == kind:
            return  # keep the think time already running for the same move
        self._cancel()
        self._schedule(kind, fields, delay)

    def decide(self, v: dict[str, Any]) -> tuple[str, dict[str, Any], float] | None:
        status, legal, rng, think = v["status"], v["legal"], self.b.rng, self.b.think()
        if status == "playing":
            if "crisp" in legal:
                closes = v["crisp"]["window"]["closes_at"]
                if closes != self.crisp_window:
                    self.crisp_window = closes
                    if rng.random() < self.b.args.crisp_chance:
                        return "crisp", {}, min(think, 0.02)
            if "draw" in legal:
                use_discard = v["discard_top"] is not None and rng.random() < 0.3
                return "draw", {"source": "discard" if use_discard else "stock"}, think
            moves = [m for m in RESOLVE if m in legal]
            if moves:
                move = rng.choice(moves)
                if move == "swap":
                    return "swap", {"slot": rng.choice(SLOTS)}, think
                if move == "queen":
                    others = [p["id"] for p in v["players"] if p["id"] != self.pid]
                    return "queen", {"slot": rng.choice(SLOTS), "target": rng.choice(others),
                                     "target_slot": rng.choice(SLOTS)}, think  # fmt: skip
                return move, {}, think
            turn = v["turn"]
            if turn and turn["player"] == self.pid and v["holding"] is None:
                wait = (turn["may_start_at"] - time.time() * 1000) / 1000 + 0.003
                return "draw", {"source": "stock"}, max(wait, think)
            return None
        if status == "peek":
            return ("ready", {}, think) if "ready" in legal else None
        if not self.host:
            return None
        if status == "round_over" and "next_round" in legal:
            return "next_round", {}, think
        if status == "game_over" and "rematch" in legal:
            return "rematch", {}, think
        if status == "lobby" and self.room.go:
            players = v["players"]
            if len(players) >= self.room.size and all(p["connected"] for p in players):
                if not self.room.options_sent:
                    return "options", {"limit": 50, "discard_draw": True}, think
                return "start", {}, think
        return None

    def replan(self) -> None:
        if self.view is not None and self.inflight is None and not self.b.stats.stopping:
            self.plan(self.view)

    def _schedule(self, kind: str, fields: dict[str, Any], delay: float) -> None:
        self.planned = kind
        self.timer = asyncio.get_running_loop().call_later(delay, self._fire, kind, fields)

    def _cancel(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
            self.planned = None

    def _fire(self, kind: str, fields: dict[str, Any]) -> None:
        self.timer = None
        self.planned = None
        if self.b.stats.stopping or self.ws is None or self.inflight is not None:
            return
        if kind == "replan":
            self.replan()
            return
        if kind == "options":
            self.room.options_sent = True
        self.n += 1
        text = json.dumps({"type": kind, "id": str(self.n), **fields}, separators=(",", ":"))
        self.inflight = (kind, time.perf_counter(), ANSWER[kind])
        if self.b.stats.measuring:
            self.b.stats.sent += 1
        self.b.spawn(self.ws.send(text))

    def sweep(self, now: float) -> None:
        """Give up on an action unanswered for ANSWER_TIMEOUT_S (counted) and move on."""
        if self.inflight is not None and now - self.inflight[1] > ANSWER_TIMEOUT_S:
            if self.inflight[1] >= self.b.t_measure:
                self.b.stats.unanswered += 1
            self.inflight = None
            if self.view is not None and not self.b.stats.stopping:
                self.plan(self.view)


class Bench:
    def __init__(self, args: argparse.Namespace, url: str, watched: list[Watched]) -> None:
        self.args = args
        self.url = url
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
        busy0 = _machine_busy()
        self.t_measure = time.perf_counter()
        st.measuring = True
        await asyncio.sleep(a.duration)
        st.measuring = False
        window = time.perf_counter() - self.t_measure
        cpu1, pcpu1 = time.process_time(), [w.sample()[1] for w in self.watched]
        busy = _machine_busy() - busy0
        ours = cpu1 - cpu0 + sum(pcpu1) - sum(pcpu0)
        st.stopping = True
        await self._close_all()
        sampler.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await sampler
        for w in self.watched:
            w.sample()
        lat = sorted(x for xs in st.latencies.values() for x in xs)
        by_type = {k: sorted(v) for k, v in sorted(st.latencies.items())}
        lags = sorted(self.lags)
        hs = sorted(st.handshakes)
        return {
            "config": {"url": self.url, "store": a.store if not a.url else None,
                       "server_workers": a.server_workers if not a.url else None,
                       "rooms": a.rooms, "players": a.players, "duration_s": a.duration,
                       "think_ms": a.think_ms, "time_scale": a.time_scale,
                       "crisp_chance": a.crisp_chance, "warmup_s": a.warmup,
                       "redis_max_connections": a.redis_max_connections},
            "ramp_s": round(ramp_s, 2),
            "window_s": round(window, 2),
            "connections": {"opened": st.opened, "failed": st.failed,
                            "fail_reasons": dict(st.fail_reasons),
                            "closed_by_server": dict(st.closes),
                            "handshake_ms_p50": _pct(hs, 50), "handshake_ms_p99": _pct(hs, 99)},
            "actions": st.sent, "answered": st.answered, "unanswered": st.unanswered,
            "actions_per_s": round(st.sent / window, 1),
            "answered_per_s": round(st.answered / window, 1),
            "updates_per_s": round(st.updates / window, 1),
            "rounds_started": st.rounds, "games_over": st.games,
            "latency_ms": {"n": len(lat), "p50": _pct(lat, 50), "p95": _pct(lat, 95),
                           "p99": _pct(lat, 99), "max": round(lat[-1], 2) if lat else None},
            "latency_ms_by_action": {k: {"n": len(v), "p50": _pct(v, 50), "p99": _pct(v, 99)}
                                     for k, v in by_type.items()},
            "errors": dict(st.errors),
            "errors_by_action": dict(st.errors_by_action),
            "processes": {w.name: {"peak_rss_mb": round(w.peak_rss / 2**20, 1),
                                   "cpu_pct": round((c1 - c0) / window * 100, 1)}
                          for w, c0, c1 in zip(self.watched, pcpu0, pcpu1, strict=True)},
            "generator": {"cpu_pct": round((cpu1 - cpu0) / window * 100, 1),
                          "loop_lag_ms_p99": _pct(lags, 99), "loop_lag_ms_max": _pct(lags, 100),
                          "event_loop": type(asyncio.get_running_loop()).__module__},
            "machine": {"cores": os.cpu_count(), "busy_pct": round(busy / window * 100, 1),
                        "others_pct": round(max(0.0, busy - ours) / window * 100, 1),
                        "loadavg_1m": round(os.getloadavg()[0], 2)},
        }  # fmt: skip

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


# ---------------------------------------------------------------- report and entry point


def table(r: dict[str, Any]) -> str:
    c, lat, conn, gen = r["config"], r["latency_ms"], r["connections"], r["generator"]
    target = f"{c['store']} store, {c['server_workers']} worker(s)" if c["store"] else c["url"]
    rows = [
        ("target", target),
        ("rooms x players", f"{c['rooms']} x {c['players']}  (think {c['think_ms']} ms, "
                            f"time scale {c['time_scale']})"),
        ("ramp / window", f"{r['ramp_s']} s, then {c['warmup_s']} s warm-up / {r['window_s']} s"),
        ("connections", f"{conn['opened']} opened, {conn['failed']} failed"
                        + (f" {conn['fail_reasons']}" if conn["fail_reasons"] else "")),
        ("handshake p50/p99", f"{conn['handshake_ms_p50']} / {conn['handshake_ms_p99']} ms"),
        ("closed by server", str(conn["closed_by_server"] or "none")),
        ("actions", f"{r['actions']} sent, {r['answered']} answered, "
                    f"{r['unanswered']} unanswered after {ANSWER_TIMEOUT_S:g} s"),
        ("actions/s", f"{r['actions_per_s']} sent, {r['answered_per_s']} answered by an update"),
        ("updates/s received", str(r["updates_per_s"])),
        ("rounds / games", f"{r['rounds_started']} rounds started, {r['games_over']} games over"),
        ("latency p50", f"{lat['p50']} ms"),
        ("latency p95", f"{lat['p95']} ms"),
        ("latency p99", f"{lat['p99']} ms"),
        ("latency max", f"{lat['max']} ms  (n={lat['n']})"),
        ("errors", str(r["errors"] or "none")),
    ]  # fmt: skip
    for name, p in r["processes"].items():
        rows.append((f"{name} peak RSS / CPU", f"{p['peak_rss_mb']} MB / {p['cpu_pct']} %"))
    rows.append(("generator CPU", f"{gen['cpu_pct']} % of one core ({gen['event_loop']}; "
                                  f"loop lag p99 {gen['loop_lag_ms_p99']} ms)"))  # fmt: skip
    m = r["machine"]
    rows.append(("machine CPU", f"{m['busy_pct']} % busy of {m['cores']} cores x 100 %, "
                                f"{m['others_pct']} % by other processes"))  # fmt: skip
    width = max(len(k) for k, _ in rows)
    note = ""
    if gen["cpu_pct"] >= 85:
        note += "\nnote: the generator used most of a core; latencies include its own queuing."
    if m["others_pct"] >= 20:
        note += "\nnote: other processes used the CPU during the window; figures are disturbed."
    return "\n".join(f"{k.ljust(width)}  {v}" for k, v in rows) + note


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="crisp bench", description=__doc__.split("\n\n")[0])
    p.add_argument("--store", choices=("memory", "redis"), default="memory")
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
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    procs: list[Proc] = []
    watched: list[Watched] = []
    try:
        if args.url:
            url = args.url.rstrip("/")
        else:
            redis_url = None
            if args.store == "redis":
                redis, redis_url = start_redis()
                if args.redis_max_connections:
                    redis_url += f"?max_connections={args.redis_max_connections}"
                procs.append(redis)
                watched.append(Watched("redis-server", redis.proc.pid))
            server, url = start_server(args, redis_url)
            procs.append(server)
            watched.insert(0, Watched("server", server.proc.pid))
        bench = Bench(args, url, watched)
        factory: Callable[[], asyncio.AbstractEventLoop] | None = None
        if not args.no_uvloop:
            with contextlib.suppress(ImportError):
                import uvloop

                factory = uvloop.new_event_loop
        with asyncio.Runner(loop_factory=factory) as runner:
            report = runner.run(bench.run())
    except RuntimeError as exc:
        print(f"crisp bench: {exc}", file=sys.stderr)
        return 2
    finally:
        for proc in reversed(procs):
            proc.stop()
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    print(json.dumps(report, indent=2) if args.json else table(report))
    return 0 if report["answered"] > 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
