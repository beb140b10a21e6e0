"""Per-client budgets kept in the store (`Store.spend`), so that they hold across
every server process on one Redis (docs/deploy.md, "Limits").

- `rooms`: rooms one client may create (`CRISP_LIMIT_ROOMS`);
- `joins`: joins of existing rooms (`CRISP_LIMIT_JOINS`);
- `lookups`: look-ups of room codes that do not exist, by `GET /api/rooms/{code}`,
  by a join, or by a websocket hello (`CRISP_LIMIT_LOOKUPS`). A look-up spends a
  unit before it looks and gets it back when the room exists, so a guessing
  client cannot have more look-ups in flight than its budget, and a client whose
  budget is spent is refused every look-up, found or not: the answers carry no
  information once it guesses too fast.
- `hello:{room}:{player}`: the hellos of one seat (`CRISP_LIMIT_HELLOS`), always
  on; a seat closed for flooding (4429) again and again is pushed into debt
  (`flooded`), so that its next hellos wait longer and longer.

A spent budget raises `RateLimited` (HTTP 429 `rate_limited` with `Retry-After`;
on a socket, close 4429). `CRISP_HTTP_LIMITS=off` with test hooks on turns the
first three off (protocol.md v1.1, "Test hooks").
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator
from enum import StrEnum

from crisp.server.edge.clients import wider_key
from crisp.server.ops.hooks import ServerHooks
from crisp.server.ops.settings import Budget, Settings
from crisp.server.wire.failures import RateLimited, RoomNotFound, TooManyRooms
from crisp.store import Store

FLOOD_MEMORY_S = 300.0  # a flood (4429) is remembered this long: the next one is penalised
SITE_FACTOR = 16  # an IPv6 /48's budget, in /64 budgets (clients.wider_key)
COUNT_EVERY_S = 1.0  # RoomCap reads the store's room count at most this often
FULL_RETRY_S = 60.0  # Retry-After of a creation refused at the cap


class Kind(StrEnum):
    """The budgets of one client (their names in keys, metrics and logs)."""

    ROOMS = "rooms"
    JOINS = "joins"
    LOOKUPS = "lookups"
    REPLAYS = "replays"  # reads of a round's replay (R18.2), found or not


def _keys(kind: Kind, client: str) -> list[tuple[str, int]]:
    """The budget keys one request of `client` spends, each with its size factor."""
    keys = [(f"{kind}:{client}", 1)]
    wider = wider_key(client)
    if wider is not None:
        keys.append((f"{kind}:{wider}", SITE_FACTOR))
    return keys


class Limits:
    """The budgets of `settings` on `store`, reporting refusals to `hooks`."""

    def __init__(self, store: Store, settings: Settings, hooks: ServerHooks) -> None:
        self.store = store
        self.hooks = hooks
        on = settings.effective_http_limits
        self.budgets: dict[Kind, Budget | None] = {
            Kind.ROOMS: settings.limit_rooms if on else None,
            Kind.JOINS: settings.limit_joins if on else None,
            Kind.LOOKUPS: settings.limit_lookups if on else None,
            Kind.REPLAYS: settings.limit_replays if on else None,
        }
        self.hellos = settings.limit_hellos

    async def spend(self, kind: Kind, client: str) -> None:
        """Spend one unit of `client`'s budget `kind` (and, for an IPv6 client, of its
        /48's budget, `SITE_FACTOR` times as large), or raise RateLimited."""
        budget = self.budgets[kind]
        if budget is None:
            return
        for key, factor in _keys(kind, client):
            wait = await self.store.spend(
                key, per_s=budget.per_s * factor, burst=budget.count * factor
            )
            if wait > 0:
                if factor > 1:  # the narrower budget was spent: give that unit back
                    await self.store.spend(f"{kind}:{client}", -1, per_s=budget.per_s,
                                           burst=budget.count)
                self.hooks.limited(str(kind))
                raise RateLimited(str(kind), wait)

    async def refund(self, kind: Kind, client: str) -> None:
        """Give back a unit spent for a request that did not use it."""
        budget = self.budgets[kind]
        if budget is not None:
            for key, factor in _keys(kind, client):
                await self.store.spend(
                    key, -1, per_s=budget.per_s * factor, burst=budget.count * factor
                )

    @contextlib.asynccontextmanager
    async def lookup(self, client: str) -> AsyncIterator[None]:
        """Around the look-up of a room code: spends a `lookups` unit first (or raises
        RateLimited), and gives it back unless the block raised RoomNotFound."""
        await self.spend(Kind.LOOKUPS, client)
        found = True
        try:
            yield
        except RoomNotFound:
            found = False
            raise
        finally:
            if found:
                await self.refund(Kind.LOOKUPS, client)

    @contextlib.asynccontextmanager
    async def charged(self, kind: Kind, client: str) -> AsyncIterator[None]:
        """Around a join or a room creation: spends a unit of `kind` first (or raises
        RateLimited), and gives it back if the room turned out not to exist (then
        it was a look-up, charged as one)."""
        await self.spend(kind, client)
        try:
            yield
        except RoomNotFound:
            await self.refund(kind, client)
            raise

    # ---- the hellos of one seat ----

    async def hello(self, room_code: str, player_id: str) -> None:
        """A seat says hello: spend one of its hellos, or raise RateLimited."""
        budget = self.hellos
        if budget is None:
            return
        wait = await self.store.spend(
            _seat_key(room_code, player_id), per_s=budget.per_s, burst=budget.count
        )
        if wait > 0:
            self.hooks.limited("hellos")
            raise RateLimited("hellos", wait)

    async def flooded(self, room_code: str, player_id: str) -> None:
        """The seat's socket was closed for flooding (4429). The first time in
        `FLOOD_MEMORY_S` costs nothing more (it may come back at once); each further
        flood makes the seat owe a whole bucket of hellos, so its next hello waits,
        about the bucket's `seconds` longer per flood (with the default 10/1m: 6 s,
        then a minute more for each)."""
        budget = self.hellos
        if budget is None:
            return
        key = _seat_key(room_code, player_id)
        floods = f"flood:{room_code}:{player_id}"
        if await self.store.spend(floods, per_s=1 / FLOOD_MEMORY_S, burst=1) == 0.0:
            return  # the first flood in a while
        await self.store.spend(floods, per_s=1 / FLOOD_MEMORY_S, burst=1, force=True)
        await self.store.spend(
            key, budget.count, per_s=budget.per_s, burst=budget.count, force=True
        )


def _seat_key(room_code: str, player_id: str) -> str:
    return f"hello:{room_code}:{player_id}"


class RoomCap:
    """At most `max_rooms` rooms in the store, all processes together (`CRISP_MAX_ROOMS`;
    0: no cap). The count is read from the store at most once per `COUNT_EVERY_S` per
    process, so a flood of creations costs no store call each; over the cap a
    creation is refused with `TooManyRooms` (HTTP 503) and counted (`rooms_total`)."""

    def __init__(self, store: Store, max_rooms: int, hooks: ServerHooks) -> None:
        self.store = store
        self.max_rooms = max_rooms
        self.hooks = hooks
        self._count = 0
        self._read_at = -COUNT_EVERY_S

    async def check(self) -> None:
        if not self.max_rooms:
            return
        now = time.monotonic()
        if now - self._read_at >= COUNT_EVERY_S:
            self._count = await self.store.room_count()
            self._read_at = now
        if self._count >= self.max_rooms:
            self.hooks.limited("rooms_total")
            raise TooManyRooms(FULL_RETRY_S)
        self._count += 1  # this one, until the next reading
