"""Room store: versioned room documents, pub/sub of room updates, deadline schedule.

`create_store(url)` picks the backend: memory (one process), Redis (shared) or a
Redis Cluster (shared, sharded). `TimedStore(inner, report)` wraps any store and
reports every call (its latency and failure) to `report`.
The backends are imported lazily: `import crisp.store` loads neither, and the
Redis client library is only imported when a Redis store is made or
`crisp.store.RedisStore` is first used."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from crisp.store.base import (
    DEFAULT_IDLE_TTL_S,
    GapHandler,
    Handler,
    Lease,
    LogWrite,
    NewVersion,
    OutcomeUnknown,
    Store,
    StoreError,
    StoreUnavailable,
    Unsubscribe,
    Versioned,
)
from crisp.store.factory import create_store
from crisp.store.fanout import Fanout, Subscription
from crisp.store.timed import OPS, Report, TimedStore

if TYPE_CHECKING:
    from crisp.store.memory import MemoryStore
    from crisp.store.redis import RedisStore
    from crisp.store.redis_cluster import RedisClusterStore

__all__ = [
    "DEFAULT_IDLE_TTL_S",
    "OPS",
    "Fanout",
    "GapHandler",
    "Handler",
    "Lease",
    "LogWrite",
    "MemoryStore",
    "NewVersion",
    "OutcomeUnknown",
    "RedisClusterStore",
    "RedisStore",
    "Report",
    "Store",
    "StoreError",
    "StoreUnavailable",
    "Subscription",
    "TimedStore",
    "Unsubscribe",
    "Versioned",
    "create_store",
]


def __getattr__(name: str) -> Any:
    """`MemoryStore`, `RedisStore` and `RedisClusterStore`, imported on first use."""
    if name == "MemoryStore":
        from crisp.store.memory import MemoryStore

        return MemoryStore
    if name == "RedisStore":
        from crisp.store.redis import RedisStore

        return RedisStore
    if name == "RedisClusterStore":
        from crisp.store.redis_cluster import RedisClusterStore

        return RedisClusterStore
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
