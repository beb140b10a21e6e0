"""Free loopback ports for the servers `crisp bench` and the test suite start.

With CRISP_TEST_PORTS=low-high in the environment (the test suite gives each
pytest-xdist worker a range of its own, below the system's ephemeral ports)
`free_port` hands out that range's ports in turn; without it, the system picks."""

from __future__ import annotations

import contextlib
import os
import socket

HOST = "127.0.0.1"
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
