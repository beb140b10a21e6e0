"""Child processes for `crisp bench` and for the test suite, in one import: free
loopback ports (`ports.py`), a child process and its stops (`child.py`), the
servers a run starts (`services.py`: redis-server, `crisp serve`, the floor; and
`cluster.py`: a Redis Cluster) and the /proc readings (`readings.py`).

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
