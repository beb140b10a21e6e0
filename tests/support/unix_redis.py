"""A real redis-server listening only on a unix socket (`port 0`), for the store
contract suite over a `unix://` URL (tests/conftest.py, `redis_unix_url`).

    server = start_unix_redis(folder)  # the socket is folder/redis.sock
    server.url                         # unix:///.../redis.sock  (the store URL)
    server.flush()                     # FLUSHALL
    server.stop()
"""

from __future__ import annotations

import functools
import os
import socket
import tempfile
from pathlib import Path

from crisp.bench.procs.child import Proc
from crisp.bench.procs.services import redis_server_path

# sun_path holds 108 bytes on Linux (104 on the BSDs): a longer socket path cannot be
# bound, so a folder too deep for it is replaced by a short one of its own.
MAX_SOCKET_PATH = 100


def _command(path: Path, command: bytes, expect: bytes) -> bool:
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(0.5)
            s.connect(str(path))
            s.sendall(command)
            return s.recv(64).startswith(expect)
    except OSError:
        return False


class UnixRedis(Proc):
    """A redis-server on the unix socket `path`, no TCP port, no persistence."""

    def __init__(self, path: Path, cmd: list[str], cleanup: str | None) -> None:
        super().__init__("redis-server-unix", cmd, os.environ, cleanup=cleanup)
        self.path = path

    @property
    def url(self) -> str:
        return f"unix://{self.path}"

    def flush(self) -> None:
        if not _command(self.path, b"FLUSHALL\r\n", b"+OK"):
            raise RuntimeError(f"FLUSHALL on {self.path} failed:\n{self.tail()}")


def start_unix_redis(folder: Path, timeout: float = 10.0) -> UnixRedis:
    """Start redis-server on `folder`/redis.sock (`unixsocket`, `port 0`: no TCP) and
    wait until it answers PING there. RedisNotFound without the binary, RuntimeError
    if it does not start."""
    cleanup = None
    if len(str(folder / "redis.sock")) > MAX_SOCKET_PATH:
        folder = Path(tempfile.mkdtemp(prefix="crisp-redis-unix-"))
        cleanup = str(folder)
    path = folder / "redis.sock"
    cmd = [redis_server_path(), "--port", "0", "--unixsocket", str(path),
           "--unixsocketperm", "700", "--save", "", "--appendonly", "no",
           "--dir", str(folder), "--daemonize", "no", "--loglevel", "warning",
           "--logfile", ""]  # fmt: skip
    server = UnixRedis(path, cmd, cleanup)
    ping = functools.partial(_command, path, b"PING\r\n", b"+PONG")
    server.wait_until(ping, timeout, f"answering PING on {path}")
    return server
