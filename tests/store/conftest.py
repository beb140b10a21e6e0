"""Fixtures for the store suite: `backend` runs a test on MemoryStore, on RedisStore
(against the real redis-server from tests/conftest.py, over TCP and over a unix
socket, `unix://`), on RedisClusterStore
(against the real 3-master Redis Cluster from tests/conftest.py) and on a
MemoryStore seen through `TimedStore` (the delegating wrapper keeps the contract)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from crisp.store import Store
from tests.store.helpers import Backend

URL_FIXTURES = {
    "memory": None,
    "redis": "redis_url",
    "unix": "redis_unix_url",
    "cluster": "cluster_url",
    "timed": None,
}
_REAL = [pytest.param(kind, marks=pytest.mark.redis) if fixture else kind
         for kind, fixture in URL_FIXTURES.items()]  # fmt: skip


@pytest.fixture(params=_REAL)
async def backend(request: pytest.FixtureRequest) -> AsyncIterator[Backend]:
    fixture = URL_FIXTURES[request.param]
    url = None if fixture is None else request.getfixturevalue(fixture)
    b = Backend(request.param, url)
    try:
        yield b
    finally:
        await b.close()


@pytest.fixture
async def store(backend: Backend) -> Store:
    return await backend.new()
