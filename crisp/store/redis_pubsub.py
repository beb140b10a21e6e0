"""The pub/sub half of the Redis store: one connection per process, its read loop,
and the local fan-out of each room channel's messages.

`RedisPubSub` owns a dedicated Redis connection (blocking reads: no socket
timeout). Its reader task reads messages, pings when idle (an unanswered PING
means the connection died silently), and on any connection error reconnects
with backoff and re-subscribes every channel that has local subscribers. Once
Redis confirms such a re-subscription, the channel's subscribers are told that
messages may have been lost (`on_gap`), so they can reload. `subscribe` returns
once Redis confirmed the SUBSCRIBE, so no message published after it returns
can be missed. Publishing goes through the document connection
(`RedisStore.publish`, and `save` inside its Lua script).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from redis.asyncio import Redis
from redis.asyncio.client import PubSub
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from crisp.store.base import GapHandler, Handler, StoreUnavailable, Unsubscribe
from crisp.store.fanout import Fanout, Subscription

log = logging.getLogger("crisp.store.redis")

CONN_ERRORS = (RedisConnectionError, RedisTimeoutError, ConnectionError, TimeoutError, OSError)
MIN_BACKOFF_S = 0.05
MAX_BACKOFF_S = 0.5  # a restarted Redis is subscribed to again within about this long


class RedisPubSub:
    """Subscriptions to room channels (`{channel_prefix}{code}`) for this process."""

    def __init__(
        self,
        client: Redis,
        channel_prefix: str,
        *,
        op_timeout_s: float,
        subscribe_timeout_s: float,
        ping_s: float,
    ) -> None:
        self._client = client
        self._prefix = channel_prefix
        self._op_timeout = op_timeout_s
        self._sub_timeout = subscribe_timeout_s
        self._ping_s = ping_s
        self._fanout = Fanout()
        self._wanted: set[str] = set()  # channels with local subscribers
        self._pending: dict[str, int] = {}  # SUBSCRIBEs sent on this connection, unconfirmed
        self._ready: dict[str, asyncio.Future[None]] = {}  # done once confirmed
        self._lost: set[str] = set()  # channels of a dropped connection, not yet back
        self._ps: PubSub | None = None
        self._lock = asyncio.Lock()
        self._wake = asyncio.Event()
        self._reader: asyncio.Task[None] | None = None

    def has_subscribers(self, code: str) -> bool:
        """True while the room has a local subscriber."""
        return self._fanout.has(code)

    # -- lifecycle ---------------------------------------------------------------

    async def start(self) -> None:
        """Start the reader task (it connects once a channel is wanted). Idempotent."""
        if self._reader is None or self._reader.done():
            self._reader = asyncio.create_task(self._read_loop(), name="crisp-store-pubsub")

    async def close(self) -> None:
        """Stop the reader, drop the connection and every local subscriber."""
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader
            self._reader = None
        await self._drop_connection()
        await self._fanout.close()
        self._wanted.clear()
        self._lost.clear()
        self._ready.clear()
        await self._client.aclose()

    # -- subscribing -------------------------------------------------------------

    async def subscribe(
        self, code: str, handler: Handler, on_gap: GapHandler | None = None
    ) -> Unsubscribe:
        """See `Store.subscribe`."""
        await self.start()
        channel = self._prefix + code
        sub, _ = self._fanout.add(code, handler, on_gap)
        try:
            async with asyncio.timeout(self._sub_timeout):
                async with self._lock:
                    ready = self._ready.get(channel)
                    if ready is None:
                        ready = asyncio.get_running_loop().create_future()
                        self._ready[channel] = ready
                    if channel not in self._wanted:
                        self._wanted.add(channel)
                        if self._ps is None:
                            self._wake.set()  # the reader connects and subscribes
                        else:
                            self._pending[channel] = self._pending.get(channel, 0) + 1
                            with contextlib.suppress(*CONN_ERRORS):  # else the reader will
                                await self._ps.subscribe(channel)
                # Wait for Redis's confirmation: from then on no message can be missed.
                await asyncio.shield(ready)
        except BaseException as e:
            await self._unsubscribe(sub)
            if isinstance(e, TimeoutError):
                raise StoreUnavailable(f"redis: SUBSCRIBE {channel} not confirmed") from e
            raise

        async def unsubscribe() -> None:
            await self._unsubscribe(sub)

        return unsubscribe

    async def _unsubscribe(self, sub: Subscription) -> None:
        await self._fanout.remove(sub)
        channel = self._prefix + sub.code
        async with self._lock:
            if self._fanout.has(sub.code) or channel not in self._wanted:
                return
            self._wanted.discard(channel)
            self._lost.discard(channel)
            self._ready.pop(channel, None)
            if self._ps is not None:
                with contextlib.suppress(*CONN_ERRORS):
                    async with asyncio.timeout(self._op_timeout):
                        await self._ps.unsubscribe(channel)

    # -- the connection and its reader -------------------------------------------

    async def _connect(self) -> None:
        async with self._lock:
            ps = self._client.pubsub()
            try:
                async with asyncio.timeout(self._op_timeout):
                    await ps.connect()  # type: ignore[no-untyped-call]
                    self._pending = {}
                    channels = sorted(self._wanted)
                    if channels:
                        await ps.subscribe(*channels)
                        self._pending = dict.fromkeys(channels, 1)
            except BaseException:
                await ps.aclose()  # type: ignore[no-untyped-call]
                raise
            self._ps = ps

    async def _drop_connection(self) -> None:
        async with self._lock:
            ps, self._ps = self._ps, None
            if ps is not None:  # what was published meanwhile is lost for these channels
                self._lost |= self._wanted
            # New subscribers must wait for the re-subscription on the next connection.
            for channel, fut in list(self._ready.items()):
                if fut.done():
                    self._ready[channel] = asyncio.get_running_loop().create_future()
        if ps is not None:
            with contextlib.suppress(Exception):
                await ps.aclose()  # type: ignore[no-untyped-call]

    def _on_message(self, msg: dict[str, Any]) -> None:
        kind, channel = msg.get("type"), msg.get("channel")
        if not isinstance(channel, str):
            return
        if kind == "message":
            if channel.startswith(self._prefix):
                self._fanout.deliver(channel[len(self._prefix) :], str(msg["data"]))
        elif kind == "subscribe":
            left = self._pending.get(channel, 0) - 1
            if left > 0:
                self._pending[channel] = left
                return
            self._pending.pop(channel, None)
            ready = self._ready.get(channel)
            if ready is not None and not ready.done() and channel in self._wanted:
                ready.set_result(None)
            if channel in self._lost:  # back after a loss: the subscribers reload
                self._lost.discard(channel)
                self._fanout.lost(channel[len(self._prefix) :])

    async def _read_loop(self) -> None:
        """Owns the pub/sub connection: reads messages, pings when idle, and on any
        connection error reconnects (with backoff) and re-subscribes every channel that
        has local subscribers."""
        loop = asyncio.get_running_loop()
        backoff = MIN_BACKOFF_S
        last_rx, ping_at = loop.time(), None
        while True:
            if self._ps is None:
                if not self._wanted:
                    self._wake.clear()
                    await self._wake.wait()
                    continue
                try:
                    await self._connect()
                except CONN_ERRORS as e:
                    # The first failure of an outage is a warning, the retries are not.
                    level = logging.WARNING if backoff == MIN_BACKOFF_S else logging.DEBUG
                    log.log(level, "redis pub/sub: connect failed (%r); retrying", e)
                    await asyncio.sleep(backoff)
                    backoff = min(backoff * 2, MAX_BACKOFF_S)
                    continue
                if backoff != MIN_BACKOFF_S:
                    log.info("redis pub/sub: connected again")
                backoff = MIN_BACKOFF_S
                last_rx, ping_at = loop.time(), None
            ps = self._ps
            assert ps is not None
            try:
                msg = await ps.get_message(timeout=min(1.0, self._ping_s))
                now = loop.time()
                if msg is not None:
                    last_rx, ping_at = now, None
                    self._on_message(msg)
                elif ping_at is None and now - last_rx >= self._ping_s:
                    ping_at = now
                    await ps.ping()
                elif ping_at is not None and now - ping_at >= self._ping_s:
                    raise RedisTimeoutError("no answer to PING on the pub/sub connection")
            except CONN_ERRORS as e:
                log.warning("redis pub/sub: connection lost (%s); reconnecting", e)
                await self._drop_connection()
            except Exception:  # never let the reader die: start over on a new connection
                log.exception("redis pub/sub: unexpected error; reconnecting")
                await self._drop_connection()
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, MAX_BACKOFF_S)
