"""Start and stop real redis-server processes for tests.

    from tests.support.redis_proc import start_redis
    proc = start_redis()          # a fresh server on a free loopback port
    proc.url                      # "redis://127.0.0.1:PORT/0"
    proc.kill()                   # SIGKILL (simulate a crash); proc.stop() to end it cleanly

The binary is $CRISP_REDIS_SERVER or `redis-server` on PATH; if neither exists,
start_redis raises (tests that need Redis must fail, never skip)."""

from __future__ import annotations

import ctypes
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path


class RedisNotFound(RuntimeError):
    pass


def redis_server_path() -> str:
    """The redis-server binary to run; raises RedisNotFound if there is none."""
    path = os.environ.get("CRISP_REDIS_SERVER") or shutil.which("redis-server")
    if not path:
        raise RedisNotFound(
            "redis-server not found on PATH (install it, e.g. `apt-get install redis-server`, "
            "or set CRISP_REDIS_SERVER); the Redis tests cannot run without it"
        )
    return path


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# Looked up now, not in the child: between fork and exec only the call itself is safe.
_prctl = ctypes.CDLL(None).prctl if sys.platform == "linux" else None


def _die_with_parent() -> None:
    """Runs in the child between fork and exec: SIGKILL it when the parent dies."""
    if _prctl is not None:
        _prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


@dataclass
class RedisProcess:
    port: int
    proc: subprocess.Popen[bytes]
    dir: Path
    _tmp: tempfile.TemporaryDirectory[str] | None = field(default=None, repr=False)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def alive(self) -> bool:
        return self.proc.poll() is None

    def kill(self) -> None:
        """SIGKILL the server (like a crash) and reap it."""
        if self.alive():
            self.proc.kill()
        self.proc.wait(5)
        self._cleanup()

    def stop(self) -> None:
        """Shut the server down (SIGTERM, then SIGKILL after 5 s)."""
        if self.alive():
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self._cleanup()

    def _cleanup(self) -> None:
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None


def _answers_ping(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as s:
            s.sendall(b"PING\r\n")
            return s.recv(64).startswith(b"+PONG")
    except OSError:
        return False


def start_redis(*, port: int | None = None, timeout_s: float = 10.0) -> RedisProcess:
    """Start redis-server on 127.0.0.1 (a free port unless `port` is given), without
    persistence, in a temporary directory, and wait until it answers PING. The server
    is killed if the calling process dies (Linux). Raises RuntimeError on failure."""
    binary = redis_server_path()
    last_error = ""
    for _ in range(3):  # a free port can be taken between free_port() and bind
        use_port = port or free_port()
        tmp = tempfile.TemporaryDirectory(prefix="crisp-redis-")
        cmd = [
            binary,
            "--port", str(use_port),
            "--bind", "127.0.0.1",
            "--save", "",
            "--appendonly", "no",
            "--dir", tmp.name,
            "--daemonize", "no",
            "--loglevel", "warning",
            "--logfile", "",
        ]  # fmt: skip
        proc = subprocess.Popen(
            cmd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            preexec_fn=_die_with_parent if _prctl is not None else None,
        )
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline and proc.poll() is None:
            if _answers_ping(use_port):
                # Nobody reads the pipe from now on: stop it filling up and blocking redis.
                assert proc.stdout is not None
                proc.stdout.close()
                return RedisProcess(use_port, proc, Path(tmp.name), tmp)
            time.sleep(0.02)
        if proc.poll() is None:
            proc.kill()
        out = proc.communicate(timeout=5)[0] if proc.stdout and not proc.stdout.closed else b""
        last_error = out.decode(errors="replace")[-2000:]
        tmp.cleanup()
        if port is not None:
            break
    raise RuntimeError(f"redis-server did not start: {last_error}")
