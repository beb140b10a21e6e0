"""One-time tickets on Redis (`Store.put_ticket`, `Store.take_ticket`; moving a seat,
R18.5): the string `{prefix}ticket:{key}` with a `PX` expiry, put with `SET NX`
and taken with a two-line script (`GET` then `DEL`, atomic; `GETDEL` would need
Redis 6.2). Each call touches one key, so a Redis Cluster runs them unchanged
(the key's own slot). A mixin of `RedisStore`: it uses the store's client,
`_guard` (connection errors as StoreUnavailable / OutcomeUnknown) and
`_ticket_prefix`."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

TAKE = "local v = redis.call('GET', KEYS[1]) if v then redis.call('DEL', KEYS[1]) end return v"


class RedisTickets:
    """`put_ticket` and `take_ticket` of a Redis store."""

    if TYPE_CHECKING:  # provided by RedisStore
        _r: Any
        _ticket_prefix: str

        def _guard(self, *, write: bool = False) -> contextlib.AbstractAsyncContextManager[None]:
            ...

    async def put_ticket(self, key: str, value: str, ttl_ms: int) -> bool:
        async with self._guard(write=True):
            done = await self._r.set(self._ticket_prefix + key, value, nx=True,
                                     px=max(1, int(ttl_ms)))
        return bool(done)

    async def take_ticket(self, key: str) -> str | None:
        async with self._guard(write=True):
            value = await self._r.eval(TAKE, 1, self._ticket_prefix + key)
        return None if value is None else str(value)
