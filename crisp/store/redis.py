"""Redis store: several server processes share rooms, schedule and pub/sub.

Keys on one Redis (prefix "crisp:" by default):
  {prefix}room:{code}   hash {v: version, doc: JSON, mark:{name}: int}, PEXPIRE idle_ttl,
                        refreshed by save (the marks: claim_mark, docs/store.md "Marks")
  {prefix}deadlines     zset code -> deadline ms (the schedule, with leases)
  {prefix}rooms         zset code -> expiry ms (Redis clock); an index for room_count
  {prefix}leases        zset "code seat conn" -> lease end ms (presence, R17.3)
  {prefix}room:{code}:log  list: the room's log (round records, R18.2), PEXPIRE as the room
  {prefix}budget:{key}  string: a budget's theoretical arrival time (ms, Redis clock), PX = its debt
  channel {prefix}room:{code}   room messages
On a Redis Cluster (`redis+cluster://`) the rooms are split into shards, each in
one hash slot: the room keys, channels, deadlines, rooms and leases of shard s are
`{prefix}{tag}:room:{code}`, `{prefix}{tag}:deadlines`, ... with the shard's hash
tag (`redis_cluster.py`), and room messages use sharded pub/sub.
Every write is one Lua script (one round trip, atomic) whose keys are all in KEYS
and in one slot. This module is the store itself (rooms, marks, budgets, leases);
its parts: `redis_scripts.py` (the Lua scripts), `redis_pool.py` (connections and
their errors), `redis_schedule.py` (shards and the claim of their schedules),
`redis_leases.py` (presence leases), `redis_pubsub.py` and `redis_link.py`
(subscriptions and their read loops). See docs/store.md."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from typing import Any

from redis.asyncio import Redis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from crisp.store import redis_scripts as lua
from crisp.store.base import (
    DEFAULT_IDLE_TTL_S,
    MAX_DEBT_S,
    GapHandler,
    Handler,
    Lease,
    NewVersion,
    OutcomeUnknown,
    Store,
    StoreUnavailable,
    Unsubscribe,
    Versioned,
)
from crisp.store.redis_calls import ScriptCalls
from crisp.store.redis_leases import ShardLeases
from crisp.store.redis_logs import SAVE_LOG, RedisLogs, log_args
from crisp.store.redis_pool import (
    CONN_ERRORS,
    TrackingPool,
    reached,
    split_op_timeout,
    split_wait,
    track_reached,
    untrack,
)
from crisp.store.redis_pubsub import RedisPubSub
from crisp.store.redis_schedule import Shard, ShardSchedules
from crisp.store.redis_tickets import RedisTickets

__all__ = ["PIPELINES", "RedisStore", "split_op_timeout"]

log = logging.getLogger(__name__)
PIPELINES = 8  # pipelines (calls over several shards) at once per store


class RedisStore(ScriptCalls, RedisLogs, RedisTickets, Store):
    """A Store on a Redis server (>= 5), shared by every process that uses the same URL
    and prefix. `RedisClusterStore` (redis_cluster.py) is the same on a Redis Cluster.

    `clock`: the budgets' clock (`spend`), in seconds, for tests that move a bucket's
    time instead of waiting for it (issue 34); None (every server) is Redis's own
    TIME, the one clock every process shares."""

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
        clock: Callable[[], float] | None = None,
    ) -> None:
        url, op_timeout_s = split_op_timeout(self._configure(url), op_timeout_s)
        url, self._wait, self._wait_ms = split_wait(url)
        self.unreplicated = 0  # room writes that `wait` replicas did not confirm in time
        self._partial_failures = 0  # pipelines with some calls failed, since one fully worked
        self._ttl_ms = int(idle_ttl_s * 1000)
        self._budget_prefix = prefix + "budget:"
        self._clock = clock  # the budgets' clock (s); None: Redis's TIME (see `spend`)
        self._ticket_prefix = prefix + "ticket:"
        self._op_timeout = op_timeout_s
        self._sub_timeout = subscribe_timeout_s
        self._pubsub_ping_s = pubsub_ping_s
        self._shards = self._make_shards(prefix)
        self._pipelines = asyncio.Semaphore(PIPELINES)  # at once, each a connection per node
        # No automatic retries: re-running a CAS, create or publish after a dropped
        # reply could apply it twice. Errors surface as StoreUnavailable (nothing was
        # sent) or OutcomeUnknown (a write was sent, its answer never came) instead.
        self._common: dict[str, Any] = {
            "decode_responses": True,
            "retry": Retry(NoBackoff(), 0),
            "socket_connect_timeout": min(2.0, op_timeout_s),
        }
        if not url.lower().startswith("unix:"):
            # TCP only: redis-py's unix-socket connection refuses the option.
            self._common["socket_keepalive"] = True
        self._r: Any = self._make_client(url, max_connections)
        self._create = self._r.register_script(lua.CREATE)
        self._save_script = self._r.register_script(lua.SAVE)
        self._save_log_script = self._r.register_script(SAVE_LOG)  # redis_logs.py
        self._delete = self._r.register_script(lua.DELETE)
        self._claim_mark = self._r.register_script(lua.CLAIM_MARK)
        self._claim_marks = self._r.register_script(lua.CLAIM_MARKS)
        self._return_mark = self._r.register_script(lua.RETURN_MARK)
        self._count = self._r.register_script(lua.COUNT)
        self._renew_leases = self._r.register_script(lua.RENEW_LEASES)
        self._spend = self._r.register_script(lua.SPEND)
        self._heads = self._r.register_script(lua.HEADS)
        self._claim = self._r.register_script(lua.CLAIM)
        self._schedules = ShardSchedules(
            self._shards, self.KNOWN_FOR_S, heads=self._heads, claim=self._claim,
            each=self._each, guard=self._guard, shard_index=self._shard_index)  # fmt: skip
        self._leases = ShardLeases(
            self._r, self._shards, self._schedules, renew=self._renew_leases,
            each=self._each, guard=self._guard, shard_index=self._shard_index,
            pipelines=self._pipelines)  # fmt: skip
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
        pool = TrackingPool.from_url(
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
        token = track_reached()
        try:
            yield
        except CONN_ERRORS as e:
            self._node_failed()
            if write and reached():
                raise OutcomeUnknown(f"redis: {e} (after the request was sent)") from e
            raise StoreUnavailable(f"redis: {e}") from e
        finally:
            untrack(token)

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
        args: list[str | int] = [code, doc, self._ttl_ms, lua.opt_int(deadline_ms)]
        async with self._guard(write=True):
            created = bool(await self._write(self._create, self._room_keys(code), args))
        if created:
            self._schedules.note("deadlines", code, code, deadline_ms)
        return created

    async def load(self, code: str) -> Versioned | None:
        async with self._guard():
            v, doc = await self._r.hmget(self._key(code), ["v", "doc"])
        if v is None or doc is None:
            return None
        return Versioned(int(v), str(doc))

    async def _save(self, code: str, expected_version: int, new: NewVersion) -> int | None:
        args: list[str | int] = [
            code,
            int(expected_version),
            new.doc,
            self._ttl_ms,
            lua.opt_int(new.deadline_ms),
            "0" if new.message is None else self._publish_command,
            self._key(code),
            "" if new.message is None else new.message,
        ]
        async with self._guard(write=True):
            if new.log is None:
                result = await self._write(self._save_script, self._room_keys(code), args)
            else:  # the room's log too, in the same step (redis_logs.py)
                keys = [*self._room_keys(code), self._log_key(code)]
                result = await self._write(self._save_log_script, keys,
                                           [*args, *log_args(new.log)])
        if result is None:
            return None
        self._schedules.note("deadlines", code, code, new.deadline_ms)
        return int(result)

    async def claim_mark(self, code: str, name: str, value: int) -> int | None:
        async with self._guard(write=True):
            args: list[str | int] = ["mark:" + name, int(value)]
            found = int(await self._claim_mark(keys=[self._key(code)], args=args))
        return None if found < 0 else found

    async def claim_marks(self, code: str, marks: Mapping[str, int]) -> dict[str, int] | None:
        args: list[str | int] = []
        for name, value in marks.items():
            args += ["mark:" + name, int(value)]
        async with self._guard(write=True):
            found = await self._claim_marks(keys=[self._key(code)], args=args)
        if not isinstance(found, list):
            return None
        return {name: int(was) for name, was in zip(marks, found, strict=True)}

    async def return_mark(self, code: str, name: str, claimed: int, previous: int) -> None:
        async with self._guard(write=True):
            await self._return_mark(
                keys=[self._key(code)], args=["mark:" + name, claimed, previous])

    async def delete(self, code: str) -> None:
        async with self._guard(write=True):
            await self._write(self._delete, self._room_keys(code), [code])
            await self._r.delete(self._log_key(code))  # else it would expire by itself
        self._schedules.note("deadlines", code, code, None)

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
        if self._clock is not None:  # a test's clock (issue 34), else the Redis clock
            args.append(repr(self._clock() * 1000.0))
        async with self._guard():
            wait_ms = await self._spend(keys=[self._budget_prefix + key], args=args)
        return float(wait_ms) / 1000.0

    # -- deadlines (the claim itself: redis_schedule.py) -------------------------

    async def claim_due(self, now_ms: int, lease_ms: int, limit: int = 100) -> list[str]:
        return await self._schedules.claim("deadlines", now_ms, now_ms + lease_ms, limit)

    async def next_due_ms(self, *, known_ms: int = 0) -> int | None:
        return await self._schedules.next_due_ms(known_ms / 1000)

    # -- presence leases (redis_leases.py) ----------------------------------------

    async def put_leases(self, leases: Sequence[Lease], until_ms: int) -> None:
        await self._leases.put(leases, until_ms)

    async def renew_leases(self, leases: Sequence[Lease], until_ms: int) -> list[bool]:
        return await self._leases.renew(leases, until_ms)

    async def drop_lease(self, lease: Lease) -> None:
        await self._leases.drop(lease)

    async def claim_expired_leases(
        self, now_ms: int, claim_ms: int, limit: int = 100
    ) -> list[Lease]:
        return await self._leases.claim_expired(now_ms, claim_ms, limit)

    # -- pub/sub -----------------------------------------------------------------

    async def publish(self, code: str, message: str) -> None:
        async with self._guard(write=True):
            await self._publish(self._key(code), message)

    async def subscribe(
        self, code: str, handler: Handler, on_gap: GapHandler | None = None
    ) -> Unsubscribe:
        return await self._pubsub.subscribe(code, handler, on_gap)
