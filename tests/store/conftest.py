"""Fixtures for the store suite: `backend` runs a test once on MemoryStore and once on
RedisStore (against the real redis-server from tests/conftest.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from crisp.store import Store
from tests.store.helpers import Backend


@pytest.fixture(params=["memory", "redis"])
async def backend(request: pytest.FixtureRequest) -> AsyncIterator[Backend]:
    url = request.getfixturevalue("redis_url") if request.param == "redis" else None
    b = Backend(request.param, url)
    try:
        yield b
    finally:
        await b.close()


@pytest.fixture
async def store(backend: Backend) -> Store:
    return await backend.new()
