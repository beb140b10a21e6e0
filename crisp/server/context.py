"""The per-process server context shared by HTTP handlers and sockets: how it is
built when the app starts and taken down when it stops."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass

from crisp.store import Store, create_store

from .hooks import ServerHooks
from .hub import Hub
from .logs import fields
from .observed import ObservedStore
from .presence import LeaseTimes, Presence
from .protocol import CloseCode
from .rooms import Rooms
from .scheduler import Scheduler
from .settings import Settings

log = logging.getLogger("crisp.server")

SHUTDOWN_STEP_S = 2.0  # bound of each shutdown step (unsubscribing, closing the store)


@dataclass
class ServerContext:
    """Everything a request handler needs; stored as `app.state.ctx` during the lifespan."""

    settings: Settings
    hooks: ServerHooks
    store: Store
    rooms: Rooms
    hub: Hub
    scheduler: Scheduler
    presence: Presence


async def start_context(settings: Settings, hooks: ServerHooks) -> ServerContext:
    """Open the store (observed by `hooks`), and start the rooms service, the hub and
    the deadline scheduler on it."""
    inner = create_store(settings.redis_url, idle_ttl_s=settings.room_idle_ttl_s)
    store = ObservedStore(inner, hooks)
    await store.start()
    times = LeaseTimes.for_scale(settings.effective_time_scale)
    scheduler = Scheduler(store, lease_check_ms=times.check_ms)
    rooms = Rooms(
        store,
        time_scale=settings.effective_time_scale,
        hooks=hooks,
        on_deadline=scheduler.notify,
    )
    ctx = ServerContext(
        settings=settings,
        hooks=hooks,
        store=store,
        rooms=rooms,
        hub=Hub(store, hooks),
        scheduler=scheduler,
        presence=Presence(store, rooms, times),
    )
    scheduler.start(rooms)
    ctx.presence.start()
    return ctx


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
    await ctx.presence.stop()
    await ctx.scheduler.stop()
    for step, what in ((ctx.hub.unsubscribe_all, "unsubscribing"), (ctx.store.close, "store")):
        try:
            await asyncio.wait_for(step(), SHUTDOWN_STEP_S)
        except Exception as exc:  # never let shutdown hang or fail
            log.warning("shutdown: %s failed: %r", what, exc)
