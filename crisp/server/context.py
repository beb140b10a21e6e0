"""The per-process server context shared by HTTP handlers and sockets: how it is
built when the app starts and taken down when it stops."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass

from crisp.server.edge.clients import TrustedProxies
from crisp.server.edge.limits import Limits, RoomCap
from crisp.server.edge.ratelimit import SocketLimits
from crisp.server.edge.transport import Guard, connection_cap
from crisp.server.ops import faults, throttle
from crisp.server.ops.hooks import ServerHooks
from crisp.server.ops.logs import fields
from crisp.server.ops.observed import observed_store
from crisp.server.ops.settings import Settings
from crisp.server.ops.throttle import LogThrottle
from crisp.server.rooms.changes import Lifetimes, RoomEvents
from crisp.server.rooms.doccache import DocCache
from crisp.server.rooms.leases import LeaseTimes, Presence
from crisp.server.rooms.loops import Wakeup
from crisp.server.rooms.scheduler import POLL_MS, Scheduler
from crisp.server.rooms.serverclock import Clock, ManualClock
from crisp.server.rooms.service import Rooms
from crisp.server.sockets.hub import Hub
from crisp.server.wire.vocabulary import CloseCode
from crisp.store import Store, create_store

log = logging.getLogger("crisp.server")

SHUTDOWN_STEP_S = 2.0  # bound of each shutdown step (unsubscribing, closing the store)
MANUAL_POLL_MS = 1000  # the scheduler's poll on a manual clock (test hooks)


@dataclass
class ServerContext:
    """Everything a request handler needs; stored as `app.state.ctx` during the lifespan."""

    settings: Settings
    hooks: ServerHooks
    clock: Clock  # the one source of game time (serverclock.py)
    store: Store
    rooms: Rooms
    hub: Hub
    scheduler: Scheduler
    presence: Presence
    limits: Limits  # the per-client budgets in the store
    room_cap: RoomCap  # CRISP_MAX_ROOMS
    sockets: SocketLimits  # message buckets per seat and client, sockets per client
    guard: Guard  # TCP connections: caps and header deadline (transport.py)
    client_errors: LogThrottle  # repeated client errors: one log line per interval
    housekeeping: asyncio.Task[None] | None = None


async def start_context(settings: Settings, hooks: ServerHooks) -> ServerContext:
    """Open the store (observed by `hooks`), and start the rooms service, the hub and
    the deadline scheduler on it."""
    inner = create_store(settings.redis_url, idle_ttl_s=settings.room_idle_ttl_s)
    store = observed_store(inner, hooks)
    await store.start()
    faults.arm(settings.test_fault if settings.test_hooks else None)
    clock = ManualClock() if settings.clock == "manual" else Clock()
    times = LeaseTimes.for_scale(settings.effective_time_scale)
    docs = DocCache()  # this process's copies of room documents (rooms and hub)
    hub = Hub(store, hooks, docs)
    wakeup = Wakeup()  # the scheduler's, for deadlines this process saves
    rooms = Rooms(
        store,
        clock=clock,
        time_scale=settings.effective_time_scale,
        hooks=hooks,
        docs=docs,
        events=RoomEvents(changed=hub.local_change, deadline=wakeup.at),
        lifetimes=Lifetimes(unopened_ms=settings.unopened_room_ttl_s * 1000,
                            empty_lobby_ms=settings.empty_lobby_ttl_s * 1000),
    )
    scheduler = Scheduler(
        store, clock, rooms, wakeup, lease_check_ms=times.check_ms,
        lease_life_ms=times.lease_ms,
        # on a manual clock this process's own deadlines wake it (`wakeup`), and the
        # poll, for other processes' deadlines, need not step the clock 50 ms at a time
        poll_ms=MANUAL_POLL_MS if clock.manual else POLL_MS,
    )
    ctx = ServerContext(
        settings=settings,
        hooks=hooks,
        clock=clock,
        store=store,
        rooms=rooms,
        hub=hub,
        scheduler=scheduler,
        presence=Presence(store, rooms, times, clock),
        limits=Limits(store, settings, hooks),
        room_cap=RoomCap(store, settings.max_rooms, hooks),
        sockets=SocketLimits(
            rate=settings.rate_per_s, burst=settings.rate_burst, strikes=settings.rate_strikes,
            client_rate=settings.client_rate_per_s,
            max_sockets=settings.max_connections_per_client,
        ),
        guard=Guard(
            max_total=connection_cap(settings.max_connections),
            max_per_client=settings.max_connections_per_client,
            header_timeout_s=settings.header_timeout_s,
            trusted=TrustedProxies(settings.trusted_proxies),
            hooks=hooks,
            log_interval_s=settings.log_interval_s,
            connect_rate=settings.connect_rate_per_s,
            send_buffer=settings.socket_sndbuf_bytes,
        ),
        client_errors=LogThrottle(settings.log_interval_s),
    )
    throttle.CEILING.configure(settings.log_ceiling_per_s)  # over all clients (issue 39)
    scheduler.start()
    ctx.presence.start()
    ctx.housekeeping = asyncio.create_task(_housekeeping(ctx), name="crisp-housekeeping")
    return ctx


async def _housekeeping(ctx: ServerContext) -> None:
    """Every log interval: log how many client errors the throttle left out (one line
    per seat and code, or address and reason), and drop full buckets."""
    while True:
        await asyncio.sleep(ctx.settings.log_interval_s)
        ctx.sockets.prune()
        for key, count in ctx.client_errors.drain():
            if not throttle.CEILING.take(stands_for=count):  # summaries too stay under it
                continue
            what = " ".join(str(part) for part in key) if isinstance(key, tuple) else str(key)
            log.warning(
                "repeated client errors: %s, %d more in the last %g s",
                what, count, ctx.settings.log_interval_s,
                extra=fields(event="client_errors", key=what, count=count),
            )
        left_out = throttle.CEILING.drain()
        if left_out:
            log.warning(
                "log ceiling: %d lines about clients left out in the last %g s (at most %g "
                "a second over all clients)", left_out, ctx.settings.log_interval_s,
                throttle.CEILING.per_s,
                extra=fields(event="log_ceiling", count=left_out),
            )


async def stop_context(ctx: ServerContext) -> None:
    """Close what is left of the sockets (1012), stop the scheduler, drop the
    subscriptions and close the store; each step bounded, none can fail shutdown."""
    # uvicorn has already closed every socket with 1012 and waited for their
    # handlers (timeout_graceful_shutdown); close any left the same way.
    log.info("crisp server stopping", extra=fields(event="shutdown"))
    conns = ctx.hub.close_all(CloseCode.RESTART, "server restarting")
    if conns:
        await asyncio.gather(*(c.wait_closed(1.0) for c in conns))
        await asyncio.sleep(0.05)  # let their handlers finish
    if ctx.housekeeping is not None:
        ctx.housekeeping.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await ctx.housekeeping
    await ctx.presence.stop()
    await ctx.scheduler.stop()
    for step, what in ((ctx.hub.unsubscribe_all, "unsubscribing"), (ctx.store.close, "store")):
        try:
            await asyncio.wait_for(step(), SHUTDOWN_STEP_S)
        except Exception as exc:  # never let shutdown hang or fail
            log.warning("shutdown: %s failed: %r", what, exc)
