"""Child processes for `crisp bench` and for the test suite: free loopback ports, a
`redis-server` without persistence, `crisp serve`, waiting until one answers, clean
stops, and the /proc readings (RSS, CPU) of a process tree.

    redis = start_redis()                 # a fresh server on a free port; redis.url
    server = start_crisp(env)             # `python -m crisp serve`, once /healthz is 200
    server.stop()                         # SIGTERM, then SIGKILL for the whole group

Every child runs in its own session and is SIGKILLed if this process dies (Linux).
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import httpx

HOST = "127.0.0.1"
PAGE = os.sysconf("SC_PAGE_SIZE")
TICK = os.sysconf("SC_CLK_TCK")


PORTS_ENV = "CRISP_TEST_PORTS"  # "low-high": free_port takes its ports from this range
_next_port: dict[str, int] = {}


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago: one the system picks, or,
    with CRISP_TEST_PORTS=low-high set (the test suite gives each parallel worker a
    range of its own below the system's ephemeral ports), the next free one of that
    range in turn, so that no other worker, and no outgoing connection, can take it
    before it is bound."""
    span = os.environ.get(PORTS_ENV)
    if not span:
        with socket.socket() as s:
            s.bind((HOST, 0))
            return int(s.getsockname()[1])
    low, high = (int(part) for part in span.split("-"))
    for _ in range(high - low + 1):
        port = _next_port.get(span, low)
        _next_port[span] = low if port >= high else port + 1
        with socket.socket() as s, contextlib.suppress(OSError):
            s.bind((HOST, port))
            return port
    raise RuntimeError(f"no free port in {PORTS_ENV}={span}")


# Looked up now, not in the child: between fork and exec only the call itself is safe.
_prctl = ctypes.CDLL(None).prctl if sys.platform == "linux" else None


def _die_with_parent() -> None:
    """Runs in the child between fork and exec: SIGKILL it when the parent dies."""
    if _prctl is not None:
        _prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def wait_until(
    proc: subprocess.Popen[Any], ready: Callable[[], bool], timeout: float, what: str
) -> None:
    """Poll `ready` until it is true; RuntimeError if `proc` exits first or `timeout`
    seconds pass (`what` names the awaited condition in the message)."""
    deadline = time.monotonic() + timeout
    while proc.poll() is None:
        if ready():
            return
        if time.monotonic() > deadline:
            raise RuntimeError(f"not {what} after {timeout:g} s")
        time.sleep(0.05)
    raise RuntimeError(f"exited with {proc.returncode} before {what}")


class Proc:
    """A child process in its own session (killed if we die), its output in a file:
    `log` if given, else a temporary file."""

    def __init__(
        self,
        name: str,
        cmd: list[str],
        env: Mapping[str, str],
        *,
        cwd: str | Path | None = None,
        log: str | Path | None = None,
        cleanup: str | None = None,
    ) -> None:
        self.name = name
        self.cleanup = cleanup  # a directory removed once the process is stopped
        self._final = ""
        self.log: TextIO = (
            open(log, "w+")  # noqa: SIM115
            if log
            else tempfile.TemporaryFile("w+", prefix=f"crisp-{name}-")  # noqa: SIM115
        )
        self.proc = subprocess.Popen(
            cmd, env=dict(env), cwd=cwd, stdin=subprocess.DEVNULL, stdout=self.log,
            stderr=subprocess.STDOUT, start_new_session=True,
            preexec_fn=_die_with_parent if _prctl is not None else None,
        )  # fmt: skip

    @property
    def pid(self) -> int:
        return self.proc.pid

    @property
    def returncode(self) -> int | None:
        return self.proc.poll()

    def poll(self) -> int | None:
        return self.proc.poll()

    def alive(self) -> bool:
        return self.proc.poll() is None

    def output(self) -> str:
        """Everything the process wrote (so far, or until it was stopped)."""
        if self.log.closed:
            return self._final
        self.log.flush()
        self.log.seek(0)
        return self.log.read()

    def tail(self, n: int = 3000) -> str:
        return self.output()[-n:]

    def wait_until(self, ready: Callable[[], bool], timeout: float, what: str) -> None:
        """Poll `ready` until it is true; RuntimeError (with the output's tail) if the
        process exits first or `timeout` seconds pass; the process is then stopped."""
        try:
            wait_until(self.proc, ready, timeout, what)
        except RuntimeError as exc:
            self.stop()
            raise RuntimeError(f"{self.name}: {exc}:\n{self.tail()}") from None

    def kill(self) -> None:
        """SIGKILL the process and its group (a crash: nothing cleaned up) and reap it."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)
        self._release()

    def stop(self, timeout: float = 10.0) -> bool:
        """SIGTERM the process; SIGKILL its whole group if it has not exited after
        `timeout` seconds. True if it exited on SIGTERM (or had already exited)."""
        clean = True
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                clean = False
        with contextlib.suppress(ProcessLookupError):  # whatever is left of the group
            os.killpg(self.proc.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(5)
        self._release()
        return clean

    def _release(self) -> None:
        """Keep the output, close its file, remove `cleanup`."""
        if not self.log.closed:
            self._final = self.output()
            self.log.close()
        if self.cleanup:
            shutil.rmtree(self.cleanup, ignore_errors=True)
            self.cleanup = None


# ---------------------------------------------------------------- redis-server


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


class RedisServer(Proc):
    """A redis-server on 127.0.0.1:`port`, data in a temporary directory."""

    def __init__(self, port: int, cmd: list[str], workdir: str, keep_dir: bool = False) -> None:
        super().__init__("redis-server", cmd, os.environ, cleanup=None if keep_dir else workdir)
        self.port = port
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
) -> RedisServer:
    """Start redis-server on 127.0.0.1 (a free port unless `port` is given) and wait
    until it answers PING. Without persistence, unless `appendonly_dir` is given: then
    its data is an append-only file there, written before each reply (`appendfsync
    always`; `appendfsync="everysec"` for a benchmark) and kept when the server stops,
    so a server started again on that directory (after a SIGKILL too) has every
    acknowledged write. Raises RedisNotFound without the binary, RuntimeError if it
    does not start."""
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
        redis = RedisServer(use_port, cmd, workdir, keep_dir=bool(appendonly_dir))
        try:
            redis.wait_until(functools.partial(_answers_ping, use_port), timeout, "answering PING")
            return redis
        except RuntimeError as exc:
            error = exc
    assert error is not None
    raise error


# ---------------------------------------------------------------- crisp serve


def http_ok(url: str, timeout: float = 1.0) -> bool:
    """True if a GET of `url` answers 200 (no proxy from the environment)."""
    try:
        return httpx.get(url, timeout=timeout, trust_env=False).status_code == 200
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


# ---------------------------------------------------------------- the floor


def floor_script() -> Path:
    """bench/floor.py of this source tree (the floor is not part of the package)."""
    return Path(__file__).resolve().parents[2] / "bench" / "floor.py"


class FloorServer(Proc):
    """`python bench/floor.py` on 127.0.0.1:`port` (docs/benchmarks.md)."""

    def __init__(self, port: int, cmd: list[str], env: Mapping[str, str],
                 log: str | Path | None) -> None:  # fmt: skip
        super().__init__("floor", cmd, env, log=log)
        self.port = port
        self.base = f"http://{HOST}:{port}"


def start_floor(
    env: Mapping[str, str], redis_url: str, *, workers: int = 1, timeout: float = 60.0,
    log: str | Path | None = None,
) -> FloorServer:
    """Start the floor server on a free port with Redis at `redis_url` and wait until
    it answers; RuntimeError if bench/floor.py is missing or it does not start."""
    script = floor_script()
    if not script.is_file():
        raise RuntimeError(f"the floor needs the source tree: {script} not found")
    port = free_port()
    cmd = [sys.executable, str(script), "--port", str(port), "--workers", str(workers),
           "--redis", redis_url]  # fmt: skip
    server = FloorServer(port, cmd, env, log)
    server.wait_until(lambda: http_ok(server.base + "/healthz"), timeout, "ready (/healthz)")
    return server


# ---------------------------------------------------------------- /proc readings


def process_tree(root: int) -> list[int]:
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


def machine_busy() -> float:
    """CPU seconds spent by all cores (not idle, not iowait) since boot, from /proc/stat."""
    with open("/proc/stat", "rb") as f:
        ticks = [int(x) for x in f.readline().split()[1:9]]
    return (sum(ticks) - ticks[3] - ticks[4]) / TICK


def usage(pids: list[int]) -> tuple[int, float]:
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
        rss, cpu = usage(process_tree(self.pid))
        self.peak_rss = max(self.peak_rss, rss)
        return rss, cpu
