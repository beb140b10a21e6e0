"""The Redis store on a Redis Cluster (`redis+cluster://host:port/`, Redis >= 7).

Rooms are split into `shards` (64 by default; `?shards=N` in the URL). A room's
shard is crc32(code) mod shards, and everything about the room lives under its
shard's hash tag, so in one hash slot: its document, its deadline and index
entries, its presence leases and its channel. Every script therefore touches one
slot with all its keys in KEYS, as Redis Cluster requires, and keeps the
single-Redis atomicity (a compare-and-set that also sets the deadline and
publishes). The schedule is one sorted set per shard; the scheduler reads every
shard's due head in one pipelined round trip per node and claims each shard
with its own script. Room messages use sharded pub/sub (`SPUBLISH`, and
`SSUBSCRIBE` on one connection per master), so a message travels only inside
its shard's node.

The shard tags are chosen so that shard i hashes into the i-th equal range of
the 16,384 slots: a cluster whose masters own equal contiguous slot ranges (what
`redis-cli --cluster create` makes) gets equal shares of the shards. The shard
count is part of the key layout: changing it (or moving between `redis://` and
`redis+cluster://`) starts from an empty room set. See docs/store.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import zlib
from collections.abc import AsyncIterator, Callable
from typing import Any

from redis import __version__ as redis_version
from redis.asyncio import Redis
from redis.asyncio.client import PubSub
from redis.asyncio.cluster import RedisCluster
from redis.commands.core import AsyncScript
from redis.crc import REDIS_CLUSTER_HASH_SLOTS, key_slot
from redis.exceptions import (
    ClusterDownError,
    MaxConnectionsError,
    RedisClusterException,
    SlotNotCoveredError,
    TryAgainError,
)

from crisp.store.base import OutcomeUnknown, StoreUnavailable
from crisp.store.redis import PIPELINES, RedisStore
from crisp.store.redis_link import PubSubLink
from crisp.store.redis_pool import CONN_ERRORS, take_options
from crisp.store.redis_pubsub import RedisPubSub
from crisp.store.redis_schedule import Shard

log = logging.getLogger("crisp.store.redis")

SCHEMES = ("redis+cluster", "rediss+cluster")
DEFAULT_SHARDS = 64
# Errors the cluster answers before running anything (or raised before sending).
NOT_SENT = (ClusterDownError, TryAgainError, SlotNotCoveredError, MaxConnectionsError,
            RedisClusterException)  # fmt: skip
PIPELINE_MARGIN = PIPELINES  # connections per node beyond max_connections, for pipelines
REROUTE_EVERY_S = 0.2  # at most this often the slot map is read again after a move


def shard_tags(count: int) -> list[str]:
    """`count` hash tags; tag i hashes into the i-th of `count` equal slot ranges."""
    tags = []
    for i in range(count):
        low = i * REDIS_CLUSTER_HASH_SLOTS // count
        high = (i + 1) * REDIS_CLUSTER_HASH_SLOTS // count
        n = 0
        while not low <= key_slot(f"{i}.{n}".encode()) < high:
            n += 1
        tags.append(f"{i}.{n}")
    return tags


def split_cluster_url(url: str) -> tuple[str, int]:
    """`url` as redis-py's cluster client takes it (scheme without `+cluster`, no
    `shards` option), and the shard count (`?shards=N`, 1 to 16384; else 64). The
    rest of the URL is kept byte for byte (redis_pool.take_options)."""
    raw_scheme, colon, after = url.partition(":")
    scheme = raw_scheme.lower()
    if not colon or scheme not in SCHEMES:
        raise ValueError(f"not a cluster URL: {scheme}:// (use redis+cluster://)")
    url, options = take_options(scheme.removesuffix("+cluster") + ":" + after, ("shards",))
    shards = int(options.get("shards", DEFAULT_SHARDS))
    if not 1 <= shards <= REDIS_CLUSTER_HASH_SLOTS:
        raise ValueError(f"shards must be between 1 and 16384, not {shards}")
    return url, shards


class _BoundedCluster(RedisCluster):
    """redis-py's cluster client with at most `crisp_slots` commands in flight: the
    others wait (up to `crisp_wait_s`, then MaxConnectionsError, nothing sent), so
    no node needs more connections than that, the way the single-Redis store's
    blocking pool waits. (redis-py's cluster client fails at once when a node has
    no free connection.) Pipelines (one connection per node each) use the margin."""

    crisp_slots: asyncio.Semaphore
    crisp_wait_s: float

    async def execute_command(self, *args: Any, **kwargs: Any) -> Any:
        try:
            async with asyncio.timeout(self.crisp_wait_s):
                await self.crisp_slots.acquire()
        except TimeoutError as e:
            raise MaxConnectionsError("no free connection to the cluster") from e
        try:
            return await super().execute_command(*args, **kwargs)
        finally:
            self.crisp_slots.release()


def _refused(exc: BaseException) -> bool:
    """True if the error happened while connecting: the request was never sent."""
    return isinstance(exc, ConnectionRefusedError) or "connecting to" in str(exc)


class ClusterPubSub(RedisPubSub):
    """Room subscriptions on a cluster: sharded pub/sub, one link per master; a
    channel whose slot moved (the node unsubscribed it, or answered MOVED) is
    subscribed again on its new owner, and its subscribers reload (`on_gap`)."""

    def __init__(
        self,
        cluster: RedisCluster,
        channel_of: Callable[[str], str],
        client_options: dict[str, Any],
        **timeouts: float,
    ) -> None:
        super().__init__(None, channel_of, **timeouts)
        self._cluster = cluster
        self._client_options = client_options
        self._links: dict[str, PubSubLink] = {}
        self._reroute: asyncio.Task[None] | None = None

    def links(self) -> list[PubSubLink]:
        return list(self._links.values())

    async def _owner(self, channel: str) -> str:
        await self._cluster.initialize()
        node = self._cluster.get_node_from_key(channel)
        if node is None:
            raise StoreUnavailable(f"redis: no cluster node serves {channel}")
        return str(node.name)

    async def link_for(self, channel: str) -> PubSubLink:
        name = await self._owner(channel)
        link = self._links.get(name)
        if link is None:
            host, port = name.rsplit(":", 1)
            client = Redis(host=host, port=int(port), **self._client_options)
            link = self._links[name] = self.new_link(client, sharded=True)
        return link

    def moved(self, channel: str) -> None:
        if self._reroute is None or self._reroute.done():
            self._reroute = asyncio.get_running_loop().create_task(
                self._move_channels(), name="crisp-store-pubsub-reroute")

    async def after_move(self) -> None:
        """Wait until the slot map was read again."""
        task = self._reroute
        if task is None or task.done():
            self.moved("")
            task = self._reroute
        assert task is not None
        with contextlib.suppress(Exception):
            await asyncio.shield(task)

    async def _move_channels(self) -> None:
        """Read the slot map again and hold every channel on the link of its owner."""
        await asyncio.sleep(REROUTE_EVERY_S)
        try:
            await self._cluster.nodes_manager.initialize()
        except Exception as e:  # the links keep retrying; a later move asks again
            log.warning("redis pub/sub: reading the cluster's slot map failed (%s)", e)
            return
        async with self._lock:
            for channel, held in list(self._holder.items()):
                link = await self.link_for(channel)
                if link is held and channel in held.wanted:
                    continue
                log.info("redis pub/sub: %s moved; subscribing on its new node", channel)
                await held.unwant(channel)
                self._holder[channel] = link
                await link.want(channel, lost=True)

    async def close(self) -> None:
        if self._reroute is not None:
            self._reroute.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reroute
        await super().close()
        self._links.clear()


class RedisClusterStore(RedisStore):
    """A Store on a Redis Cluster (Redis >= 7): see the module docstring."""

    _publish_command = "SPUBLISH"
    KNOWN_FOR_S = 1.0

    def _configure(self, url: str) -> str:
        if not hasattr(PubSub, "ssubscribe"):  # redis-py < 8.0: no sharded pub/sub
            raise RuntimeError(
                "a Redis Cluster store (redis+cluster://) needs redis-py 8.0 or newer, for "
                f"sharded pub/sub; this is redis-py {redis_version}")
        url, self._shard_count = split_cluster_url(url)
        self._init_lock = asyncio.Lock()
        self._initialized = False
        self._refresh: asyncio.Task[None] | None = None
        return url

    def _node_failed(self) -> None:
        """A node did not answer: read the slot map again shortly (its slots may have a
        new master). redis-py does so itself after a failed single command, but not
        after a pipeline's, and a process whose only calls to a shard are pipelines
        (the schedule's reads and claims) would keep the dead master for good."""
        if self._refresh is None or self._refresh.done():
            self._refresh = asyncio.get_running_loop().create_task(
                self._refresh_slots(), name="crisp-store-slots")

    async def _refresh_slots(self) -> None:
        await asyncio.sleep(REROUTE_EVERY_S)  # at most this often
        try:
            await self._r.nodes_manager.initialize()
        except Exception as e:  # the next failure asks again
            log.info("redis: reading the cluster's slot map failed (%s)", e)

    def _make_shards(self, prefix: str) -> list[Shard]:
        return [Shard(f"{prefix}{{{tag}}}:") for tag in shard_tags(self._shard_count)]

    def _shard_index(self, code: str) -> int:
        return zlib.crc32(code.encode()) % len(self._shards)

    def _make_client(self, url: str, max_connections: int) -> Any:
        client = _BoundedCluster.from_url(
            url, max_connections=max_connections + PIPELINE_MARGIN,
            socket_timeout=self._op_timeout, **self._common)  # fmt: skip
        assert isinstance(client, _BoundedCluster)
        client.crisp_slots = asyncio.Semaphore(max_connections)
        client.crisp_wait_s = self._op_timeout
        return client

    def _make_pubsub(self, url: str) -> RedisPubSub:
        return ClusterPubSub(
            self._r, self._key, self._common, op_timeout_s=self._op_timeout,
            subscribe_timeout_s=self._sub_timeout, ping_s=self._pubsub_ping_s)  # fmt: skip

    async def _publish(self, channel: str, message: str) -> None:
        await self._r.spublish(channel, message)

    def _wait_options(self, key: str) -> dict[str, Any]:
        """WAIT goes with the write to the master of `key`'s slot, in the same
        per-node pipeline, so on the connection that wrote it."""
        return {"target_nodes": self._r.get_node_from_key(key)}

    async def start(self) -> None:
        # Read the slot map and load the scripts on every master now if the cluster
        # answers (else on first use: a first EVALSHA per script and master fails
        # with NOSCRIPT and loads it, three round trips).
        with contextlib.suppress(*CONN_ERRORS, *NOT_SENT):
            await self._initialize()
            for script in [v for v in vars(self).values() if isinstance(v, AsyncScript)]:
                await self._r.script_load(script.script)
        await super().start()

    async def close(self) -> None:
        if self._refresh is not None:
            self._refresh.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._refresh
        await super().close()

    async def _initialize(self) -> None:
        """Read the slot map once, before the first call: redis-py's cluster client
        fails calls that race its first initialisation."""
        async with self._init_lock:
            if not self._initialized:
                async with asyncio.timeout(self._op_timeout):
                    await self._r.initialize()
                self._initialized = True

    @contextlib.asynccontextmanager
    async def _guard(self, *, write: bool = False) -> AsyncIterator[None]:
        """As on one Redis; a write that failed after connecting is OutcomeUnknown
        (the cluster client gives no finer account), one the cluster refused
        (CLUSTERDOWN, TRYAGAIN, no node for the slot, no free connection in time)
        is StoreUnavailable."""
        if not self._initialized:
            try:
                await self._initialize()
            except (*CONN_ERRORS, *NOT_SENT) as e:  # nothing was sent yet
                raise StoreUnavailable(f"redis: reading the slot map: {e!r}") from e
        try:
            yield
        except NOT_SENT as e:
            self._node_failed()
            raise StoreUnavailable(f"redis: {e}") from e
        except CONN_ERRORS as e:
            self._node_failed()
            if write and not _refused(e):
                raise OutcomeUnknown(f"redis: {e} (after the request was sent)") from e
            raise StoreUnavailable(f"redis: {e}") from e
