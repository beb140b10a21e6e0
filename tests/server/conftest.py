"""Fixtures for the server suite.

    store_url     None (memory) or the test Redis: each test using it runs on both stores
    make_server   factory: a live uvicorn server in a thread on `store_url`, Settings overrides
                  (test hooks on, CRISP_HTTP_LIMITS=off, no per-client message rate and
                  a seat rate of 10/s in game time unless given)
    server        make_server() with test hooks and a fast clock (time_scale FAST)
    spawn_server  factory like make_server but not parametrized (pass redis_url yourself;
                  `hooks=` replaces the app's ServerHooks)
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from crisp.server.hooks import ServerHooks
from crisp.server.settings import Settings
from tests.support.servers import ThreadServer

# Servers run in threads of the test process, sharing the GIL with the clients: hand the
# GIL over quickly (default 5 ms) so that I/O-heavy servers (Redis) are not starved.
sys.setswitchinterval(0.0005)

FAST = 0.05  # CRISP_TIME_SCALE for the suite: 2 s -> 100 ms, 3 s -> 150 ms, 10 s -> 500 ms


@pytest.fixture
def spawn_server() -> Iterator[Callable[..., ThreadServer]]:
    servers: list[ThreadServer] = []

    def make(hooks: ServerHooks | None = None, **overrides: Any) -> ThreadServer:
        # Many rooms and seats from one address: the per-client HTTP limits are off (a
        # test hook, protocol.md v1.1) and the per-client message rate is out of reach;
        # the tests of those limits (tests/edge/) set them.
        values: dict[str, Any] = {
            "test_hooks": True, "time_scale": FAST, "http_limits": "off",
            "client_rate_per_s": 100_000,
            # a seat's message rate in game time: the clock runs 20x (FAST), so the
            # kit's players move 20x faster than people; the tests of the seat rate
            # (test_edge_ws, test_server_ws) set the production 10/s themselves
            "rate_per_s": 10 / FAST,
        }
        values.update(overrides)
        server = ThreadServer(Settings(**values), hooks).start()
        servers.append(server)
        return server

    yield make
    for s in servers:
        s.stop()


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.redis)])
def store_url(request: pytest.FixtureRequest) -> str | None:
    """The store URL: None (memory) or the test redis-server (flushed)."""
    if request.param == "redis":
        url: str = request.getfixturevalue("redis_url")
        return url
    return None


@pytest.fixture
def make_server(
    store_url: str | None, spawn_server: Callable[..., ThreadServer]
) -> Callable[..., ThreadServer]:
    def make(**overrides: Any) -> ThreadServer:
        return spawn_server(**{"redis_url": store_url, **overrides})

    return make


@pytest.fixture
def server(make_server: Callable[..., ThreadServer]) -> ThreadServer:
    return make_server()
