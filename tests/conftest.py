"""Shared fixtures: a real redis-server for the whole session.

    redis_server  (session) the URL of a redis-server started for this test run
    redis_url     (function) the same URL, after FLUSHALL

For a server of your own (e.g. to kill it), use tests.support.redis_proc.start_redis."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # `crisp` and `tests.support` importable however pytest runs
    sys.path.insert(0, str(ROOT))

from tests.support.redis_proc import start_redis  # noqa: E402


@pytest.fixture(scope="session")
def redis_server() -> Iterator[str]:
    proc = start_redis()  # raises (the tests error, never skip) without redis-server
    try:
        yield proc.url
    finally:
        proc.stop()


@pytest.fixture
def redis_url(redis_server: str) -> Iterator[str]:
    client = redis.Redis.from_url(redis_server)
    try:
        client.flushall()
    finally:
        client.close()
    yield redis_server
