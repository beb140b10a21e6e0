"""Presence that survives crashes (R17.3): every live connection holds a lease.

A socket that passed hello holds a lease in the store (`Lease(room, seat,
connection id)`), taken before the seat is marked connected and renewed by this
process every `renew_ms` while the socket lives. A socket that ends in order
drops its lease after marking the seat disconnected (sockets/endpoint.py). When a process dies
(SIGKILL, power loss) its leases simply stop being renewed: once one runs out,
the scheduler of whichever process claims it (`store.claim_expired_leases`,
once across processes) marks the seat disconnected, exactly as a closing socket
would (only if that connection is still the seat's newest), then drops the lease.

So a seat shows `connected: false` at most `lease_ms` (+ the scheduler's
check interval, + `CLAIM_MS` if a claimer dies too) after its last connection
ended: 15 s + 1 s at full time, well within the 30 s of R17.3. The lease is a
game duration, scaled by `CRISP_TIME_SCALE` under test hooks, but never below
`MIN_LEASE_MS`, so that a stalled process (a busy machine) does not lose a live
socket's lease: a renewal every `lease_ms / 5` can be late by 4/5 of the lease.

A graceful stop (SIGTERM) leaves presence alone and gives its sockets' leases
`RESTART_GRACE_MS` (real time: a process restart does not get faster with the
game clock), one store call for all, so that clients reconnecting to the
restarted server are never shown disconnected meanwhile; one that does not come
back is shown disconnected once the grace ends (15 s, R17.3).

A renewal that finds its lease gone (it ran out while this process was stalled
or cut from the store, and the seat was marked disconnected) takes the lease
again and marks the seat connected again (`Rooms.reclaim`), unless a newer
connection holds the seat.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from crisp.server.ops.logs import fields
from crisp.server.rooms.loops import StoreLoop
from crisp.server.rooms.serverclock import Clock
from crisp.server.rooms.watch_count import WATCHER_SEAT, WatchRefused, unwatch, watch
from crisp.server.wire.failures import RoomNotFound
from crisp.store import Lease, Store, StoreUnavailable

if TYPE_CHECKING:
    from crisp.server.rooms.service import Rooms

log = logging.getLogger("crisp.server.rooms.leases")

LEASE_MS = 15_000  # game ms (R17.3: disconnected within 30 s)
MIN_LEASE_MS = 5_000  # real ms: the shortest lease, whatever the time scale
CLAIM_MS = 3_000  # an expired lease claimed by a process that dies is retried after this
RENEW_BATCH = 500  # leases renewed per store call
STOP_TIMEOUT_S = 3.0
RESTART_GRACE_MS = 15_000  # real ms: the leases of sockets closed by a graceful stop
SLEEPER = "presence"  # its name on a manual clock (serverclock.py)


class Socket(Protocol):
    """What presence needs of a live socket (sockets/connection.py is one)."""

    lease: Lease
    room_code: str
    player_id: str
    id: str
    n: int | None

    @property
    def closing(self) -> bool: ...

    def numbered(self, n: int) -> None: ...


@dataclass(frozen=True)
class LeaseTimes:
    """How long a lease lasts, how often it is renewed, how often expiries are checked."""

    lease_ms: int
    renew_ms: int
    check_ms: int

    @classmethod
    def for_scale(cls, time_scale: float) -> LeaseTimes:
        """The lease of R17.3 at this time scale (see the module docstring)."""
        lease = max(MIN_LEASE_MS, round(LEASE_MS * time_scale))
        return cls(lease_ms=lease, renew_ms=lease // 5, check_ms=max(50, min(1000, lease // 8)))


class Presence:
    """The leases of this process's live sockets, renewed in one batch per interval."""

    def __init__(self, store: Store, rooms: Rooms, times: LeaseTimes, clock: Clock) -> None:
        self.store = store
        self.rooms = rooms
        self.times = times
        self.clock = clock
        self._held: dict[Lease, Socket] = {}
        self._parting: list[Lease] = []  # sockets closed by a graceful stop
        self.loop = StoreLoop(SLEEPER, clock, self._step, log)

    # ---- one socket ----

    async def hold(self, conn: Socket) -> None:
        """Take the socket's lease (before its seat is marked connected)."""
        self._held[conn.lease] = conn
        await self.store.put_leases([conn.lease], self.clock.now_ms() + self.times.lease_ms)

    async def release(self, conn: Socket) -> None:
        """The socket ended in order (its seat is already marked): drop its lease."""
        self._held.pop(conn.lease, None)
        # On failure it runs out by itself; its expiry changes nothing (not the newest).
        with contextlib.suppress(StoreUnavailable):
            await self.store.drop_lease(conn.lease)

    def forget(self, conn: Socket) -> None:
        """Stop renewing the lease but leave it to run out (the server is stopping:
        the client is expected back elsewhere; if not, the seat goes disconnected).
        `stop` gives these leases `RESTART_GRACE_MS` in one store call."""
        self._held.pop(conn.lease, None)
        self._parting.append(conn.lease)

    # ---- the renewal loop ----

    def start(self) -> None:
        self.loop.start()

    async def stop(self) -> None:
        """Stop renewing; extend the leases of the sockets a graceful stop closed."""
        await self.loop.stop()
        parting, self._parting = self._parting, []
        if parting:
            until = self.clock.now_ms() + max(self.times.lease_ms, RESTART_GRACE_MS)
            try:
                await asyncio.wait_for(self.store.put_leases(parting, until), STOP_TIMEOUT_S)
            except Exception as exc:  # they run out at their own time instead
                log.warning("presence: extending leases at shutdown failed: %r", exc)

    async def _step(self) -> float:
        await self.renew()
        return self.times.renew_ms

    async def renew(self) -> None:
        """Renew every held lease; take back the seats of leases that were lost."""
        leases = list(self._held)
        until = self.clock.now_ms() + self.times.lease_ms
        lost: list[Lease] = []
        for i in range(0, len(leases), RENEW_BATCH):
            batch = leases[i : i + RENEW_BATCH]
            held = await self.store.renew_leases(batch, until)
            lost += [lease for lease, ok in zip(batch, held, strict=True) if not ok]
        for lease in lost:
            conn = self._held.get(lease)
            if conn is not None and not conn.closing:
                await self._reclaim(conn)

    async def _reclaim(self, conn: Socket) -> None:
        if conn.player_id == WATCHER_SEAT:  # R18.1: counted among the watchers again
            await self.store.put_leases([conn.lease], self.clock.now_ms() + self.times.lease_ms)
            with contextlib.suppress(WatchRefused, RoomNotFound):
                await watch(self.rooms, conn.room_code, conn.id)
            return
        log.info(
            "room %s: %s lost its presence lease; taking it back", conn.room_code,
            conn.player_id, extra=fields(conn.room_code, "lease_lost", player=conn.player_id),
        )
        await self.store.put_leases([conn.lease], self.clock.now_ms() + self.times.lease_ms)
        number = await self.rooms.reclaim(conn.room_code, conn.player_id, conn.id)
        if number is not None:
            conn.numbered(number)


async def expire_leases(
    store: Store, rooms: Rooms, now: int, lease_ms: int, limit: int = 100
) -> int:
    """Claim the leases that ran out by `now` (once across processes) and mark each
    seat disconnected if that connection is still its newest (R17.3), or take a
    watcher's connection off the room's watchers (R18.1); returns how many.
    The connection's last sign of life was its last renewal, at the latest `lease_ms`
    before `now`: its R17.2 away clock counts from then, not from now."""
    leases = await store.claim_expired_leases(now, CLAIM_MS, limit)
    for lease in leases:
        log.info(
            "room %s: %s's connection %s stopped renewing its lease", lease.code, lease.seat,
            lease.conn, extra=fields(lease.code, "lease_expired", player=lease.seat),
        )
        try:
            if lease.seat == WATCHER_SEAT:  # R18.1: a watcher no longer counted
                await unwatch(rooms, lease.code, lease.conn)
            else:
                await rooms.disconnect(lease.code, lease.seat, lease.conn, since=now - lease_ms)
            await store.drop_lease(lease)
        except Exception:  # the claim runs out and another try follows
            log.exception("room %s: expiring the lease of %s failed", lease.code, lease.seat)
    return len(leases)
