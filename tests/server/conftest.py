"""Fixtures for the server suite.

    store_url     None (memory) or the test Redis: each test using it runs on both stores
    make_server   factory: a live uvicorn server in a thread on `store_url`, Settings overrides
                  (test hooks on, a manual clock, CRISP_HTTP_LIMITS=off, no per-client
                  message rate and a seat rate of KIT_RATE_PER_S unless given)
    server        make_server() with its defaults

Game time stands still on these servers until a test moves it: `server.advance(ms)`
(or a player's `server_time(at)`, and `drive_all` of tests/support/play.py, which
move it to the next moment something can happen). Durations are the rules' own
(R10.4: 2 s / 3 s, R16.2: 10 s, R17.2: 20 s, R17.4: 60 s).
    spawn_server  factory like make_server but not parametrized (pass redis_url yourself;
                  `hooks=` replaces the app's ServerHooks)
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from crisp.server.ops.hooks import ServerHooks
from crisp.server.ops.settings import Settings
from tests.support.servers import KIT_CLIENT_RATE_PER_S, KIT_RATE_PER_S, ThreadServer

# Servers run in threads of the test process, sharing the GIL with the clients: hand the
# GIL over quickly (default 5 ms) so that I/O-heavy servers (Redis) are not starved.
sys.setswitchinterval(0.0005)


@pytest.fixture
def spawn_server() -> Iterator[Callable[..., ThreadServer]]:
    servers: list[ThreadServer] = []

    def make(hooks: ServerHooks | None = None, **overrides: Any) -> ThreadServer:
        # Many rooms and seats from one address: the per-client HTTP limits are off (a
        # test hook, protocol.md v1.1) and the per-client message rate is out of reach;
        # the tests of those limits (tests/edge/) set them.
        values: dict[str, Any] = {
            "test_hooks": True, "clock": "manual", "http_limits": "off",
            "client_rate_per_s": KIT_CLIENT_RATE_PER_S, "connect_rate_per_s": 0,
            # the kit's players move far faster than people; the tests of the seat
            # rate (test_edge_ws, test_server_ws) set the production 10/s themselves
            "rate_per_s": KIT_RATE_PER_S,
        }
        values.update(overrides)
        if not values["test_hooks"] and "clock" not in overrides:
            values["clock"] = "real"  # the manual clock is a test hook
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
