"""`python -m crisp.bench.stalled`: issue 39's benchmark, sockets that never read.

Two runs of `crisp bench --url` against one `crisp serve` on Redis, one after the
other: the first alone; in the second, once its rooms are made, `--per-room`
watchers (R18.1) join each of its rooms and never read again (a 4 KiB receive
buffer, reading paused after their hello), each room's from its own loopback
address. The reading players' latency p99 of the two runs is compared (issue 39:
within 1.5x), and the host's TCP memory (`/proc/net/sockstat`) is sampled through
both, against the kernel's pressure point (`/proc/sys/net/ipv4/tcp_mem`); the
orphans are counted at the end. docs/deploy.md "Seats that do not read".
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import redis
from websockets.asyncio.client import ClientConnection, connect

from crisp.bench.procs import HOST, start_crisp, start_redis
from crisp.server.wire.vocabulary import MessageType

PAGE = os.sysconf("SC_PAGE_SIZE")
RCVBUF = 4096  # a client that never reads: its kernel takes this little


def sockstat() -> dict[str, int]:
    """The TCP line of /proc/net/sockstat (`mem` in pages)."""
    for line in Path("/proc/net/sockstat").read_text().splitlines():
        if line.startswith("TCP:"):
            f = line.split()
            return {f[i]: int(f[i + 1]) for i in range(1, len(f) - 1, 2)}
    return {}


def pressure_bytes() -> int:
    """The kernel's TCP memory pressure point (tcp_mem's second value)."""
    return int(Path("/proc/sys/net/ipv4/tcp_mem").read_text().split()[1]) * PAGE


class Sampler(threading.Thread):
    """The host's TCP memory, every half second, while it runs: its maximum."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.most = 0
        self.halt = threading.Event()

    def run(self) -> None:
        while not self.halt.wait(0.5):
            self.most = max(self.most, sockstat().get("mem", 0) * PAGE)


def rooms_in(url: str) -> set[str]:
    """The codes of the rooms in the store (its room keys)."""
    r = redis.Redis.from_url(url, decode_responses=True)
    try:
        return {k.split(":")[2] for k in r.scan_iter("crisp:room:*", count=1000)
                if k.count(":") == 2}
    finally:
        r.close()


def bench(base: str, args: argparse.Namespace) -> dict[str, Any]:
    """One `crisp bench --url` run; its JSON report."""
    cmd = [sys.executable, "-m", "crisp", "bench", "--url", base, "--rooms", str(args.rooms),
           "--duration", str(args.duration), "--warmup", str(args.warmup),
           "--seed", str(args.seed), "--json"]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    report: dict[str, Any] = json.loads(out[out.index("{"):])
    return report


async def stalled_watcher(port: int, code: str, src: str) -> ClientConnection:
    """A watcher of room `code` from address `src` that says hello and never reads."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, RCVBUF)
    s.bind((src, 0))
    s.setblocking(False)
    await asyncio.get_running_loop().sock_connect(s, (HOST, port))
    ws = await connect(f"ws://{HOST}:{port}/ws/{code}", sock=s, ping_interval=None,
                       max_queue=1, open_timeout=20, proxy=None)
    await ws.send(json.dumps({"type": MessageType.HELLO, "watch": True}))
    ws.transport.pause_reading()  # never again
    return ws


async def stall(port: int, codes: list[str], per_room: int) -> list[ClientConnection]:
    """`per_room` never-reading watchers in each room, each room's from its own address."""
    sockets: list[ClientConnection] = []
    for i, code in enumerate(codes):
        src = f"127.6.{i // 250}.{i % 250 + 1}"
        made = await asyncio.gather(*(stalled_watcher(port, code, src) for _ in range(per_room)),
                                    return_exceptions=True)
        sockets += [w for w in made if isinstance(w, ClientConnection)]
    return sockets


def run(args: argparse.Namespace) -> dict[str, Any]:
    workdir = tempfile.mkdtemp(prefix="crisp-stalled-")
    rds = start_redis(appendonly_dir=workdir if args.aof else None, appendfsync="everysec")
    env = {**os.environ, "CRISP_REDIS_URL": rds.url, "CRISP_TEST_HOOKS": "1",
           "CRISP_HTTP_LIMITS": "off", "CRISP_MAX_CONNECTIONS_PER_CLIENT": "0",
           "CRISP_RATE_PER_S": "1000", "CRISP_RATE_BURST": "10000", "CRISP_RATE_STRIKES": "1000",
           "CRISP_CLIENT_RATE_PER_S": "100000", "CRISP_LOG_LEVEL": "error",
           # as `crisp bench` runs its own: each bench room from its own address
           # (X-Forwarded-For); the stalled watchers come from theirs directly
           "CRISP_TRUSTED_PROXIES": "127.0.0.1"}
    server = start_crisp(env)
    try:
        alone = Sampler()
        alone.start()
        first = bench(server.base, args)
        alone.halt.set()
        before = rooms_in(rds.url)
        loaded = Sampler()
        loaded.start()
        result: dict[str, Any] = {}

        def with_stalled() -> None:
            result["report"] = bench(server.base, args)

        runner = threading.Thread(target=with_stalled)
        runner.start()
        while len(rooms_in(rds.url) - before) < args.rooms and runner.is_alive():
            time.sleep(0.5)
        codes = sorted(rooms_in(rds.url) - before)
        loop = asyncio.new_event_loop()
        sockets = loop.run_until_complete(stall(server.port, codes, args.per_room))
        runner.join()
        loaded.halt.set()
        for ws in sockets:
            ws.transport.abort()
        loop.close()
        time.sleep(args.settle)
        second = result["report"]
        p99 = (first["latency_ms"]["p99"], second["latency_ms"]["p99"])
        return {
            "rooms": args.rooms, "stalled": len(sockets),
            "stalled_asked": len(codes) * args.per_room,
            "p99_ms": {"alone": p99[0], "with_stalled": p99[1],
                       "ratio": round(p99[1] / p99[0], 2) if p99[0] else None},
            "actions_per_s": {"alone": first["answered_per_s"],
                              "with_stalled": second["answered_per_s"]},
            "tcp_memory_max_bytes": {"alone": alone.most, "with_stalled": loaded.most},
            "tcp_pressure_bytes": pressure_bytes(),
            "orphans_after": sockstat().get("orphan", 0),
        }
    finally:
        server.stop()
        rds.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m crisp.bench.stalled", description=__doc__)
    parser.add_argument("--rooms", type=int, default=1000)
    parser.add_argument("--per-room", type=int, default=3, help="never-reading watchers a room")
    parser.add_argument("--duration", type=float, default=30.0)
    parser.add_argument("--warmup", type=float, default=40.0,
                        help="the bench's warm-up: the stalled watchers join meanwhile")
    parser.add_argument("--settle", type=float, default=5.0, help="seconds before orphans are read")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--aof", action="store_true")
    out = run(parser.parse_args(argv))
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
