"""create_store picks the backend from the URL."""

from __future__ import annotations

import subprocess
import sys

import pytest

from crisp.store import DEFAULT_IDLE_TTL_S, MemoryStore, RedisStore, create_store


@pytest.mark.parametrize("url", [None, "", "memory://", "MEMORY://"])
async def test_memory_urls(url: str | None) -> None:
    store = create_store(url)
    assert isinstance(store, MemoryStore)
    await store.close()


@pytest.mark.parametrize(
    "url", ["redis://127.0.0.1:1/0", "rediss://example.invalid:6380/1", "unix:///tmp/r.sock"]
)
async def test_redis_urls(url: str) -> None:
    store = create_store(url, idle_ttl_s=60)  # constructing does not connect
    assert isinstance(store, RedisStore)
    assert store._ttl_ms == 60_000
    await store.close()


def test_default_idle_ttl_is_six_hours() -> None:
    assert DEFAULT_IDLE_TTL_S == 6 * 3600


@pytest.mark.parametrize("url", ["ftp://x", "localhost:6379", "postgres://db"])
def test_unknown_urls_are_refused(url: str) -> None:
    with pytest.raises(ValueError):
        create_store(url)


def test_backends_are_imported_lazily() -> None:
    """`import crisp.store` (and the server) loads no backend and no Redis client;
    the memory store does not need the redis package at all."""
    probe = (
        "import sys, crisp.store, crisp.server.app\n"
        "assert 'redis' not in sys.modules, 'redis imported'\n"
        "assert 'crisp.store.memory' not in sys.modules, 'memory imported'\n"
        "crisp.store.create_store(None)\n"
        "assert 'redis' not in sys.modules, 'redis imported by the memory store'\n"
        "assert crisp.store.RedisStore.__module__ == 'crisp.store.redis'\n"
        "assert 'redis' in sys.modules\n"
        "try:\n"
        "    crisp.store.NoSuchStore\n"
        "except AttributeError:\n"
        "    pass\n"
        "else:\n"
        "    raise AssertionError('unknown names must raise AttributeError')\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
