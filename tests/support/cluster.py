"""A real Redis Cluster on loopback for the tests: `masters` redis-servers with
`--cluster-enabled yes` (each with its own directory and no persistence), joined by
`redis-cli --cluster create ... --cluster-replicas 0`, ready once every node reports
`cluster_state:ok`.

    cluster = start_redis_cluster()   # 3 masters on free ports
    cluster.url                       # redis+cluster://127.0.0.1:<port>/  (the store URL)
    cluster.flush()                   # FLUSHALL on every master
    cluster.stop()
"""

from __future__ import annotations

import functools
import os
import shutil
import socket
import subprocess
import tempfile
import time

from crisp.bench.procs import HOST, RedisServer, free_port, redis_server_path


def _command(port: int, *args: str) -> str:
    """One inline command to 127.0.0.1:`port`, its raw reply ('' if unreachable)."""
    try:
        with socket.create_connection((HOST, port), timeout=1.0) as s:
            s.sendall((" ".join(args) + "\r\n").encode())
            return s.recv(65536).decode(errors="replace")
    except OSError:
        return ""


def _pong(port: int) -> bool:
    return _command(port, "PING").startswith("+PONG")


def _redis_cli() -> str:
    """redis-cli next to the redis-server in use (the same package), else on PATH."""
    sibling = os.path.join(os.path.dirname(redis_server_path()), "redis-cli")
    path = sibling if os.access(sibling, os.X_OK) else shutil.which("redis-cli")
    if not path:
        raise RuntimeError("redis-cli not found (it comes with redis-server, e.g. "
                           "`apt-get install redis-server` installs redis-tools)")
    return path


class RedisClusterProcs:
    """The masters of a test cluster."""

    def __init__(self, nodes: list[RedisServer]) -> None:
        self.nodes = nodes

    @property
    def ports(self) -> list[int]:
        return [n.port for n in self.nodes]

    @property
    def url(self) -> str:
        """The store URL: one startup node is enough (the client finds the others)."""
        return f"redis+cluster://{HOST}:{self.nodes[0].port}/"

    def flush(self) -> None:
        """FLUSHALL on every master (a clean slate between tests)."""
        for port in self.ports:
            reply = _command(port, "FLUSHALL")
            if not reply.startswith("+OK"):
                raise RuntimeError(f"FLUSHALL on {port}: {reply!r}")

    def ok(self) -> bool:
        """True when every node says cluster_state:ok and knows every master."""
        for port in self.ports:
            info = _command(port, "CLUSTER", "INFO")
            if "cluster_state:ok" not in info:
                return False
            if f"cluster_known_nodes:{len(self.nodes)}" not in info:
                return False
        return True

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()


def _start_node(binary: str) -> RedisServer:
    """One cluster-enabled redis-server on free ports (its own cluster bus port, so
    any client port works), answering PING."""
    error: RuntimeError | None = None
    for _ in range(3):  # a free port can be taken before redis binds it
        port, bus = free_port(), free_port()
        workdir = tempfile.mkdtemp(prefix="crisp-redis-cluster-")
        cmd = [binary, "--port", str(port), "--cluster-port", str(bus), "--bind", HOST,
               "--save", "", "--appendonly", "no", "--dir", workdir, "--daemonize", "no",
               "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
               "--cluster-node-timeout", "5000", "--loglevel", "warning",
               "--logfile", ""]  # fmt: skip
        node = RedisServer(port, cmd, workdir)
        try:
            node.wait_until(functools.partial(_pong, port), 10.0, "answering PING")
            return node
        except RuntimeError as exc:
            error = exc
    assert error is not None
    raise error


def start_redis_cluster(masters: int = 3, timeout: float = 30.0) -> RedisClusterProcs:
    """Start a `masters`-node Redis Cluster on 127.0.0.1 (free ports, a temporary
    directory per node, no persistence) and wait until it is ready. RuntimeError if
    it does not come up in `timeout` seconds (the nodes are stopped)."""
    binary = redis_server_path()
    nodes: list[RedisServer] = []
    try:
        for _ in range(masters):
            nodes.append(_start_node(binary))
        cluster = RedisClusterProcs(nodes)
        create = [_redis_cli(), "--cluster", "create",
                  *(f"{HOST}:{p}" for p in cluster.ports),
                  "--cluster-replicas", "0", "--cluster-yes"]  # fmt: skip
        done = subprocess.run(create, capture_output=True, text=True, timeout=timeout)
        if done.returncode != 0:
            raise RuntimeError(f"redis-cli --cluster create failed:\n{done.stdout}{done.stderr}")
        deadline = time.monotonic() + timeout
        while not cluster.ok():
            if time.monotonic() > deadline:
                raise RuntimeError(f"the test cluster is not ok after {timeout:g} s")
            time.sleep(0.05)  # poll interval of CLUSTER INFO
        return cluster
    except BaseException:
        for node in nodes:
            node.stop()
        raise
