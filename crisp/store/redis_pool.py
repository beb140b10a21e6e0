"""The connection side of the Redis store: which errors mean the connection
failed, whether a store call got as far as a connected connection (so that a
write that failed after it has an unknown outcome, docs/store.md "Atomicity"),
the bounded blocking pool that notes it, and the `op_timeout` URL option."""

from __future__ import annotations

from contextvars import ContextVar, Token
from typing import Any
from urllib.parse import parse_qsl

from redis.asyncio import BlockingConnectionPool
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

CONN_ERRORS = (RedisConnectionError, RedisTimeoutError, ConnectionError, TimeoutError, OSError)

# True once the calling task got a connected connection for its current store call:
# a failure after that may have reached Redis (its outcome is unknown); a failure
# before it (refused, no free connection, connect timeout) certainly did not.
# (A cell, so that tasks a store call gathers mark the call that started them.)
_reached: ContextVar[list[bool] | None] = ContextVar("crisp_redis_reached", default=None)


def track_reached() -> Token[list[bool] | None]:
    """Start tracking the current store call (in this task's context); give the
    returned token to `untrack`."""
    return _reached.set([False])


def untrack(token: Token[list[bool] | None]) -> None:
    """Stop tracking the store call `track_reached` started."""
    _reached.reset(token)


def mark_reached() -> None:
    """Note that the current store call got a connected connection."""
    cell = _reached.get()
    if cell is not None:
        cell[0] = True


def reached() -> bool:
    """True if the current store call got a connected connection."""
    cell = _reached.get()
    return cell is not None and cell[0]


class TrackingPool(BlockingConnectionPool):
    """The blocking pool, handing out only connections that are connected and not
    closed by Redis, and noting in the caller's context when it did."""

    async def get_connection(self, *args: Any, **kwargs: Any) -> Any:
        conn = await super().get_connection(*args, **kwargs)  # type: ignore[no-untyped-call]
        try:
            # An idle connection whose stream ended (Redis restarted or killed it) is
            # replaced before anything is sent on it. redis-py 5 checks this itself;
            # 8 skips the check when its maintenance notifications are on.
            check = getattr(conn, "can_read", None) or conn.can_read_destructive  # 8 / 5
            try:
                stale = bool(await check())
            except CONN_ERRORS:
                stale = True
            if stale:
                await conn.disconnect()
                await conn.connect()
        except BaseException:
            await self.release(conn)
            raise
        mark_reached()
        return conn


def take_options(url: str, names: tuple[str, ...]) -> tuple[str, dict[str, str]]:
    """`url` without the query options `names`, and their values (the last of each).

    Only the query string changes: the rest of the URL, and the options that stay,
    are kept byte for byte. (Taking a URL apart and putting it back together with
    urllib drops an empty authority, turning `unix:///run/r.sock` into
    `unix:/run/r.sock`, which redis-py 8.2 refuses.) The query is what lies between
    the first `?` and the first `#`, as urllib and redis-py read it."""
    head, hash_mark, fragment = url.partition("#")
    base, question, query = head.partition("?")
    if not question:
        return url, {}
    values: dict[str, str] = {}
    kept: list[str] = []
    for piece in query.split("&"):
        pairs = parse_qsl(piece, keep_blank_values=True)
        if pairs and pairs[0][0] in names:
            values[pairs[0][0]] = pairs[0][1]
        else:
            kept.append(piece)
    if not values:
        return url, {}
    rest = "&".join(kept)
    return base + ("?" + rest if rest else "") + hash_mark + fragment, values


def split_op_timeout(url: str, default: float) -> tuple[str, float]:
    """`url` without its `op_timeout` query option (seconds), and that value (else
    `default`). redis-py would refuse the option, so it is taken out here."""
    url, options = take_options(url, ("op_timeout",))
    if "op_timeout" not in options:
        return url, default
    timeout = float(options["op_timeout"])
    if not 0 < timeout <= 3600:
        raise ValueError(f"op_timeout must be between 0 and 3600 seconds, not {timeout}")
    return url, timeout


def split_wait(url: str) -> tuple[str, int, int]:
    """`url` without its `wait` and `wait_ms` query options, and their values: after
    each room write (create, save, delete) wait until `wait` replicas have it, for
    at most `wait_ms` (docs/store.md, "Replicas and WAIT"); `wait` 0 (the default)
    waits for none."""
    url, options = take_options(url, ("wait", "wait_ms"))
    replicas = int(options.get("wait", "0"))
    timeout_ms = int(options.get("wait_ms", "100"))
    if not 0 <= replicas <= 16:
        raise ValueError(f"wait must be between 0 and 16 replicas, not {replicas}")
    if not 1 <= timeout_ms <= 60_000:
        raise ValueError(f"wait_ms must be between 1 and 60000, not {timeout_ms}")
    return url, replicas, timeout_ms
