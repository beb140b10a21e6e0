"""The URL helpers take out only their own query options and keep the rest of the URL
byte for byte, and redis-py (any version pyproject.toml allows: 5.0 to the newest)
accepts what they leave. (Rebuilding the URL with urllib once turned
`unix:///tmp/r.sock` into `unix:/tmp/r.sock`, which redis-py 8.2 refuses.)"""

from __future__ import annotations

from typing import Any

import pytest
from redis.asyncio import ConnectionPool
from redis.asyncio.connection import parse_url

from crisp.store import RedisStore, create_store
from crisp.store.redis_cluster import split_cluster_url
from crisp.store.redis_pool import split_op_timeout, split_wait, take_options

# (the URL an operator writes, what redis-py is given: the same less our options)
STORE_URLS = [
    ("redis://127.0.0.1:6379/0", "redis://127.0.0.1:6379/0"),
    ("redis://127.0.0.1:6379", "redis://127.0.0.1:6379"),
    ("redis://h:1/0?op_timeout=0.5&max_connections=8", "redis://h:1/0?max_connections=8"),
    ("redis://h:1/0?max_connections=8&op_timeout=0.5", "redis://h:1/0?max_connections=8"),
    ("redis://h:1/0?op_timeout=2&wait=1&wait_ms=50", "redis://h:1/0"),
    ("rediss://u:p%40ss%2Fw@example.invalid:6380/1?wait=1&ssl_cert_reqs=none",
     "rediss://u:p%40ss%2Fw@example.invalid:6380/1?ssl_cert_reqs=none"),
    ("redis://[::1]:6379/2?op_timeout=1", "redis://[::1]:6379/2"),
    ("REDIS://H:1/0?op_timeout=1", "REDIS://H:1/0"),
    ("unix:///tmp/r.sock", "unix:///tmp/r.sock"),
    ("unix:///run/redis/redis.sock?db=2", "unix:///run/redis/redis.sock?db=2"),
    ("unix:///run/redis/redis.sock?op_timeout=1", "unix:///run/redis/redis.sock"),
    ("unix:///run/redis/redis.sock?db=3&op_timeout=1&wait=0&max_connections=4",
     "unix:///run/redis/redis.sock?db=3&max_connections=4"),
    ("unix://:secret@/run/redis.sock?op_timeout=1&db=1", "unix://:secret@/run/redis.sock?db=1"),
    ("unix:///tmp/a%20b.sock?op_timeout=1", "unix:///tmp/a%20b.sock"),
    ("redis://h:1/0?op_timeout=1&client_name=a+b%26c", "redis://h:1/0?client_name=a+b%26c"),
    ("redis://h:1/0?", "redis://h:1/0?"),
]  # fmt: skip

CLUSTER_URLS = [
    ("redis+cluster://h:7000/", "redis://h:7000/", 64),
    ("rediss+cluster://h:7000/?shards=8&a=1", "rediss://h:7000/?a=1", 8),
    ("Redis+Cluster://u:p%40@h:7000/?a=1&shards=2", "redis://u:p%40@h:7000/?a=1", 2),
    ("redis+cluster://[::1]:7000?shards=1", "redis://[::1]:7000", 1),
]


def _store_url(url: str) -> str:
    """What RedisStore gives redis-py for `url`."""
    url, _ = split_op_timeout(url, 5.0)
    url, _, _ = split_wait(url)
    return url


def _kwargs(url: str) -> dict[str, Any]:
    """What redis-py reads from `url` (ValueError if it refuses it)."""
    ConnectionPool.from_url(url)  # the pool accepts it too (it connects on first use)
    kwargs = dict(parse_url(url))
    kwargs["class"] = kwargs.pop("connection_class", type(None)).__name__
    return kwargs


@pytest.mark.parametrize(("url", "plain"), STORE_URLS)
def test_store_url_helpers_keep_the_url(url: str, plain: str) -> None:
    assert _store_url(url) == plain
    assert _store_url(plain) == plain  # nothing to take: unchanged
    assert _kwargs(plain)  # redis-py accepts it


@pytest.mark.parametrize(("url", "plain", "shards"), CLUSTER_URLS)
def test_cluster_url_helper_keeps_the_url(url: str, plain: str, shards: int) -> None:
    assert split_cluster_url(url) == (plain, shards)
    assert _kwargs(plain)


@pytest.mark.parametrize(
    ("url", "path", "db"),
    [
        ("unix:///tmp/r.sock", "/tmp/r.sock", 0),
        ("unix:///run/redis/redis.sock?op_timeout=1&db=2&wait=0", "/run/redis/redis.sock", 2),
        ("unix:///tmp/a%20b.sock?op_timeout=1", "/tmp/a b.sock", 0),
    ],
)
def test_unix_urls_reach_redis_py_as_a_socket_path(url: str, path: str, db: int) -> None:
    kwargs = _kwargs(_store_url(url))
    assert kwargs["class"] == "UnixDomainSocketConnection"
    assert kwargs["path"] == path
    assert int(kwargs.get("db", 0)) == db


def test_what_redis_py_reads_is_unchanged_but_for_our_options() -> None:
    url = "rediss://u:p%40ss@h.invalid:6380/3?op_timeout=1&max_connections=8&wait=1"
    assert _kwargs(_store_url(url)) == _kwargs("rediss://u:p%40ss@h.invalid:6380/3?max_connections=8")
    kwargs = _kwargs(_store_url(url))
    assert (kwargs["password"], kwargs["host"], kwargs["port"], kwargs["db"]) == (
        "p@ss", "h.invalid", 6380, 3)  # fmt: skip


def test_take_options_reads_the_last_value() -> None:
    assert take_options("redis://h/0?a=1&b=2&a=3#f", ("a",)) == ("redis://h/0?b=2#f", {"a": "3"})
    assert take_options("redis://h/0?a=1", ("a",)) == ("redis://h/0", {"a": "1"})
    assert take_options("redis://h/0#x?a=1", ("a",)) == ("redis://h/0#x?a=1", {})
    assert take_options("redis://h/0?a=x%2By", ("a",)) == ("redis://h/0", {"a": "x+y"})


@pytest.mark.parametrize("url", [u for u, _ in STORE_URLS])
async def test_the_store_is_made_from_every_url(url: str) -> None:
    store = create_store(url, idle_ttl_s=60)  # constructing does not connect
    assert isinstance(store, RedisStore)
    await store.close()
