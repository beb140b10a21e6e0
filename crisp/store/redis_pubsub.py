"""The subscriptions of the Redis store: this process's local subscribers of each
room (`Fanout`) and which pub/sub link (`redis_link.py`) holds each room's channel.

On one Redis there is one link (`SUBSCRIBE`); on a Redis Cluster
(`redis_cluster.py`) there is one link per master, using sharded pub/sub
(`SSUBSCRIBE`), and a channel whose slot moved is subscribed again on its new
owner. `subscribe` returns once Redis confirmed the subscription, so no message
published after it returns can be missed. Publishing goes through the document
connection (`RedisStore.publish`, and `save` inside its Lua script).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

from redis.asyncio import Redis

from crisp.store.base import GapHandler, Handler, StoreUnavailable, Unsubscribe
from crisp.store.fanout import Fanout, Subscription
from crisp.store.redis_link import ChannelMoved, PubSubLink


class RedisPubSub:
    """Subscriptions to room channels for this process, on one Redis server: one link
    (`channel_of(code)` names a room's channel). Subclasses route channels to
    several links (`link_for`)."""

    def __init__(
        self,
        client: Redis | None,
        channel_of: Callable[[str], str],
        *,
        op_timeout_s: float,
        subscribe_timeout_s: float,
        ping_s: float,
    ) -> None:
        self._channel_of = channel_of
        self._op_timeout = op_timeout_s
        self._sub_timeout = subscribe_timeout_s
        self._ping_s = ping_s
        self._fanout = Fanout()
        self._codes: dict[str, str] = {}  # channel -> room code, while held
        self._holder: dict[str, PubSubLink] = {}  # channel -> the link that holds it
        self._lock = asyncio.Lock()  # subscribing and unsubscribing, one at a time
        self._single = None if client is None else self.new_link(client, sharded=False)

    def new_link(self, client: Redis, *, sharded: bool) -> PubSubLink:
        """A link on `client` that delivers to this process's subscribers."""
        return PubSubLink(
            client, sharded=sharded, op_timeout_s=self._op_timeout, ping_s=self._ping_s,
            deliver=self._deliver, back=self._back,
            moved=self.moved if sharded else None,
        )  # fmt: skip

    def has_subscribers(self, code: str) -> bool:
        """True while the room has a local subscriber."""
        return self._fanout.has(code)

    # -- routing (overridden for a cluster) --------------------------------------

    async def link_for(self, channel: str) -> PubSubLink:
        """The link that must hold `channel`."""
        assert self._single is not None
        return self._single

    def links(self) -> list[PubSubLink]:
        """Every link made so far."""
        return [] if self._single is None else [self._single]

    def moved(self, channel: str) -> None:
        """A link gave `channel` up ("" = it may be on the wrong node): subclasses
        subscribe it again where it now lives."""

    async def after_move(self) -> None:
        """Before asking again where a channel that moved lives."""
        await asyncio.sleep(0.01)

    # -- lifecycle ---------------------------------------------------------------

    async def start(self) -> None:
        """Nothing to do: links start when a channel is first wanted. Idempotent."""

    async def close(self) -> None:
        """Stop every link and drop every local subscriber."""
        for link in self.links():
            await link.close()
        await self._fanout.close()
        self._codes.clear()
        self._holder.clear()

    # -- callbacks from the links -------------------------------------------------

    def _deliver(self, channel: str, data: str) -> None:
        code = self._codes.get(channel)
        if code is not None:
            self._fanout.deliver(code, data)

    def _back(self, channel: str) -> None:
        code = self._codes.get(channel)
        if code is not None:
            self._fanout.lost(code)

    # -- subscribing -------------------------------------------------------------

    async def subscribe(
        self, code: str, handler: Handler, on_gap: GapHandler | None = None
    ) -> Unsubscribe:
        """See `Store.subscribe`."""
        channel = self._channel_of(code)
        sub, _ = self._fanout.add(code, handler, on_gap)
        try:
            async with asyncio.timeout(self._sub_timeout):
                while True:
                    async with self._lock:
                        held = self._holder.get(channel)
                        if held is not None and channel in held.wanted:
                            link = held
                        else:
                            link = await self.link_for(channel)
                        self._codes[channel] = code
                        self._holder[channel] = link
                        ready = await link.want(channel)
                    # Wait for Redis's confirmation: from then on no message can be missed.
                    with contextlib.suppress(ChannelMoved):
                        await asyncio.shield(ready)
                        break
                    await self.after_move()  # it moved: ask again where it lives
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
        channel = self._channel_of(sub.code)
        async with self._lock:
            if self._fanout.has(sub.code):
                return
            self._codes.pop(channel, None)
            link = self._holder.pop(channel, None)
            if link is not None:
                await link.unwant(channel)
