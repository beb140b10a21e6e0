"""One pub/sub connection of the Redis store and its read loop.

A `PubSubLink` owns one dedicated Redis connection (blocking reads: no socket
timeout). Its reader task reads messages, pings when idle (an unanswered PING
means the connection died silently), and on any connection error reconnects
with backoff and re-subscribes every channel it holds. Once Redis confirms such
a re-subscription, the channel's subscribers are told that messages may have been
lost (`on_gap`), so they can reload.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any

from redis.asyncio import Redis
from redis.asyncio.client import PubSub
from redis.crc import key_slot
from redis.exceptions import AskError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from crisp.store.redis_pool import CONN_ERRORS

log = logging.getLogger("crisp.store.redis")

MIN_BACKOFF_S = 0.05
MAX_BACKOFF_S = 0.5  # a restarted Redis is subscribed to again within about this long


class ChannelMoved(Exception):
    """The link gave a channel up: its slot is served by another cluster node."""


class PubSubLink:
    """One pub/sub connection to one Redis server and the channels it holds.

    `deliver(channel, data)` is called for each message, `back(channel)` when a
    channel held across a lost connection is confirmed again (messages may have
    been lost in between), and `moved(channel)` when the server gave a wanted
    channel up (sharded pub/sub: its slot moved; the channel is then no longer
    held here)."""

    def __init__(
        self,
        client: Redis,
        *,
        sharded: bool,
        op_timeout_s: float,
        ping_s: float,
        deliver: Callable[[str, str], None],
        back: Callable[[str], None],
        moved: Callable[[str], None] | None = None,
    ) -> None:
        self._client = client
        self._sharded = sharded
        self._message_kind = "smessage" if sharded else "message"
        self._confirm_kind = "ssubscribe" if sharded else "subscribe"
        self._op_timeout = op_timeout_s
        self._ping_s = ping_s
        self._deliver = deliver
        self._back = back
        self._moved = moved
        self.wanted: set[str] = set()  # channels this link should hold
        self._pending: dict[str, int] = {}  # subscriptions sent on this connection, unconfirmed
        self._ready: dict[str, asyncio.Future[None]] = {}  # done once confirmed
        self._lost: set[str] = set()  # channels whose messages may have been lost
        self._ps: PubSub | None = None
        self._lock = asyncio.Lock()
        self._wake = asyncio.Event()
        self._reader: asyncio.Task[None] | None = None
        self.failing = False  # the last connection attempt failed

    # -- commands of the chosen flavour ------------------------------------------

    async def _subscribe(self, ps: PubSub, *channels: str) -> None:
        if self._sharded:
            await ps.ssubscribe(*channels)
        else:
            await ps.subscribe(*channels)

    async def _unsubscribe(self, ps: PubSub, channel: str) -> None:
        if self._sharded:
            await ps.sunsubscribe(channel)
        else:
            await ps.unsubscribe(channel)

    # -- lifecycle ---------------------------------------------------------------

    def start(self) -> None:
        """Start the reader task (it connects once a channel is wanted). Idempotent."""
        if self._reader is None or self._reader.done():
            self._reader = asyncio.create_task(self._read_loop(), name="crisp-store-pubsub")

    async def close(self) -> None:
        """Stop the reader and drop the connection."""
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader
            self._reader = None
        await self._drop_connection()
        self.wanted.clear()
        self._lost.clear()
        for fut in self._ready.values():
            fut.cancel()
        self._ready.clear()
        await self._client.aclose()

    # -- channels ----------------------------------------------------------------

    async def want(self, channel: str, *, lost: bool = False) -> asyncio.Future[None]:
        """Hold `channel`; the future is done once Redis confirmed it (it fails with
        ChannelMoved if the link gives the channel up first). `lost`: messages may
        already have been lost (a channel moved here): `back` follows the
        confirmation."""
        self.start()
        async with self._lock:
            ready = self._ready.get(channel)
            if ready is None:
                ready = asyncio.get_running_loop().create_future()
                self._ready[channel] = ready
            if lost:
                self._lost.add(channel)
            if channel not in self.wanted:
                self.wanted.add(channel)
                if self._ps is None:
                    self._wake.set()  # the reader connects and subscribes
                else:
                    self._pending[channel] = self._pending.get(channel, 0) + 1
                    with contextlib.suppress(*CONN_ERRORS):  # else the reader will
                        await self._subscribe(self._ps, channel)
            return ready

    async def unwant(self, channel: str) -> None:
        """Stop holding `channel` (no-op if not held)."""
        async with self._lock:
            if channel not in self.wanted:
                return
            self.wanted.discard(channel)
            self._lost.discard(channel)
            ready = self._ready.pop(channel, None)
            if ready is not None and not ready.done():
                ready.set_exception(ChannelMoved(channel))
                ready.exception()  # retrieved: nobody may be waiting
            if self._ps is not None:
                with contextlib.suppress(*CONN_ERRORS):
                    async with asyncio.timeout(self._op_timeout):
                        await self._unsubscribe(self._ps, channel)

    # -- the connection and its reader -------------------------------------------

    async def _connect(self) -> None:
        async with self._lock:
            ps = self._client.pubsub()
            try:
                async with asyncio.timeout(self._op_timeout):
                    await ps.connect()  # type: ignore[no-untyped-call]
                    self._pending = {}
                    channels = sorted(self.wanted)
                    if channels:
                        if self._sharded:  # one slot per SSUBSCRIBE
                            for channel in channels:
                                await self._subscribe(ps, channel)
                        else:
                            await self._subscribe(ps, *channels)
                        self._pending = dict.fromkeys(channels, 1)
            except BaseException:
                await ps.aclose()  # type: ignore[no-untyped-call, unused-ignore]  # redis-py < 8.2
                raise
            self._ps = ps

    async def _drop_connection(self) -> None:
        async with self._lock:
            ps, self._ps = self._ps, None
            if ps is not None:  # what was published meanwhile is lost for these channels
                self._lost |= self.wanted
            # New subscribers must wait for the re-subscription on the next connection.
            for channel, fut in list(self._ready.items()):
                if fut.done():
                    self._ready[channel] = asyncio.get_running_loop().create_future()
        if ps is not None:
            with contextlib.suppress(Exception):
                await ps.aclose()  # type: ignore[no-untyped-call, unused-ignore]  # redis-py < 8.2

    def _give_up(self, channel: str) -> None:
        """The server will not hold `channel` here (sharded: its slot moved)."""
        if channel not in self.wanted:
            return
        self.wanted.discard(channel)
        self._pending.pop(channel, None)
        self._lost.discard(channel)
        ready = self._ready.pop(channel, None)
        if ready is not None and not ready.done():
            ready.set_exception(ChannelMoved(channel))
            ready.exception()
        if self._moved is not None:
            self._moved(channel)

    def _on_message(self, msg: dict[str, Any]) -> None:
        kind, channel = msg.get("type"), msg.get("channel")
        if not isinstance(channel, str):
            return
        if kind == self._message_kind:
            if channel in self.wanted:
                self._deliver(channel, str(msg["data"]))
        elif kind == self._confirm_kind:
            left = self._pending.get(channel, 0) - 1
            if left > 0:
                self._pending[channel] = left
                return
            self._pending.pop(channel, None)
            ready = self._ready.get(channel)
            if ready is not None and not ready.done() and channel in self.wanted:
                ready.set_result(None)
            if channel in self._lost:  # back after a loss: the subscribers reload
                self._lost.discard(channel)
                self._back(channel)
        elif kind == "sunsubscribe" and self._sharded and channel in self.wanted:
            # Not asked for: the server dropped it (its slot now lives elsewhere).
            self._give_up(channel)

    async def _read_loop(self) -> None:
        """Owns the pub/sub connection: reads messages, pings when idle, and on any
        connection error reconnects (with backoff) and re-subscribes every channel
        this link holds."""
        loop = asyncio.get_running_loop()
        backoff = MIN_BACKOFF_S
        last_rx, ping_at = loop.time(), None
        while True:
            if self._ps is None:
                if not self.wanted:
                    self._wake.clear()
                    await self._wake.wait()
                    continue
                try:
                    await self._connect()
                except CONN_ERRORS as e:
                    # The first failure of an outage is a warning, the retries are not.
                    level = logging.WARNING if backoff == MIN_BACKOFF_S else logging.DEBUG
                    log.log(level, "redis pub/sub: connect failed (%r); retrying", e)
                    self.failing = True
                    if self._moved is not None:  # cluster: maybe the node is gone for good
                        self._moved("")
                    await asyncio.sleep(backoff)
                    backoff = min(backoff * 2, MAX_BACKOFF_S)
                    continue
                if backoff != MIN_BACKOFF_S:
                    log.info("redis pub/sub: connected again")
                self.failing = False
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
            except ResponseError as e:
                if self._moved is not None and isinstance(e, AskError):  # MOVED too
                    # A subscription sent to a node that no longer serves its slot:
                    # the connection is fine, only those channels go elsewhere.
                    log.info("redis pub/sub: MOVED %s; finding the new owner", e)
                    for channel in [c for c in self.wanted if key_slot(c.encode()) == e.slot_id]:
                        self._give_up(channel)
                    self._moved("")
                    continue
                log.exception("redis pub/sub: unexpected error; reconnecting")
                await self._drop_connection()
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, MAX_BACKOFF_S)
            except Exception:  # never let the reader die: start over on a new connection
                log.exception("redis pub/sub: unexpected error; reconnecting")
                await self._drop_connection()
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, MAX_BACKOFF_S)
