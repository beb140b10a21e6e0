"""Redis store: several server processes share rooms, schedule and pub/sub.

Keys (prefix "crisp:" by default):
  {prefix}room:{code}   hash {v: version, doc: JSON, mark:{name}: int}, PEXPIRE idle_ttl,
                        refreshed by save (the marks: claim_mark, docs/store.md "Marks")
  {prefix}deadlines     zset code -> deadline ms (the schedule, with leases)
  {prefix}rooms         zset code -> expiry ms (Redis clock); an index for room_count
  {prefix}leases        zset "code seat conn" -> lease end ms (presence, R17.3)
  {prefix}budget:{key}  string: a budget's theoretical arrival time (ms, Redis clock), PX = its debt
  channel {prefix}room:{code}   room messages
Every write is one Lua script (one round trip, atomic). This module keeps the
documents and the schedule; subscriptions and their read loop are in
`redis_pubsub.py`. See docs/store.md."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Sequence
from contextvars import ContextVar
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from redis.asyncio import BlockingConnectionPool, Redis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from crisp.store.base import (
    DEFAULT_IDLE_TTL_S,
    MAX_DEBT_S,
    GapHandler,
    Handler,
    Lease,
    OutcomeUnknown,
    Store,
    StoreUnavailable,
    Unsubscribe,
    Versioned,
)
from crisp.store.redis_pubsub import CONN_ERRORS, RedisPubSub

log = logging.getLogger(__name__)

# Shared Lua prelude: the Redis clock in ms, for the rooms index.
_NOW = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
"""

# KEYS: room, deadlines, rooms.  ARGV: code, doc, ttl_ms, deadline ('' = none)
_CREATE = (
    _NOW
    + """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'v', 1, 'doc', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('ZADD', KEYS[3], now + tonumber(ARGV[3]), ARGV[1])
if ARGV[4] == '' then redis.call('ZREM', KEYS[2], ARGV[1])
else redis.call('ZADD', KEYS[2], ARGV[4], ARGV[1]) end
return 1
"""
)

# KEYS: room, deadlines, rooms.
# ARGV: code, expected, doc, ttl_ms, deadline ('' = clear), publish ('0'/'1'), channel, message
_SAVE = (
    _NOW
    + """
local v = redis.call('HGET', KEYS[1], 'v')
if not v or tonumber(v) ~= tonumber(ARGV[2]) then return false end
local nv = tonumber(v) + 1
redis.call('HSET', KEYS[1], 'v', nv, 'doc', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('ZADD', KEYS[3], now + tonumber(ARGV[4]), ARGV[1])
if ARGV[5] == '' then redis.call('ZREM', KEYS[2], ARGV[1])
else redis.call('ZADD', KEYS[2], ARGV[5], ARGV[1]) end
if ARGV[6] == '1' then redis.call('PUBLISH', ARGV[7], ARGV[8]) end
return nv
"""
)

# KEYS: room.  ARGV: field, value.  The mark as it was (0 if unset), -1 without a room.
_CLAIM_MARK = """
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
local cur = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0')
if tonumber(ARGV[2]) > cur then redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) end
return cur
"""

# KEYS: room.  ARGV: field, claimed, previous.
_RETURN_MARK = """
local cur = redis.call('HGET', KEYS[1], ARGV[1])
if cur and tonumber(cur) == tonumber(ARGV[2]) then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
end
return 1
"""

# KEYS: room, deadlines, rooms.  ARGV: code
_DELETE = """
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
return 1
"""

# KEYS: deadlines (members: codes) or leases (members: "code seat conn").
# ARGV: now_ms, lease_until_ms, limit, room key prefix.
# Room keys are built in the script (not in KEYS): fine on a single Redis, not on Cluster.
_CLAIM = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
local out = {}
for _, member in ipairs(due) do
  local code = string.match(member, '^(%S+)')
  if code and redis.call('EXISTS', ARGV[4] .. code) == 1 then
    redis.call('ZADD', KEYS[1], ARGV[2], member)
    out[#out + 1] = member
  else
    redis.call('ZREM', KEYS[1], member)
  end
end
return out
"""

# KEYS: leases.  ARGV: until_ms, members...
_RENEW_LEASES = """
local out = {}
for i = 2, #ARGV do
  if redis.call('ZSCORE', KEYS[1], ARGV[i]) then
    redis.call('ZADD', KEYS[1], ARGV[1], ARGV[i])
    out[#out + 1] = 1
  else
    out[#out + 1] = 0
  end
end
return out
"""

# KEYS: rooms.
_COUNT = (
    _NOW
    + """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
return redis.call('ZCARD', KEYS[1])
"""
)


def _member(lease: Lease) -> str:
    return f"{lease.code} {lease.seat} {lease.conn}"


def _lease(member: str) -> Lease:
    code, seat, conn = member.split(" ")
    return Lease(code, seat, conn)


# KEYS: budget.  ARGV: interval_ms, capacity_ms, cost, force ('1'/'0'), max_debt_ms.
# The same arithmetic as base.spend_at, on the Redis clock (shared by every process).
# Returns the wait in ms as a string ('0': spent): Redis truncates Lua numbers.
_SPEND = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then tat = now end
local new = tat + tonumber(ARGV[3]) * tonumber(ARGV[1])
if new < now then new = now end
local capacity = tonumber(ARGV[2])
if new - now > capacity and ARGV[4] ~= '1' then
  return tostring(new - now - capacity)
end
local most = math.max(capacity, tonumber(ARGV[5]))
if new - now > most then new = now + most end
if new - now < 1 then
  redis.call('DEL', KEYS[1])
else
  redis.call('SET', KEYS[1], string.format('%.3f', new), 'PX', math.ceil(new - now))
end
return '0'
"""


def _opt_int(value: int | None) -> str | int:
    return "" if value is None else int(value)


# True once the calling task got a connected connection for its current store call:
# a failure after that may have reached Redis (its outcome is unknown); a failure
# before it (refused, no free connection, connect timeout) certainly did not.
_reached: ContextVar[bool] = ContextVar("crisp_redis_reached", default=False)


class _TrackingPool(BlockingConnectionPool):
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
        _reached.set(True)
        return conn


def split_op_timeout(url: str, default: float) -> tuple[str, float]:
    """`url` without its `op_timeout` query option (seconds), and that value (else
    `default`). redis-py would refuse the option, so it is taken out here."""
    parts = urlsplit(url)
    query = parse_qsl(parts.query, keep_blank_values=True)
    values = [v for k, v in query if k == "op_timeout"]
    if not values:
        return url, default
    timeout = float(values[-1])
    if not 0 < timeout <= 3600:
        raise ValueError(f"op_timeout must be between 0 and 3600 seconds, not {timeout}")
    rest = urlencode([(k, v) for k, v in query if k != "op_timeout"])
    return urlunsplit(parts._replace(query=rest)), timeout


class RedisStore(Store):
    """A Store on a Redis server (>= 5), shared by every process that uses the same URL
    and prefix."""

    def __init__(
        self,
        url: str,
        *,
        idle_ttl_s: int = DEFAULT_IDLE_TTL_S,
        prefix: str = "crisp:",
        op_timeout_s: float = 5.0,
        subscribe_timeout_s: float = 5.0,
        pubsub_ping_s: float = 2.0,
        max_connections: int = 64,
    ) -> None:
        url, op_timeout_s = split_op_timeout(url, op_timeout_s)
        self._ttl_ms = int(idle_ttl_s * 1000)
        self._room_prefix = prefix + "room:"
        self._deadlines_key = prefix + "deadlines"
        self._rooms_key = prefix + "rooms"
        self._leases_key = prefix + "leases"
        self._budget_prefix = prefix + "budget:"
        self._op_timeout = op_timeout_s
        # No automatic retries: re-running a CAS, create or publish after a dropped
        # reply could apply it twice. Errors surface as StoreUnavailable (nothing was
        # sent) or OutcomeUnknown (a write was sent, its answer never came) instead.
        common: dict[str, Any] = {
            "decode_responses": True,
            "retry": Retry(NoBackoff(), 0),
            "socket_connect_timeout": min(2.0, op_timeout_s),
            "socket_keepalive": True,
        }
        # A bounded, blocking pool: under load, operations wait (up to the op timeout)
        # for a free connection instead of failing with "Too many connections".
        # `?max_connections=N` in the URL overrides the size.
        pool = _TrackingPool.from_url(
            url, max_connections=max_connections, timeout=op_timeout_s,
            socket_timeout=op_timeout_s, **common)
        self._r = Redis.from_pool(pool)
        self._create = self._r.register_script(_CREATE)
        self._save = self._r.register_script(_SAVE)
        self._delete = self._r.register_script(_DELETE)
        self._claim_mark = self._r.register_script(_CLAIM_MARK)
        self._return_mark = self._r.register_script(_RETURN_MARK)
        self._claim = self._r.register_script(_CLAIM)
        self._count = self._r.register_script(_COUNT)
        self._renew_leases = self._r.register_script(_RENEW_LEASES)
        self._spend = self._r.register_script(_SPEND)
        # Pub/sub reads block, so that client has no socket timeout; liveness comes
        # from the reader's own pings.
        self._pubsub = RedisPubSub(
            Redis.from_url(url, **common),
            self._room_prefix,
            op_timeout_s=op_timeout_s,
            subscribe_timeout_s=subscribe_timeout_s,
            ping_s=pubsub_ping_s,
        )

    # -- helpers -----------------------------------------------------------------

    def _key(self, code: str) -> str:
        return self._room_prefix + code

    @contextlib.asynccontextmanager
    async def _guard(self, *, write: bool = False) -> AsyncIterator[None]:
        """Connection errors as StoreUnavailable; for a `write` whose request may have
        reached Redis (a connection was obtained), OutcomeUnknown."""
        token = _reached.set(False)
        try:
            yield
        except CONN_ERRORS as e:
            if write and _reached.get():
                raise OutcomeUnknown(f"redis: {e} (after the request was sent)") from e
            raise StoreUnavailable(f"redis: {e}") from e
        finally:
            _reached.reset(token)

    # -- lifecycle ---------------------------------------------------------------

    async def start(self) -> None:
        await self._pubsub.start()

    async def close(self) -> None:
        await self._pubsub.close()
        await self._r.aclose()

    async def ping(self) -> bool:
        try:
            return bool(await asyncio.wait_for(self._r.ping(), timeout=min(1.0, self._op_timeout)))
        except Exception:
            return False

    # -- rooms -------------------------------------------------------------------

    def _room_keys(self, code: str) -> list[str]:
        return [self._key(code), self._deadlines_key, self._rooms_key]

    async def create(self, code: str, doc: str, deadline_ms: int | None = None) -> bool:
        args: list[str | int] = [code, doc, self._ttl_ms, _opt_int(deadline_ms)]
        async with self._guard(write=True):
            return bool(await self._create(keys=self._room_keys(code), args=args))

    async def load(self, code: str) -> Versioned | None:
        async with self._guard():
            v, doc = await self._r.hmget(self._key(code), ["v", "doc"])
        if v is None or doc is None:
            return None
        return Versioned(int(v), str(doc))

    async def save(
        self,
        code: str,
        expected_version: int,
        doc: str,
        *,
        message: str | None = None,
        deadline_ms: int | None = None,
    ) -> int | None:
        args: list[str | int] = [
            code,
            int(expected_version),
            doc,
            self._ttl_ms,
            _opt_int(deadline_ms),
            "0" if message is None else "1",
            self._key(code),
            "" if message is None else message,
        ]
        async with self._guard(write=True):
            result = await self._save(keys=self._room_keys(code), args=args)
        return None if result is None else int(result)

    async def claim_mark(self, code: str, name: str, value: int) -> int | None:
        async with self._guard(write=True):
            args: list[str | int] = ["mark:" + name, int(value)]
            found = int(await self._claim_mark(keys=[self._key(code)], args=args))
        return None if found < 0 else found

    async def return_mark(self, code: str, name: str, claimed: int, previous: int) -> None:
        async with self._guard(write=True):
            await self._return_mark(
                keys=[self._key(code)], args=["mark:" + name, claimed, previous])

    async def delete(self, code: str) -> None:
        async with self._guard(write=True):
            await self._delete(keys=self._room_keys(code), args=[code])

    async def exists(self, code: str) -> bool:
        async with self._guard():
            return bool(await self._r.exists(self._key(code)))

    async def room_count(self) -> int:
        async with self._guard():
            return int(await self._count(keys=[self._rooms_key]))

    # -- budgets -----------------------------------------------------------------

    async def spend(
        self, key: str, cost: float = 1.0, *, per_s: float, burst: float, force: bool = False
    ) -> float:
        interval = 1000.0 / per_s
        args: list[str | float] = [
            repr(interval), repr(burst * interval), repr(float(cost)), "1" if force else "0",
            MAX_DEBT_S * 1000,
        ]
        async with self._guard():
            wait_ms = await self._spend(keys=[self._budget_prefix + key], args=args)
        return float(wait_ms) / 1000.0

    # -- deadlines ---------------------------------------------------------------

    async def claim_due(self, now_ms: int, lease_ms: int, limit: int = 100) -> list[str]:
        if limit <= 0:
            return []
        args: list[str | int] = [now_ms, now_ms + lease_ms, limit, self._room_prefix]
        async with self._guard(write=True):
            codes: Sequence[str] = await self._claim(keys=[self._deadlines_key], args=args)
        return list(codes)

    async def next_due_ms(self) -> int | None:
        async with self._guard():
            first = await self._r.zrange(self._deadlines_key, 0, 0, withscores=True)
        return int(first[0][1]) if first else None

    # -- presence leases ---------------------------------------------------------

    async def put_leases(self, leases: Sequence[Lease], until_ms: int) -> None:
        if not leases:
            return
        async with self._guard():
            await self._r.zadd(self._leases_key, {_member(x): int(until_ms) for x in leases})

    async def renew_leases(self, leases: Sequence[Lease], until_ms: int) -> list[bool]:
        if not leases:
            return []
        args: list[str | int] = [int(until_ms), *(_member(x) for x in leases)]
        async with self._guard():
            held: Sequence[int] = await self._renew_leases(keys=[self._leases_key], args=args)
        return [bool(h) for h in held]

    async def drop_lease(self, lease: Lease) -> None:
        async with self._guard():
            await self._r.zrem(self._leases_key, _member(lease))

    async def claim_expired_leases(
        self, now_ms: int, claim_ms: int, limit: int = 100
    ) -> list[Lease]:
        if limit <= 0:
            return []
        args: list[str | int] = [now_ms, now_ms + claim_ms, limit, self._room_prefix]
        async with self._guard():
            members: Sequence[str] = await self._claim(keys=[self._leases_key], args=args)
        return [_lease(m) for m in members]

    # -- pub/sub -----------------------------------------------------------------

    async def publish(self, code: str, message: str) -> None:
        async with self._guard(write=True):
            await self._r.publish(self._key(code), message)

    async def subscribe(
        self, code: str, handler: Handler, on_gap: GapHandler | None = None
    ) -> Unsubscribe:
        return await self._pubsub.subscribe(code, handler, on_gap)
