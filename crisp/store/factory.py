"""`create_store(url)`: the backend a store URL names, imported only when it is
chosen (so `import crisp.store` loads neither backend nor the redis package)."""

from __future__ import annotations

from crisp.store.base import DEFAULT_IDLE_TTL_S, Store


def create_store(url: str | None, *, idle_ttl_s: int = DEFAULT_IDLE_TTL_S) -> Store:
    """The store for `url`: None, "" or "memory://" -> MemoryStore (one process);
    "redis://", "rediss://" or "unix://" -> RedisStore (shared by several processes);
    "redis+cluster://" or "rediss+cluster://" -> RedisClusterStore (a Redis Cluster)."""
    scheme = (url or "memory://").split("://", 1)[0].lower()
    if scheme == "memory":
        from crisp.store.memory import MemoryStore

        return MemoryStore(idle_ttl_s=idle_ttl_s)
    if scheme in ("redis+cluster", "rediss+cluster"):
        from crisp.store.redis_cluster import RedisClusterStore

        assert url is not None
        return RedisClusterStore(url, idle_ttl_s=idle_ttl_s)
    if scheme in ("redis", "rediss", "unix"):
        from crisp.store.redis import RedisStore

        assert url is not None
        return RedisStore(url, idle_ttl_s=idle_ttl_s)
    raise ValueError(
        f"unsupported store URL scheme {scheme!r} (use memory://, redis:// or redis+cluster://)")
