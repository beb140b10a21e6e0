"""create_store picks the backend from the URL."""

from __future__ import annotations

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
