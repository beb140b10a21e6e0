"""Child processes for `crisp bench` and for the test suite, in one import.

Modules, each importing only those above it:

    ports      free loopback ports (per test worker with CRISP_TEST_PORTS)
    child      a child process: its own session, killed with us, its output, stops
    readings   /proc: a process tree's RSS and CPU, the machine's busy time
    services   redis-server, `crisp serve`, the floor as child processes; Redis's counters
    cluster    a Redis Cluster on loopback, with replicas; kill, freeze, wait for failover
    proxy      the shipped nginx example in front of the server processes

This package's face names the helpers of ports, child, readings and services;
`cluster` and `proxy` are imported by their own names.

    redis = start_redis()                 # a fresh server on a free port; redis.url
    server = start_crisp(env)             # `python -m crisp serve`, once /healthz is 200
    server.stop()                         # SIGTERM, then SIGKILL for the whole group

Every child runs in its own session and is SIGKILLed if this process dies (Linux).
"""

from __future__ import annotations

from .child import Proc, wait_until
from .ports import HOST, PORTS_ENV, free_port
from .readings import Watched, machine_busy, process_tree, usage
from .services import (
    CrispServer,
    FloorServer,
    RedisNotFound,
    RedisServer,
    http_ok,
    redis_data_bytes,
    redis_server_path,
    start_crisp,
    start_floor,
    start_redis,
)

__all__ = [
    "HOST",
    "PORTS_ENV",
    "CrispServer",
    "FloorServer",
    "Proc",
    "RedisNotFound",
    "RedisServer",
    "Watched",
    "free_port",
    "http_ok",
    "machine_busy",
    "process_tree",
    "redis_data_bytes",
    "redis_server_path",
    "start_crisp",
    "start_floor",
    "start_redis",
    "usage",
    "wait_until",
]
