"""Room store: versioned room documents, pub/sub of room updates, deadline schedule.

`create_store(url)` picks the backend: memory (one process) or Redis (shared)."""

from crisp.store.base import (
    DEFAULT_IDLE_TTL_S,
    Store,
    StoreError,
    StoreUnavailable,
    Versioned,
    create_store,
)
from crisp.store.memory import MemoryStore
from crisp.store.redis import RedisStore

__all__ = [
    "DEFAULT_IDLE_TTL_S",
    "MemoryStore",
    "RedisStore",
    "Store",
    "StoreError",
    "StoreUnavailable",
    "Versioned",
    "create_store",
]
