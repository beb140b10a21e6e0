"""The soak's faults (issue 23): the processes under test (`Stack`: one Redis with
an append-only file, several `crisp serve`) and what is done to them:

    freeze   Redis SIGSTOPped for N s, then SIGCONT
    redis    Redis SIGKILLed and started again on its append-only file (every
             write on disk before its reply, so nothing acknowledged is lost)
    server   server process I SIGKILLed and started again on its port
    garbage  N s of garbage clients (`garbage`): forged tokens, malformed hellos,
             huge frames, silent sockets, and seated sockets flooding their room
             with bad messages

A schedule is a list of `Fault`s at given seconds of the run; each fault's length
is real time (a frozen Redis is frozen for its 10 s whatever the machine does)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import secrets
import signal
import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from redis.asyncio import Redis
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from crisp.engine import ActionType, Source
from crisp.server.wire.vocabulary import MessageType

from ..procs.services import CrispServer, RedisServer, start_crisp, start_redis
from .record import Recorder

GARBAGE_KINDS = ("forged", "malformed", "huge", "silent", "flood")
# The closes each kind must get (1013: the store could not be asked, Redis being down).
EXPECTED = {"forged": {"4401", "4429", "1013"}, "malformed": {"4401"}, "huge": {"1009"},
            "silent": {"4401"}, "flood": {"4429", "1013", "http_503"}}  # fmt: skip


@dataclass(frozen=True)
class Fault:
    at_s: float
    kind: str  # freeze | redis | server | garbage
    arg: float = 0.0  # freeze and garbage: seconds; server: which process

    def text(self) -> str:
        return f"{self.at_s:g}:{self.kind}" + ("" if self.kind == "redis" else f":{self.arg:g}")


def parse_faults(text: str) -> list[Fault]:
    """`"240:garbage:60,360:freeze:10,600:redis,840:server:0"` -> faults by time."""
    out = []
    for item in filter(None, (part.strip() for part in text.split(","))):
        at, kind, *rest = item.split(":")
        if kind not in ("freeze", "redis", "server", "garbage"):
            raise ValueError(f"unknown fault {kind!r}")
        out.append(Fault(float(at), kind, float(rest[0]) if rest else 0.0))
    return sorted(out, key=lambda f: f.at_s)


def default_faults(duration_s: float) -> list[Fault]:
    """Every kind, some overlapping, the last ending well before the end. A run of
    10 minutes or more gets each kind twice-ish; a shorter one (the CI minute) the
    four kinds compressed into the minute."""
    if duration_s >= 600:
        d = duration_s
        return [Fault(0.13 * d, "garbage", 60), Fault(0.2 * d, "freeze", 10),
                Fault(0.33 * d, "redis"), Fault(0.47 * d, "server", 0),
                Fault(0.6 * d, "freeze", 10), Fault(0.6 * d + 2, "garbage", 30),
                Fault(0.73 * d, "server", 1), Fault(0.74 * d, "redis")]  # fmt: skip
    k = duration_s / 60
    return [Fault(5 * k, "garbage", 6), Fault(8 * k, "freeze", 10), Fault(22 * k, "redis"),
            Fault(28 * k, "server", 0)]  # fmt: skip


@dataclass
class Stack:
    """Redis (its append-only directory and its port) and the server processes."""

    work: Path
    redis: RedisServer
    redis_port: int
    servers: list[CrispServer]
    env: Mapping[str, str]
    recorder: Recorder
    codes: list[str] = field(default_factory=list)  # the rooms of the soak
    t0: float = 0.0
    done: list[dict[str, Any]] = field(default_factory=list)  # the faults as they happened
    garbage_seen: dict[str, Counter[str]] = field(default_factory=dict)
    restarts: Counter[str] = field(default_factory=Counter)

    @property
    def aof_dir(self) -> Path:
        return self.work / "redis"

    def server_log(self, i: int) -> Path:
        self.restarts[f"server-{i}"] += 1
        return self.work / f"server-{i}-{self.restarts[f'server-{i}']}.log"

    def now(self) -> float:
        return round(time.monotonic() - self.t0, 2)

    async def run(self, fault: Fault) -> None:
        start = self.now()
        detail: dict[str, Any] = {}
        if fault.kind == "freeze":
            os.kill(self.redis.pid, signal.SIGSTOP)
            try:
                await asyncio.sleep(fault.arg)  # the fault's own length, real time
            finally:
                os.kill(self.redis.pid, signal.SIGCONT)
        elif fault.kind == "redis":
            detail["down_s"] = await self.restart_redis()
        elif fault.kind == "server":
            detail["down_s"] = await self.restart_server(int(fault.arg) % len(self.servers))
        elif fault.kind == "garbage":
            urls = [s.base for s in self.servers]
            seen = await garbage(urls, self.codes, fault.arg, workers=max(4, len(self.codes) // 8))
            for kind, counts in seen.items():
                self.garbage_seen.setdefault(kind, Counter()).update(counts)
            detail["garbage"] = {k: dict(v) for k, v in seen.items()}
        self.done.append({"fault": fault.text(), "start_s": start, "end_s": self.now(), **detail})

    async def restart_redis(self) -> float:
        """SIGKILL, then the same append-only directory on a private port: the witness
        subscribes and reads every room there, then Redis moves to the servers' port."""
        t = time.monotonic()
        self.recorder.expect_loss = True
        await asyncio.to_thread(self.redis.kill)
        private = await asyncio.to_thread(_free_port)
        self.redis = await asyncio.to_thread(start_redis, port=private,
                                             appendonly_dir=self.aof_dir, max_clients=20000)
        await self.recorder.attach(private, self.codes)
        self.recorder.expect_loss = False
        client = Redis(host="127.0.0.1", port=private)
        try:
            await client.config_set("port", self.redis_port)
        finally:
            await client.aclose()
        return round(time.monotonic() - t, 2)

    async def restart_server(self, i: int) -> float:
        t = time.monotonic()
        old = self.servers[i]
        await asyncio.to_thread(old.kill)
        self.servers[i] = await asyncio.to_thread(
            start_crisp, self.env, port=old.port, ready="/readyz", timeout=120,
            log=self.server_log(i))  # fmt: skip
        return round(time.monotonic() - t, 2)

    def stop(self) -> None:
        for proc in [*self.servers, self.redis]:
            with contextlib.suppress(ProcessLookupError):
                os.kill(proc.pid, signal.SIGCONT)
            proc.stop()


def _free_port() -> int:
    from ..procs.ports import free_port

    return free_port()


async def garbage(urls: list[str], codes: list[str], seconds: float, *,
                  workers: int = 8) -> dict[str, Counter[str]]:  # fmt: skip
    """`workers` garbage clients for `seconds` (each from an address of its own,
    through the trusted proxy's header), each doing one kind after another; the
    closes and errors they got, by kind."""
    seen: dict[str, Counter[str]] = {kind: Counter() for kind in GARBAGE_KINDS}
    end = time.monotonic() + seconds
    rng = random.Random(secrets.randbits(32))

    async def worker(w: int) -> None:
        address = f"10.250.{w // 250}.{w % 250 + 1}"
        k = w
        while time.monotonic() < end:
            kind = GARBAGE_KINDS[k % len(GARBAGE_KINDS)]
            k += 1
            url = urls[k % len(urls)]
            try:
                outcome = await asyncio.wait_for(
                    _one(kind, url, rng.choice(codes), address, rng), 30)
            except InvalidStatus as exc:  # the handshake refused over HTTP (429: a cap)
                outcome = f"http_{exc.response.status_code}"
            except Exception as exc:  # TimeoutError: the server left it open for 30 s
                outcome = f"exception:{type(exc).__name__}"
            seen[kind][outcome] += 1

    await asyncio.gather(*(worker(w) for w in range(workers)))
    return seen


async def _one(kind: str, url: str, code: str, address: str, rng: random.Random) -> str:
    """One garbage connection of `kind`: its close code (or how its HTTP failed)."""
    headers = {"X-Forwarded-For": address}
    if kind == "flood":
        async with httpx.AsyncClient(timeout=10, trust_env=False) as http:
            r = await http.post(url + "/api/rooms", json={"name": "flood"}, headers=headers)
        if r.status_code != 201:
            return f"http_{r.status_code}"
        code, token = r.json()["code"], r.json()["token"]
    ws_url = "ws" + url[4:] + f"/ws/{code}"
    async with connect(ws_url, compression=None, proxy=None, ping_interval=None,
                       open_timeout=10, close_timeout=2, max_size=2**20,
                       additional_headers=headers) as ws:  # fmt: skip
        with contextlib.suppress(Exception):
            if kind == "forged":
                forged = secrets.token_urlsafe(24)
                await ws.send(json.dumps({"type": MessageType.HELLO, "token": forged}))
            elif kind == "malformed":
                await ws.send('{"type": "hello", "token": ' + "[" * rng.randrange(1, 40))
            elif kind == "huge":
                await ws.send("x" * 100_000)
            elif kind == "flood":
                await ws.send(json.dumps({"type": MessageType.HELLO, "token": token}))
                await _flood(ws, rng)
            async for _ in ws:  # until the server closes it (silent: the hello timeout)
                pass
        return str(ws.close_code)


async def _flood(ws: Any, rng: random.Random) -> None:
    """Bad messages of every sort as fast as they go, until the server closes."""
    bad = ['{"type": "draw"', "[" * 5000, json.dumps({"type": "nope", "id": "1"}),
           json.dumps({"type": ActionType.SWAP, "slot": 9}), "x" * 5000,
           json.dumps({"type": ActionType.DRAW, "source": Source.STOCK, "id": "2"}), "\u0000"]
    for _ in range(2000):
        await ws.send(rng.choice(bad))
