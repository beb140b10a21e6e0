"""A watcher's socket (R18.1, protocol.md v1.2 "Watching"): `hello` with
`"watch": true` and no token, then updates like a player's, of nobody's seat.

The endpoint checks the Origin, the hello and that the room exists (an unknown
room spends one of the client's look-ups, like a seat's hello), then hands the
socket here. A watcher:
- holds a presence lease (`Lease(code, WATCHER_SEAT, connection id)`) and is
  counted in the room document (rooms/watch_count.py): refused with 4403 when the
  host turned watching off, 4413 when the room has 50 watchers;
- gets its updates from the same fan-out as the seats (hub.py), projected for
  nobody's seat (`Connection(watcher=True)`: `you` null, `watching` true, nothing
  held, nothing legal, no look, no card of a stock draw; engine.view_for, redact);
- may send nothing but what the edge lets through: every message counts against
  the client's rates (a bucket of its own, and the client address's), a second
  `hello` is `bad_message`, anything else `not_a_player`, and nothing changes;
- is closed with 4403 when the host turns watching off (hub.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from pydantic import ValidationError
from starlette.websockets import WebSocket

from crisp.engine import ErrorCode
from crisp.server.context import ServerContext
from crisp.server.edge.guards import loads_bounded
from crisp.server.ops.logs import fields
from crisp.server.rooms.watch_count import WATCHER_SEAT, WatchRefused, unwatch, watch
from crisp.server.sockets import lag
from crisp.server.sockets.connection import Connection
from crisp.server.sockets.reading import read_messages
from crisp.server.wire.client import Hello, parse_client
from crisp.server.wire.failures import RoomBusy, RoomNotFound
from crisp.server.wire.vocabulary import CloseCode, EndReason, Refusal, ServerErrorCode
from crisp.store import StoreUnavailable

log = logging.getLogger("crisp.server.sockets.watcher_socket")

UNWATCH_S = 2.0  # at most this long to uncount a watcher whose socket ended (real time)


async def serve_watcher(
    ws: WebSocket, ctx: ServerContext, client: str, room_code: str
) -> tuple[str, str] | None:
    """Serve one watcher of `room_code` until its socket ends. Always None: a watcher
    holds no seat, and the endpoint has nothing left to do (sockets/endpoint.py)."""
    conn = Connection(ws, room_code, WATCHER_SEAT, ctx.hooks, None, ctx.clock, watcher=True)
    conn.start_writer()
    try:
        if await _take_place(conn, ctx):
            try:
                await _serve(conn, ctx, client)
            except Exception:
                log.exception("room %s: watcher socket %s failed", room_code, conn.id)
                conn.close(CloseCode.INTERNAL, "internal error", EndReason.INTERNAL)
    finally:
        await _end(conn, ctx)
    return None


async def _take_place(conn: Connection, ctx: ServerContext) -> bool:
    """Subscribe, hold the lease, be counted, queue the full view; False if the
    socket was closed instead."""
    try:
        await ctx.hub.attach(conn)
        await ctx.presence.hold(conn)  # the lease first: a crash now still uncounts it
        doc = await watch(ctx.rooms, conn.room_code, conn.id)
    except WatchRefused as refused:
        ctx.hooks.ws_refused(Refusal.WATCHERS_FULL if refused.full else Refusal.WATCHING_OFF)
        if refused.full:
            conn.close(CloseCode.WATCHERS_FULL, "this room has its 50 watchers",
                       EndReason.WATCHING_OFF)
        else:
            conn.close(CloseCode.KICKED, "watching is off in this room", EndReason.WATCHING_OFF)
        return False
    except RoomNotFound:
        conn.close(CloseCode.BAD_HELLO, "unknown room", EndReason.BAD_HELLO)
        return False
    except (StoreUnavailable, RoomBusy):
        conn.close(CloseCode.TRY_LATER, "try again later", EndReason.STORE_UNAVAILABLE)
        return False
    conn.snapshot(doc.state, doc.locked, len(doc.watchers))
    lag.watch(conn, ctx.hub.refresh)  # R18.4: every connection's delay
    ctx.hooks.ws_opened(conn.room_code, WATCHER_SEAT)
    log.info(
        "room %s: a watcher connected (socket %s)", conn.room_code, conn.id,
        extra=fields(conn.room_code, "ws_opened", player=WATCHER_SEAT, socket=conn.id),
    )
    return True


async def _serve(conn: Connection, ctx: ServerContext, client: str) -> None:
    """Read what the watcher sends and refuse it (R18.1): it may not act. The loop is
    a seat's (reading.py); the rate bucket is the watcher's own, the client's shared."""

    async def handle(text: str, received: float) -> None:
        _answer(conn, ctx, text)

    def error(error_code: str, message: str) -> None:
        _error(conn, ctx, error_code, message)

    await read_messages(conn, ctx, client, f"{WATCHER_SEAT}:{conn.id}", handle, error)


def _answer(conn: Connection, ctx: ServerContext, text: str | None) -> None:
    """The answer to a watcher's message: `bad_message` for what is not a message or
    is a second hello, `not_a_player` for any other (nothing changes)."""
    ref = None
    try:
        data = loads_bounded(text) if text is not None else None
        if isinstance(data, dict) and isinstance(data.get("id"), str):
            ref = data["id"] if len(data["id"]) <= 128 else None
        msg = parse_client(data)
    except (ValueError, ValidationError):
        _error(conn, ctx, ErrorCode.BAD_MESSAGE, "not a valid message", ref)
        return
    if isinstance(msg, Hello):
        _error(conn, ctx, ErrorCode.BAD_MESSAGE, "hello was already received", ref)
        return
    _error(conn, ctx, ServerErrorCode.NOT_A_PLAYER,
           "a watcher cannot act; join the room to play", ref)


def _error(conn: Connection, ctx: ServerContext, error_code: str, message: str,
           ref: str | None = None) -> None:
    ctx.hooks.error_sent(error_code)
    conn.send_error(error_code, message, ref)


async def _end(conn: Connection, ctx: ServerContext) -> None:
    """Wait for the writer, leave the hub, stop being counted, drop the lease."""
    conn.lag.stop()
    if conn.closing:
        await conn.wait_closed(timeout=2.0)
    else:
        conn.stop()
    await ctx.hub.detach(conn)
    ctx.hooks.ws_closed(conn.room_code, WATCHER_SEAT, conn.final_close_code)
    # Uncounted now, at a graceful stop too: a watcher has no presence to keep (a
    # seat's lease gets a restart grace, leases.py), and when it comes back it is a
    # new connection, counted again: the count shows only the watchers there now.
    with contextlib.suppress(Exception):
        await asyncio.wait_for(unwatch(ctx.rooms, conn.room_code, conn.id), UNWATCH_S)
    await ctx.presence.release(conn)
    log.info(
        "room %s: a watcher's socket closed (code %s)", conn.room_code, conn.final_close_code,
        extra=fields(conn.room_code, "ws_closed", player=WATCHER_SEAT, socket=conn.id,
                     close_code=conn.final_close_code),
    )
