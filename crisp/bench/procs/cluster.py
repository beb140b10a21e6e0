"""A real Redis Cluster on loopback, for `crisp bench --cluster` and the test suite:
`masters` redis-servers with `--cluster-enabled yes`, each given `replicas`
replicas, joined as `redis-cli --cluster create` would (without its pauses),
ready once every node reports
`cluster_state:ok`, knows every node, and every replica's link to its master
is up.

    cluster = start_redis_cluster(3, replicas=1, node_timeout_ms=1000)
    cluster.url                  # redis+cluster://127.0.0.1:<port>/ (the store URL)
    cluster.masters()            # {port: (first slot, last slot), ...} as the nodes see it
    cluster.kill(port)           # SIGKILL one node (its replica is promoted after
    cluster.wait_ok()            #   the node timeout); wait for a whole cluster again
    cluster.flush()              # FLUSHALL on every master
    cluster.stop()

Each node has its own directory; data in memory only unless `appendonly` is
given (then an append-only file, `appendfsync` as given, as in production)."""

from __future__ import annotations

import functools
import os
import signal
import socket
import tempfile
import time

from .ports import HOST, free_port
from .services import RedisServer, redis_server_path


def command(port: int, *args: str, timeout: float = 1.0) -> str:
    """One inline command to 127.0.0.1:`port`, its raw reply ('' if unreachable)."""
    try:
        with socket.create_connection((HOST, port), timeout=timeout) as s:
            s.sendall((" ".join(args) + "\r\n").encode())
            chunks = []
            while True:
                chunk = s.recv(65536)
                chunks.append(chunk)
                if len(chunk) < 65536:
                    break
            return b"".join(chunks).decode(errors="replace")
    except OSError:
        return ""


def _pong(port: int) -> bool:
    return command(port, "PING").startswith("+PONG")


def _info(port: int, section: str) -> dict[str, str]:
    """`INFO section` of a node as a dict ({} if unreachable)."""
    out: dict[str, str] = {}
    for line in command(port, "INFO", section).splitlines():
        key, sep, value = line.partition(":")
        if sep:
            out[key.strip()] = value.strip()
    return out


class RedisClusterProcs:
    """The nodes of a loopback cluster (masters first, as created)."""

    def __init__(self, nodes: list[RedisServer], masters: int) -> None:
        self.nodes = nodes
        self.created_masters = masters
        self.killed: set[int] = set()

    @property
    def ports(self) -> list[int]:
        """The ports of the nodes still running."""
        return [n.port for n in self.nodes if n.port not in self.killed]

    @property
    def url(self) -> str:
        """The store URL: one startup node is enough (the client finds the others)."""
        return f"redis+cluster://{HOST}:{self.ports[0]}/"

    def node(self, port: int) -> RedisServer:
        return next(n for n in self.nodes if n.port == port)

    def roles(self) -> dict[int, str]:
        """Each running node's role as it says itself: "master" or "slave"."""
        return {p: _info(p, "replication").get("role", "?") for p in self.ports}

    def masters(self) -> dict[int, list[tuple[int, int]]]:
        """The masters that serve slots, by port, with their slot ranges (CLUSTER
        NODES as a running node sees it)."""
        out: dict[int, list[tuple[int, int]]] = {}
        for port in self.ports:
            reply = command(port, "CLUSTER", "NODES")
            if not reply.startswith("$"):
                continue
            for line in reply.splitlines()[1:]:
                parts = line.split()
                if len(parts) < 8 or "master" not in parts[2] or "fail" in parts[2]:
                    continue
                node_port = int(parts[1].split("@")[0].rsplit(":", 1)[1])
                ranges = []
                for item in parts[8:]:
                    if item.startswith("["):
                        continue  # a slot being migrated
                    low, _, high = item.partition("-")
                    ranges.append((int(low), int(high or low)))
                if ranges:
                    out[node_port] = ranges
            return out
        return out

    def master_of(self, slot: int) -> int:
        """The port of the master serving `slot`."""
        for port, ranges in self.masters().items():
            if any(low <= slot <= high for low, high in ranges):
                return port
        raise RuntimeError(f"no master serves slot {slot}")

    def replica_of(self, master: int) -> int:
        """The port of a replica of the master on `master`."""
        for port in self.ports:
            info = _info(port, "replication")
            if info.get("role") == "slave" and info.get("master_port") == str(master):
                return port
        raise RuntimeError(f"no replica of {master}")

    def flush(self) -> None:
        """FLUSHALL on every master (a clean slate between tests)."""
        for port in self.masters():
            reply = command(port, "FLUSHALL")
            if not reply.startswith("+OK"):
                raise RuntimeError(f"FLUSHALL on {port}: {reply!r}")

    def ok(self) -> bool:
        """True when every running node says cluster_state:ok and knows every node,
        and every replica's link to its master is up."""
        for port in self.ports:
            info = command(port, "CLUSTER", "INFO")
            if "cluster_state:ok" not in info:
                return False
            if f"cluster_known_nodes:{len(self.nodes)}" not in info:
                return False
            repl = _info(port, "replication")
            if repl.get("role") == "slave" and repl.get("master_link_status") != "up":
                return False
        return True

    def wait_ok(self, timeout: float = 30.0) -> float:
        """Wait until `ok()`; the seconds it took. RuntimeError after `timeout`."""
        started = time.monotonic()
        while not self.ok():
            if time.monotonic() - started > timeout:
                raise RuntimeError(f"the cluster is not ok after {timeout:g} s")
            time.sleep(0.02)  # poll interval of CLUSTER INFO
        return time.monotonic() - started

    def kill(self, port: int) -> None:
        """SIGKILL the node on `port` (a crash: nothing saved, nothing handed over)."""
        self.node(port).kill()
        self.killed.add(port)

    def freeze(self, port: int) -> None:
        """SIGSTOP the node on `port`: it reads and answers nothing until `thaw`."""
        os.kill(self.node(port).pid, signal.SIGSTOP)

    def thaw(self, port: int) -> None:
        os.kill(self.node(port).pid, signal.SIGCONT)

    def data_bytes(self) -> int:
        """MEMORY USAGE of every key on every master, summed."""
        from .services import redis_data_bytes

        return sum(redis_data_bytes(f"redis://{HOST}:{p}/0") for p in self.masters())

    def stop(self) -> None:
        for node in self.nodes:
            if node.alive():
                self.thaw(node.port)  # a frozen node would not see its SIGTERM
            node.stop()


def _start_node(binary: str, node_timeout_ms: int, persistence: list[str]) -> RedisServer:
    """One cluster-enabled redis-server on free ports (its own cluster bus port, so
    any client port works), answering PING."""
    error: RuntimeError | None = None
    for _ in range(3):  # a free port can be taken before redis binds it
        port, bus = free_port(), free_port()
        workdir = tempfile.mkdtemp(prefix="crisp-redis-cluster-")
        cmd = [binary, "--port", str(port), "--cluster-port", str(bus), "--bind", HOST,
               "--save", "", *persistence, "--dir", workdir, "--daemonize", "no",
               "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
               "--cluster-node-timeout", str(node_timeout_ms), "--maxclients", "20000",
               "--repl-diskless-sync-delay", "0",
               "--loglevel", "warning", "--logfile", ""]  # fmt: skip
        node = RedisServer(port, cmd, workdir)
        node.bus_port = bus
        try:
            node.wait_until(functools.partial(_pong, port), 10.0, "answering PING")
            return node
        except RuntimeError as exc:
            error = exc
    assert error is not None
    raise error


def start_redis_cluster(
    masters: int = 3,
    *,
    replicas: int = 0,
    node_timeout_ms: int = 5000,
    appendonly: bool = False,
    appendfsync: str = "everysec",
    timeout: float = 30.0,
) -> RedisClusterProcs:
    """Start a Redis Cluster of `masters` masters with `replicas` replicas each on
    127.0.0.1 (free ports, a temporary directory per node) and wait until it is
    ready. `node_timeout_ms`: how long a node may be unreachable before the others
    fail it over. RuntimeError if it does not come up in `timeout` seconds (the
    nodes are stopped)."""
    binary = redis_server_path()
    persistence = (["--appendonly", "yes", "--appendfsync", appendfsync] if appendonly
                   else ["--appendonly", "no"])  # fmt: skip
    nodes: list[RedisServer] = []
    try:
        for _ in range(masters * (1 + replicas)):
            nodes.append(_start_node(binary, node_timeout_ms, persistence))
        cluster = RedisClusterProcs(nodes, masters)
        _create(cluster, masters, replicas, timeout)
        cluster.wait_ok(timeout)
        return cluster
    except BaseException:
        for node in nodes:
            node.stop()
        raise


def _reply_ok(port: int, *args: str) -> None:
    reply = command(port, *args)
    if not reply.startswith("+OK"):
        raise RuntimeError(f"{' '.join(args)} on {port}: {reply.strip()!r}")


def _create(cluster: RedisClusterProcs, masters: int, replicas: int, timeout: float) -> None:
    """What `redis-cli --cluster create ... --cluster-replicas R` does, without its
    one-second pauses: the first `masters` nodes get equal contiguous slot ranges
    and config epochs 1..N, every node meets the first, each master gets its
    `replicas` from the rest (in order), once every node knows every other."""
    ports = cluster.ports
    ids = {p: command(p, "CLUSTER", "MYID").split("\r\n")[1] for p in ports}
    per_node, cursor, low = 16384 / masters, 0.0, 0
    for i, port in enumerate(ports[:masters]):  # the ranges redis-cli gives
        high = 16383 if i == masters - 1 else max(low, round(cursor + per_node - 1))
        _reply_ok(port, "CLUSTER", "ADDSLOTSRANGE", str(low), str(high))
        low, cursor = high + 1, cursor + per_node
        _reply_ok(port, "CLUSTER", "SET-CONFIG-EPOCH", str(i + 1))
    for port in ports[1:]:
        bus = cluster.node(port).bus_port
        _reply_ok(ports[0], "CLUSTER", "MEET", HOST, str(port), str(bus))
    deadline = time.monotonic() + timeout
    while not all(all(i in command(p, "CLUSTER", "NODES") for i in ids.values())
                  for p in ports):  # fmt: skip
        if time.monotonic() > deadline:
            raise RuntimeError("the cluster's nodes did not meet in time")
        time.sleep(0.02)  # poll interval of CLUSTER NODES while the nodes gossip
    for k, port in enumerate(ports[masters:]):
        _reply_ok(port, "CLUSTER", "REPLICATE", ids[ports[k // replicas]])
