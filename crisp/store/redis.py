"""Redis store: several server processes share rooms, schedule and pub/sub.

Keys on one Redis (prefix "crisp:" by default):
  {prefix}room:{code}   hash {v: version, doc: JSON, mark:{name}: int}, PEXPIRE idle_ttl,
                        refreshed by save (the marks: claim_mark, docs/store.md "Marks")
  {prefix}deadlines     zset code -> deadline ms (the schedule, with leases)
  {prefix}rooms         zset code -> expiry ms (Redis clock); an index for room_count
  {prefix}leases        zset "code seat conn" -> lease end ms (presence, R17.3)
  {prefix}budget:{key}  string: a budget's theoretical arrival time (ms, Redis clock), PX = its debt
  channel {prefix}room:{code}   room messages
On a Redis Cluster (`redis+cluster://`) the rooms are split into shards, each in
one hash slot: the room keys, channels, deadlines, rooms and leases of shard s are
`{prefix}{tag}:room:{code}`, `{prefix}{tag}:deadlines`, ... with the shard's hash
tag (`redis_cluster.py`), and room messages use sharded pub/sub.
Every write is one Lua script (one round trip, atomic) whose keys are all in KEYS
and in one slot. This module keeps the documents and the schedule; subscriptions
and their read loop are in `redis_pubsub.py`. See docs/store.md."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from collections.abc import AsyncIterator, Sequence
from contextvars import ContextVar
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from redis.asyncio import BlockingConnectionPool, Redis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import NoScriptError

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
PIPELINES = 8  # pipelines (calls over several shards) at once per store

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
# ARGV: code, expected, doc, ttl_ms, deadline ('' = clear),
#       publish ('0', 'PUBLISH' or 'SPUBLISH'), channel, message
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
if ARGV[6] ~= '0' then redis.call(ARGV[6], ARGV[7], ARGV[8]) end
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

# KEYS: a schedule (deadlines, members: codes; or leases, members: "code seat conn"),
# then the room key of each member.  ARGV: now_ms, lease_until_ms, members...
# A member still due is leased if its room lives, else dropped; one already claimed
# by someone else (no longer due) is left alone. Returns {claimed, the schedule's
# first entry afterwards (member, score; empty if none)}.
_CLAIM = """
local out = {}
for i = 3, #ARGV do
  local score = redis.call('ZSCORE', KEYS[1], ARGV[i])
  if score and tonumber(score) <= tonumber(ARGV[1]) then
    if redis.call('EXISTS', KEYS[i - 1]) == 1 then
      redis.call('ZADD', KEYS[1], ARGV[2], ARGV[i])
      out[#out + 1] = ARGV[i]
    else
      redis.call('ZREM', KEYS[1], ARGV[i])
    end
  end
end
return {out, redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')}
"""

# KEYS: a schedule.  ARGV: now_ms ('-inf': none), limit.  Its due entries (at most
# limit), or if none is due its first entry: member, score, member, score, ...
_HEADS = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'WITHSCORES',
                       'LIMIT', 0, tonumber(ARGV[2]))
if #due > 0 then return due end
return redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
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
# (A cell, so that tasks a store call gathers mark the call that started them.)
_reached: ContextVar[list[bool] | None] = ContextVar("crisp_redis_reached", default=None)


def mark_reached() -> None:
    """Note that the current store call got a connected connection."""
    cell = _reached.get()
    if cell is not None:
        cell[0] = True


def reached() -> bool:
    """True if the current store call got a connected connection."""
    cell = _reached.get()
    return cell is not None and cell[0]


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
        mark_reached()
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


class Shard:
    """One shard of the rooms: its key prefix, schedule and indexes. One Redis has one
    shard (the plain layout); on a cluster each shard's keys share one hash slot."""

    __slots__ = ("deadlines", "leases", "prefix", "rooms")

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.deadlines = prefix + "deadlines"
        self.rooms = prefix + "rooms"
        self.leases = prefix + "leases"

    def room(self, code: str) -> str:
        """The room's key, which is also its channel."""
        return self.prefix + "room:" + code


class _Head:
    """What this process knows of one shard's schedule: its first entry (score inf
    and member None when empty), when that was read (monotonic; -inf: read it
    again), and a count of this process's own changes to it."""

    __slots__ = ("changes", "member", "read_at", "score")

    def __init__(self) -> None:
        self.score: float = math.inf
        self.member: str | None = None
        self.read_at = -math.inf
        self.changes = 0

    def learn(self, first: tuple[str, float] | None, read_at: float, changes: int) -> None:
        """The schedule's first entry, as read at `read_at` when `changes` own changes
        were known. Own changes since then: read it again (keeping the earlier)."""
        score, member = (math.inf, None) if first is None else (first[1], first[0])
        if changes != self.changes:
            if score < self.score:
                self.score, self.member = score, member
            self.read_at = -math.inf
            return
        self.score, self.member, self.read_at = score, member, read_at


class RedisStore(Store):
    """A Store on a Redis server (>= 5), shared by every process that uses the same URL
    and prefix. `RedisClusterStore` (redis_cluster.py) is the same on a Redis Cluster."""

    # A shard's schedule is read again when its first entry is due, or when it was
    # last read this long ago: 0 here (always read: one shard, exact), 1 s on a
    # cluster (deadlines other processes set are seen within a second).
    KNOWN_FOR_S = 0.0

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
        url, op_timeout_s = split_op_timeout(self._configure(url), op_timeout_s)
        self._ttl_ms = int(idle_ttl_s * 1000)
        self._budget_prefix = prefix + "budget:"
        self._op_timeout = op_timeout_s
        self._sub_timeout = subscribe_timeout_s
        self._pubsub_ping_s = pubsub_ping_s
        self._shards = self._make_shards(prefix)
        self._known = {kind: [_Head() for _ in self._shards] for kind in ("deadlines", "leases")}
        self._pipelines = asyncio.Semaphore(PIPELINES)  # at once, each a connection per node
        # No automatic retries: re-running a CAS, create or publish after a dropped
        # reply could apply it twice. Errors surface as StoreUnavailable (nothing was
        # sent) or OutcomeUnknown (a write was sent, its answer never came) instead.
        self._common: dict[str, Any] = {
            "decode_responses": True,
            "retry": Retry(NoBackoff(), 0),
            "socket_connect_timeout": min(2.0, op_timeout_s),
            "socket_keepalive": True,
        }
        self._r: Any = self._make_client(url, max_connections)
        self._create = self._r.register_script(_CREATE)
        self._save = self._r.register_script(_SAVE)
        self._delete = self._r.register_script(_DELETE)
        self._claim_mark = self._r.register_script(_CLAIM_MARK)
        self._return_mark = self._r.register_script(_RETURN_MARK)
        self._claim = self._r.register_script(_CLAIM)
        self._heads_script = self._r.register_script(_HEADS)
        self._count = self._r.register_script(_COUNT)
        self._renew_leases = self._r.register_script(_RENEW_LEASES)
        self._spend = self._r.register_script(_SPEND)
        self._pubsub = self._make_pubsub(url)

    # -- the parts a cluster store makes differently ------------------------------

    def _configure(self, url: str) -> str:
        """Take this store's own options out of `url` (none here)."""
        return url

    def _make_shards(self, prefix: str) -> list[Shard]:
        """One shard: the plain key layout."""
        return [Shard(prefix)]

    def _shard_index(self, code: str) -> int:
        """The index of the shard that holds room `code`."""
        return 0

    def _shard(self, code: str) -> Shard:
        """The shard that holds room `code`."""
        return self._shards[self._shard_index(code)]

    def _make_client(self, url: str, max_connections: int) -> Any:
        """The client for documents, scripts and publishing."""
        # A bounded, blocking pool: under load, operations wait (up to the op timeout)
        # for a free connection instead of failing with "Too many connections".
        # `?max_connections=N` in the URL overrides the size.
        pool = _TrackingPool.from_url(
            url, max_connections=max_connections, timeout=self._op_timeout,
            socket_timeout=self._op_timeout, **self._common)
        return Redis.from_pool(pool)

    def _make_pubsub(self, url: str) -> RedisPubSub:
        """Subscriptions: one connection (blocking reads, so no socket timeout;
        liveness comes from the reader's own pings)."""
        return RedisPubSub(
            Redis.from_url(url, **self._common),
            self._key,
            op_timeout_s=self._op_timeout,
            subscribe_timeout_s=self._sub_timeout,
            ping_s=self._pubsub_ping_s,
        )

    async def _each(self, script: Any, calls: Sequence[tuple[list[str], list[Any]]]) -> list[Any]:
        """`script` once per (keys, args) of `calls`, all at once: directly for one
        call, else in one pipeline (on a cluster: one round trip per node). The
        first error is raised; a script a node does not know yet (a new master) is
        loaded on every master and the pipeline sent again."""
        if len(calls) == 1:
            keys, args = calls[0]
            return [await script(keys=keys, args=args)]
        for attempt in (1, 2):
            pipe = self._r.pipeline(transaction=False)
            for keys, args in calls:
                pipe.execute_command("EVALSHA", script.sha, len(keys), *keys, *args)
            async with self._pipelines:
                results = list(await pipe.execute(raise_on_error=False))
            if attempt == 1 and any(isinstance(r, NoScriptError) for r in results):
                await self._r.script_load(script.script)
                continue
            for result in results:
                if isinstance(result, Exception):
                    raise result
            return results
        raise AssertionError("unreachable")

    async def _publish(self, channel: str, message: str) -> None:
        await self._r.publish(channel, message)

    _publish_command = "PUBLISH"  # the command the save script publishes with

    # -- helpers -----------------------------------------------------------------

    def _key(self, code: str) -> str:
        return self._shard(code).room(code)

    @contextlib.asynccontextmanager
    async def _guard(self, *, write: bool = False) -> AsyncIterator[None]:
        """Connection errors as StoreUnavailable; for a `write` whose request may have
        reached Redis (a connection was obtained), OutcomeUnknown."""
        token = _reached.set([False])
        try:
            yield
        except CONN_ERRORS as e:
            if write and reached():
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
        shard = self._shard(code)
        return [shard.room(code), shard.deadlines, shard.rooms]

    async def create(self, code: str, doc: str, deadline_ms: int | None = None) -> bool:
        args: list[str | int] = [code, doc, self._ttl_ms, _opt_int(deadline_ms)]
        async with self._guard(write=True):
            created = bool(await self._create(keys=self._room_keys(code), args=args))
        if created:
            self._note("deadlines", code, code, deadline_ms)
        return created

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
            "0" if message is None else self._publish_command,
            self._key(code),
            "" if message is None else message,
        ]
        async with self._guard(write=True):
            result = await self._save(keys=self._room_keys(code), args=args)
        if result is None:
            return None
        self._note("deadlines", code, code, deadline_ms)
        return int(result)

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
        self._note("deadlines", code, code, None)

    async def exists(self, code: str) -> bool:
        async with self._guard():
            return bool(await self._r.exists(self._key(code)))

    async def room_count(self) -> int:
        async with self._guard():
            counts = await self._each(self._count, [([shard.rooms], []) for shard in self._shards])
        return sum(int(c) for c in counts)

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

    # -- deadlines and the claim of a schedule -------------------------------------

    def _note(self, kind: str, code: str, member: str, score: float | None) -> None:
        """This process set `member`'s entry in its shard's schedule `kind` to `score`
        (None: removed): keep what this process knows of the shard's first entry."""
        head = self._known[kind][self._shard_index(code)]
        head.changes += 1
        if score is not None and score < head.score:
            head.score, head.member = score, member
        elif member == head.member:  # the first entry moved later or left: read it again
            head.read_at = -math.inf

    async def _read_heads(
        self, kind: str, which: list[int], now: str | int, limit: int
    ) -> list[list[tuple[str, float]]]:
        """Read shards `which` of schedule `kind`: per shard, its due (member, score)
        pairs (at most `limit`), else its first entry; and remember each first entry."""
        heads = self._known[kind]
        before = [heads[i].changes for i in which]
        started = time.monotonic()
        calls = [([getattr(self._shards[i], kind)], [now, limit]) for i in which]
        answers = await self._each(self._heads_script, calls)
        out = []
        for i, changes, flat in zip(which, before, answers, strict=True):
            pairs = [(str(m), float(sc)) for m, sc in zip(flat[::2], flat[1::2], strict=True)]
            out.append(pairs)
            heads[i].learn(pairs[0] if pairs else None, started, changes)
        return out

    async def _claim_schedule(
        self, kind: str, now_ms: int, until_ms: int, limit: int
    ) -> list[str]:
        """Claim up to `limit` due members of the shards' schedules `kind`
        ("deadlines" or "leases"), earliest first. Each shard is claimed on its own:
        read only if its first entry is known to be due or was last read
        `KNOWN_FOR_S` ago or more (0 on one Redis), then one claim script with the
        due members' room keys (it leases what is still due, drops the members of
        gone rooms, and returns the shard's new first entry)."""
        if limit <= 0:
            return []
        heads = self._known[kind]
        stale = time.monotonic() - self.KNOWN_FOR_S
        which = [i for i, h in enumerate(heads) if h.score <= now_ms or h.read_at <= stale]
        if not which:
            return []
        async with self._guard():
            pairs = await self._read_heads(kind, which, now_ms, limit)
        due = sorted(
            ((score, member, i)
             for i, shard_pairs in zip(which, pairs, strict=True)
             for member, score in shard_pairs if score <= now_ms),
            key=lambda x: x[0])[:limit]  # fmt: skip
        by_shard: dict[int, list[str]] = {}
        for _, member, i in due:
            by_shard.setdefault(i, []).append(member)
        if not by_shard:
            return []

        calls = []
        for i, members in by_shard.items():
            shard = self._shards[i]
            rooms = [shard.room(m.split(" ", 1)[0]) for m in members]
            calls.append(([getattr(shard, kind), *rooms], [now_ms, until_ms, *members]))
        changes, started = [heads[i].changes for i in by_shard], time.monotonic()
        async with self._guard(write=True):
            answers = await self._each(self._claim, calls)
        claimed = []
        for i, before, (got, first) in zip(by_shard, changes, answers, strict=True):
            heads[i].learn((str(first[0]), float(first[1])) if first else None, started, before)
            claimed += [str(m) for m in got]
        return claimed

    async def claim_due(self, now_ms: int, lease_ms: int, limit: int = 100) -> list[str]:
        return await self._claim_schedule("deadlines", now_ms, now_ms + lease_ms, limit)

    async def next_due_ms(self) -> int | None:
        heads = self._known["deadlines"]
        stale = time.monotonic() - self.KNOWN_FOR_S
        which = [i for i, h in enumerate(heads) if h.read_at <= stale]
        if which:
            async with self._guard():
                await self._read_heads("deadlines", which, "-inf", 1)
        first = min(h.score for h in heads)
        return None if first == math.inf else int(first)

    # -- presence leases ---------------------------------------------------------

    def _by_shard(self, leases: Sequence[Lease]) -> dict[int, list[int]]:
        """The indexes of `leases` grouped by their room's shard."""
        groups: dict[int, list[int]] = {}
        for i, lease in enumerate(leases):
            groups.setdefault(self._shard_index(lease.code), []).append(i)
        return groups

    async def put_leases(self, leases: Sequence[Lease], until_ms: int) -> None:
        if not leases:
            return
        groups = self._by_shard(leases)
        async with self._guard():
            if len(groups) == 1:  # a single command: no pipeline
                ((shard, group),) = groups.items()
                await self._r.zadd(self._shards[shard].leases,
                                   {_member(leases[i]): int(until_ms) for i in group})  # fmt: skip
            else:
                pipe = self._r.pipeline(transaction=False)
                for shard, group in groups.items():
                    pipe.zadd(self._shards[shard].leases,
                              {_member(leases[i]): int(until_ms) for i in group})  # fmt: skip
                async with self._pipelines:
                    await pipe.execute()
        for lease in leases:
            self._note("leases", lease.code, _member(lease), until_ms)

    async def renew_leases(self, leases: Sequence[Lease], until_ms: int) -> list[bool]:
        if not leases:
            return []
        groups = self._by_shard(leases)
        calls = [
            ([self._shards[shard].leases], [int(until_ms), *(_member(leases[i]) for i in group)])
            for shard, group in groups.items()
        ]
        async with self._guard():
            answers = await self._each(self._renew_leases, calls)
        held = [False] * len(leases)
        for group, answer in zip(groups.values(), answers, strict=True):
            for i, h in zip(group, answer, strict=True):
                held[i] = bool(h)
        for lease, h in zip(leases, held, strict=True):
            if h:
                self._note("leases", lease.code, _member(lease), until_ms)
        return held

    async def drop_lease(self, lease: Lease) -> None:
        async with self._guard():
            await self._r.zrem(self._shard(lease.code).leases, _member(lease))
        self._note("leases", lease.code, _member(lease), None)

    async def claim_expired_leases(
        self, now_ms: int, claim_ms: int, limit: int = 100
    ) -> list[Lease]:
        members = await self._claim_schedule("leases", now_ms, now_ms + claim_ms, limit)
        return [_lease(m) for m in members]

    # -- pub/sub -----------------------------------------------------------------

    async def publish(self, code: str, message: str) -> None:
        async with self._guard(write=True):
            await self._publish(self._key(code), message)

    async def subscribe(
        self, code: str, handler: Handler, on_gap: GapHandler | None = None
    ) -> Unsubscribe:
        return await self._pubsub.subscribe(code, handler, on_gap)
