"""The servers a run needs, each a child process on a free loopback port, returned
once it answers: `redis-server` (`start_redis`), `crisp serve` (`start_crisp`) and
the floor (`start_floor`, crisp/bench/floor.py); and what Redis holds
(`redis_data_bytes`)."""

from __future__ import annotations

import functools
import os
import shutil
import socket
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path

import httpx

from .child import Proc
from .ports import HOST, free_port


class RedisNotFound(RuntimeError):
    pass


def redis_server_path() -> str:
    """The redis-server binary: $CRISP_REDIS_SERVER or `redis-server` on PATH."""
    path = os.environ.get("CRISP_REDIS_SERVER") or shutil.which("redis-server")
    if not path:
        raise RedisNotFound(
            "redis-server not found on PATH (install it, e.g. `apt-get install redis-server`, "
            "or set CRISP_REDIS_SERVER); the Redis tests cannot run without it"
        )
    return path


def _answers_ping(port: int) -> bool:
    try:
        with socket.create_connection((HOST, port), timeout=0.5) as s:
            s.sendall(b"PING\r\n")
            return s.recv(64).startswith(b"+PONG")
    except OSError:
        return False


def _linked(port: int) -> bool:
    try:
        with socket.create_connection((HOST, port), timeout=0.5) as s:
            s.sendall(b"INFO replication\r\n")
            return b"master_link_status:up" in s.recv(4096)
    except OSError:
        return False


class RedisServer(Proc):
    """A redis-server on 127.0.0.1:`port`, data in a temporary directory."""

    def __init__(self, port: int, cmd: list[str], workdir: str, keep_dir: bool = False) -> None:
        super().__init__("redis-server", cmd, os.environ, cleanup=None if keep_dir else workdir)
        self.port = port
        self.bus_port: int | None = None  # a cluster node's bus port
        self.dir = Path(workdir)

    @property
    def url(self) -> str:
        return f"redis://{HOST}:{self.port}/0"


def start_redis(
    *,
    port: int | None = None,
    timeout: float = 10.0,
    max_clients: int | None = None,
    appendonly_dir: str | Path | None = None,
    appendfsync: str = "always",
    replica_of: int | None = None,
) -> RedisServer:
    """Start redis-server on 127.0.0.1 (a free port unless `port` is given) and wait
    until it answers PING. Without persistence, unless `appendonly_dir` is given: then
    its data is an append-only file there, written before each reply (`appendfsync
    always`; `appendfsync="everysec"` for a benchmark) and kept when the server stops,
    so a server started again on that directory (after a SIGKILL too) has every
    acknowledged write. `replica_of`: a replica of the Redis on that port, returned
    once its link to it is up. Raises RedisNotFound without the binary,
    RuntimeError if it does not start."""
    binary = redis_server_path()
    error: RuntimeError | None = None
    for _ in range(1 if port else 3):  # a free port can be taken before redis binds it
        use_port = port or free_port()
        if appendonly_dir:
            Path(appendonly_dir).mkdir(parents=True, exist_ok=True)
        workdir = str(appendonly_dir) if appendonly_dir else tempfile.mkdtemp(prefix="crisp-redis-")
        persistence = ["--appendonly", "yes", "--appendfsync", appendfsync] if appendonly_dir else [
            "--appendonly", "no"]
        cmd = [binary, "--port", str(use_port), "--bind", HOST, "--save", "",
               *persistence, "--dir", workdir, "--daemonize", "no",
               "--loglevel", "warning", "--logfile", ""]  # fmt: skip
        if max_clients:
            cmd += ["--maxclients", str(max_clients)]
        if replica_of:
            cmd += ["--replicaof", HOST, str(replica_of), "--repl-diskless-sync-delay", "0"]
        redis = RedisServer(use_port, cmd, workdir, keep_dir=bool(appendonly_dir))
        try:
            redis.wait_until(functools.partial(_answers_ping, use_port), timeout, "answering PING")
            if replica_of:
                redis.wait_until(functools.partial(_linked, use_port), timeout, "replicating")
            return redis
        except RuntimeError as exc:
            error = exc
    assert error is not None
    raise error


def http_ok(url: str, timeout: float = 1.0, *, verify: bool = True) -> bool:
    """True if a GET of `url` answers 200 (no proxy from the environment; `verify`
    False accepts any TLS certificate)."""
    try:
        return httpx.get(url, timeout=timeout, trust_env=False,
                         verify=verify).status_code == 200  # fmt: skip
    except httpx.HTTPError:
        return False


class CrispServer(Proc):
    """`python -m crisp serve` on 127.0.0.1:`port`."""

    def __init__(
        self,
        port: int,
        cmd: list[str],
        env: Mapping[str, str],
        cwd: str | Path | None,
        log: str | Path | None,
    ) -> None:
        super().__init__("crisp serve", cmd, env, cwd=cwd, log=log)
        self.port = port
        self.base = f"http://{HOST}:{port}"


def start_crisp(
    env: Mapping[str, str],
    *,
    port: int | None = None,
    workers: int | None = None,
    ready: str = "/healthz",
    timeout: float = 20.0,
    cwd: str | Path | None = None,
    log: str | Path | None = None,
) -> CrispServer:
    """Start `python -m crisp serve` with exactly the environment `env` on 127.0.0.1
    (a free port unless `port` is given) and wait until GET `ready` answers 200.
    RuntimeError (with the server's output) if it exits or is not ready in time."""
    use_port = port or free_port()
    cmd = [sys.executable, "-m", "crisp", "serve", "--host", HOST, "--port", str(use_port)]
    if workers is not None:
        cmd += ["--workers", str(workers)]
    server = CrispServer(use_port, cmd, env, cwd, log)
    server.wait_until(lambda: http_ok(server.base + ready), timeout, f"ready ({ready})")
    return server


def redis_data_bytes(url: str) -> int:
    """The bytes Redis uses for its keys (MEMORY USAGE of every key, summed)."""
    import redis

    client = redis.Redis.from_url(url, socket_timeout=10)
    try:
        keys = list(client.scan_iter(count=1000))
        total = 0
        for i in range(0, len(keys), 500):
            pipe = client.pipeline(transaction=False)
            for key in keys[i : i + 500]:
                pipe.memory_usage(key, samples=0)
            total += sum(int(n or 0) for n in pipe.execute())
        return total
    finally:
        client.close()


def redis_counters(url: str) -> dict[str, int]:
    """A Redis server's running totals: `commands` (every command it ran, scripts
    and what they call inside counted once each), `cmd:NAME` per command,
    `net_in`/`net_out` (bytes on its client sockets, replication included),
    `aof` (the append-only file's size; 0 without one)."""
    import redis

    client = redis.Redis.from_url(url, socket_timeout=10)
    try:
        stats = client.info("stats")
        persistence = client.info("persistence")
        commands = client.info("commandstats")
    finally:
        client.close()
    out = {"net_in": int(stats["total_net_input_bytes"]),
           "net_out": int(stats["total_net_output_bytes"]),
           "aof": int(persistence.get("aof_current_size", 0) or 0),
           "commands": int(stats["total_commands_processed"])}  # fmt: skip
    for name, values in commands.items():
        out["cmd:" + name.removeprefix("cmdstat_")] = int(values["calls"])
    return out


class FloorServer(Proc):
    """`python -m crisp.bench.floor` (or `.outside_floor`) on 127.0.0.1:`port`
    (docs/benchmarks.md)."""

    def __init__(self, port: int, cmd: list[str], env: Mapping[str, str],
                 log: str | Path | None, name: str = "floor") -> None:  # fmt: skip
        super().__init__(name, cmd, env, log=log)
        self.port = port
        self.base = f"http://{HOST}:{port}"


def start_floor(
    env: Mapping[str, str], redis_url: str, *, workers: int = 1, timeout: float = 60.0,
    log: str | Path | None = None, module: str = "floor",
) -> FloorServer:
    """Start the floor server (crisp/bench/floor.py; `module="outside_floor"`: the
    outside floor, crisp/bench/outside_floor.py) on a free port with Redis at
    `redis_url` and wait until it answers; RuntimeError if it does not start."""
    port = free_port()
    cmd = [sys.executable, "-m", f"crisp.bench.{module}", "--port", str(port),
           "--workers", str(workers), "--redis", redis_url]  # fmt: skip
    server = FloorServer(port, cmd, env, log, module)
    server.wait_until(lambda: http_ok(server.base + "/healthz"), timeout, "ready (/healthz)")
    return server
