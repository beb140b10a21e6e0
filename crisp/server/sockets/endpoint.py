"""The websocket endpoint `/ws/{code}` (protocol.md "WebSocket").

Order of business, one step each: `_hello` (Origin check before accepting;
`hello` within `hello_timeout_s` with a valid token, else close 4401),
`_take_seat` (the seat's newest connection is recorded and the seat marked
connected through the engine; the first update carries the full view and no
events), `_serve` (each client message is size-checked, rate-limited, validated
by the protocol models and applied through the rooms service) and `_end`.
Nothing a client sends can crash the connection or the room.

When the server stops, uvicorn closes every socket with 1012 (service restart;
clients reconnect at once) and the handler leaves the seat's presence as it is:
the client is expected back within seconds, and marking it disconnected meanwhile
could end a peek phase early (R16.2) for a restart alone.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from pydantic import ValidationError
from starlette.responses import JSONResponse
from starlette.websockets import WebSocket

from crisp.engine import ErrorCode
from crisp.server.context import ServerContext
from crisp.server.edge.clients import client_of
from crisp.server.edge.guards import loads_bounded
from crisp.server.edge.origin import origin_allowed
from crisp.server.ops.logs import fields
from crisp.server.rooms.codes import normalize_code
from crisp.server.rooms.look_ledger import LookLedger
from crisp.server.sockets import lag
from crisp.server.sockets.connection import Connection
from crisp.server.sockets.hello import WATCHER_SEAT, hello_token, seat_of, serve_watcher
from crisp.server.sockets.reading import read_messages
from crisp.server.wire.client import Hello, Lock, parse_client
from crisp.server.wire.failures import (
    SOCKET_INTERNAL,
    RateLimited,
    RoomBusy,
    RoomNotFound,
    SeatGone,
    describe_validation,
    error_body,
    failure_of,
)
from crisp.server.wire.table_messages import (
    TABLE_MESSAGE,
    is_room_message,
    table_message,
    type_of,
)
from crisp.server.wire.vocabulary import CloseCode, EndReason, MessageType, Refusal, ServerErrorCode
from crisp.store import OutcomeUnknown, StoreUnavailable

log = logging.getLogger("crisp.server.sockets.endpoint")

async def websocket_endpoint(ws: WebSocket, code: str) -> None:
    """Serve one client socket for the room whose code is in the path."""
    ctx: ServerContext = ws.app.state.ctx
    client = client_of(ws.scope)
    if not ctx.sockets.open(client):
        await _refuse_handshake(ws, ctx, client)
        return
    try:
        await _seat(ws, ctx, client, normalize_code(code))
    finally:
        ctx.sockets.close(client)


async def _seat(ws: WebSocket, ctx: ServerContext, client: str, room_code: str | None) -> None:
    seat = await _hello(ws, ctx, client, room_code)
    if room_code is None or seat is None:
        return
    player_id, token = seat
    conn = Connection(
        ws, room_code, player_id, ctx.hooks, LookLedger(ctx.store, room_code, ctx.clock), ctx.clock,
        on_looks_unsent=ctx.hub.refresh,
    )
    conn.start_writer()
    try:
        if await _take_seat(conn, ctx, token):
            try:
                await _serve(conn, ctx, client)
            except Exception:
                log.exception("room %s: socket of %s failed", room_code, player_id)
                conn.close(CloseCode.INTERNAL, "internal error", EndReason.INTERNAL)
    finally:
        await _end(conn, ctx)


async def _refuse_handshake(ws: WebSocket, ctx: ServerContext, client: str) -> None:
    """A client over its cap of websockets: HTTP 429 instead of the upgrade."""
    _refuse(ctx, None, Refusal.TOO_MANY_SOCKETS, client)
    ctx.hooks.limited("connections")
    if "websocket.http.response" in ws.scope.get("extensions", {}):
        body = error_body(ServerErrorCode.RATE_LIMITED, "too many connections from this address")
        await ws.send_denial_response(
            JSONResponse(body, status_code=429, headers={"Retry-After": "10"})
        )
    else:
        await ws.close(CloseCode.POLICY)


# ---- hello ----


def _refuse(
    ctx: ServerContext, room_code: str | None, reason: Refusal, client: str
) -> None:
    """Count a refused socket; log it unless this client had this refusal logged
    within the log interval (then the throttle counts it)."""
    ctx.hooks.ws_refused(reason)
    left_out = ctx.client_errors.allow((client, "refused", reason))
    if left_out is None:
        ctx.hooks.log_suppressed("ws_refused", 1)
        return
    log.info(
        "room %s: websocket refused (%s)%s", room_code or "-", reason, _more(left_out),
        extra=fields(room_code, "ws_refused", reason=reason, client=client,
                     repeated=left_out or None),
    )


def _more(left_out: int) -> str:
    return f" ({left_out} more like it left out of the log)" if left_out else ""


async def _hello(
    ws: WebSocket, ctx: ServerContext, client: str, room_code: str | None
) -> tuple[str, str] | None:
    """Check the Origin, accept, and authenticate the hello: the player id, or None
    (the socket was refused and closed, or went away).

    A hello that names no seat spends one of the client's look-ups (limits.py), and
    a seat's hellos have their own budget: either spent closes with 4429."""
    settings = ctx.settings
    if not origin_allowed(ws.headers.get("origin"), ws.headers.get("host"),
                          settings.allowed_origins):
        _refuse(ctx, room_code, Refusal.ORIGIN, client)
        await ws.close(CloseCode.POLICY)  # before accept: the handshake is refused with 403
        return None
    await ws.accept()
    token = await _receive_hello(ws, ctx, client, room_code)
    if token is None:
        return None
    player_id: str | None = None
    try:
        async with ctx.limits.lookup(client):
            player_id = await seat_of(ctx, room_code, token)  # R18.1: or a watcher
            if player_id is None:
                raise RoomNotFound(room_code)  # keeps the look-up spent
    except RoomNotFound:
        _refuse(ctx, room_code, Refusal.BAD_HELLO, client)
        await ws.close(CloseCode.BAD_HELLO, "unknown room or token")
        return None
    except RateLimited as exc:
        _refuse(ctx, room_code, Refusal.RATE_LIMITED, client)
        await ws.close(CloseCode.RATE, f"too many attempts; retry in {exc.retry_after} s")
        return None
    except StoreUnavailable:
        _refuse(ctx, room_code, Refusal.STORE_UNAVAILABLE, client)
        await ws.close(CloseCode.TRY_LATER, "store unavailable")
        return None
    except SeatGone:  # the seat was removed during a game (R17.5): its token is void
        _refuse(ctx, room_code, Refusal.BAD_HELLO, client)
        await ws.close(CloseCode.KICKED, "removed from the room")
        return None
    said_hello(ws)
    if player_id == WATCHER_SEAT and room_code is not None:  # R18.1 (sockets/watcher_socket.py)
        return await serve_watcher(ws, ctx, client, room_code)
    return player_id, token


def said_hello(ws: WebSocket) -> None:
    """The socket's hello passed: the edge no longer evicts it (edge/transport.py)."""
    done = ws.scope.get("crisp.hello")
    if done is not None:
        done()


async def _receive_hello(
    ws: WebSocket, ctx: ServerContext, client: str, room_code: str | None
) -> str | None:
    """The hello token, or None (the socket was closed with 4401 or went away)."""
    try:
        async with asyncio.timeout(ctx.guard.hello_window(ctx.settings.hello_timeout_s)):
            msg = await ws.receive()
    except TimeoutError:
        _refuse(ctx, room_code, Refusal.HELLO_TIMEOUT, client)
        await ws.close(CloseCode.BAD_HELLO, "no hello in time")
        return None
    if msg["type"] == "websocket.disconnect":
        log.debug(
            "room %s: websocket closed before hello (code %s)", room_code or "-", msg.get("code"),
            extra=fields(room_code, "ws_closed", close_code=msg.get("code")),
        )
        return None
    text = msg.get("text")
    token: str | None = None
    if isinstance(text, str) and len(text) <= ctx.settings.max_message_bytes:
        try:
            parsed = parse_client(loads_bounded(text))
            if isinstance(parsed, Hello):
                token = await hello_token(ws, parsed)  # R18.1: a watcher's, or None
        except (ValueError, ValidationError):
            token = None
    if token is None:
        _refuse(ctx, room_code, Refusal.BAD_HELLO, client)
        await ws.close(CloseCode.BAD_HELLO, "expected hello")
    return token


async def _take_seat(conn: Connection, ctx: ServerContext, token: str) -> bool:
    """Subscribe, record this socket as the seat's newest, queue the full view.
    False if the socket was closed instead (the room or seat is gone: 4401; the store
    cannot be reached: 1013)."""
    try:
        await ctx.hub.attach(conn)
        await ctx.presence.hold(conn)  # the lease first: a crash now still ends presence
        doc, number = await ctx.rooms.connect(conn.room_code, conn.player_id, conn.id, token)
    except (RoomNotFound, SeatGone):
        conn.close(CloseCode.BAD_HELLO, "unknown room or token", EndReason.BAD_HELLO)
        return False
    except (StoreUnavailable, RoomBusy):
        conn.close(CloseCode.TRY_LATER, "try again later", EndReason.STORE_UNAVAILABLE)
        return False
    conn.numbered(number)
    conn.snapshot(doc.state, doc.locked)
    ctx.hub.check_replaced(conn)
    lag.watch(conn, Connection.resend)  # R18.4: its delay, measured from now on
    ctx.hooks.ws_opened(conn.room_code, conn.player_id)
    log.info(
        "room %s: %s connected (socket %s)", conn.room_code, conn.player_id, conn.id,
        extra=fields(conn.room_code, "ws_opened", player=conn.player_id, socket=conn.id),
    )
    return True


# ---- serving ----


async def _serve(conn: Connection, ctx: ServerContext, client: str) -> None:
    """Read client messages until the socket closes (reading.py, the one read loop).
    The rate limits are the seat's and the client address's (`ctx.sockets`), not
    this socket's: reconnecting does not refill them."""

    async def handle(text: str, received: float) -> None:
        await _handle_text(conn, ctx, text, received)

    def error(error_code: str, message: str) -> None:
        _error(conn, ctx, error_code, message)

    async def flooded() -> None:
        with contextlib.suppress(StoreUnavailable):  # before the close: a reconnect sees it
            await ctx.limits.flooded(conn.room_code, conn.player_id)

    await read_messages(conn, ctx, client, conn.player_id, handle, error, flooded)


def _error(
    conn: Connection,
    ctx: ServerContext,
    error_code: str,
    message: str,
    ref: str | None = None,
    rule: str | None = None,
) -> None:
    ctx.hooks.error_sent(error_code)
    conn.send_error(error_code, message, ref, rule)
    left_out = ctx.client_errors.allow((conn.room_code, conn.player_id, str(error_code)))
    if left_out is None:  # this seat had this error logged within the interval
        ctx.hooks.log_suppressed(MessageType.ERROR, 1)  # the log of an `error` sent
        return
    # Never the message's text or `ref`: both may echo what the client sent.
    log.warning(
        "room %s: error %s sent to %s%s%s", conn.room_code, error_code, conn.player_id,
        f" ({rule})" if rule else "", _more(left_out),
        extra=fields(conn.room_code, MessageType.ERROR, player=conn.player_id, code=error_code,
                     rule=rule, repeated=left_out or None),
    )


def _ref_of(data: Any) -> str | None:
    if isinstance(data, dict):
        ref = data.get("id")
        if isinstance(ref, str) and len(ref) <= 128:
            return ref
    return None


async def _handle_text(conn: Connection, ctx: ServerContext, text: str, received: float) -> None:
    """Parse one client message (the protocol models) and apply its action."""
    try:
        data = loads_bounded(text)
    except ValueError as exc:
        what = "nested too deeply" if "nested" in str(exc) else "not JSON"
        _error(conn, ctx, ErrorCode.BAD_MESSAGE, what)
        return
    ref = _ref_of(data)
    if conn.table_room and not is_room_message(data):  # its game's own (crisp/table/room.py)
        await _act(conn, ctx, type_of(data), received, ref,
                   lambda: ctx.rooms.act(conn.room_code, conn.player_id, table_message(data)),
                   refused_as=TABLE_MESSAGE)
        return
    try:
        msg = parse_client(data)
    except ValidationError as exc:
        message = describe_validation(exc.errors(), "invalid message")
        _error(conn, ctx, ErrorCode.BAD_MESSAGE, message, ref)
        return
    if isinstance(msg, Hello):
        _error(conn, ctx, ErrorCode.BAD_MESSAGE, "hello was already received", ref)
        return
    if isinstance(msg, Lock):
        locked = msg.locked
        await _act(conn, ctx, msg.type, received, ref,
                   lambda: ctx.rooms.set_locked(conn.room_code, conn.player_id, locked))
        return
    action_msg = msg

    def act() -> Awaitable[int | None]:
        action = lag.with_allowance(action_msg.to_action(), conn.lag)  # R18.4
        return ctx.rooms.act(conn.room_code, conn.player_id, action)

    await _act(conn, ctx, msg.type, received, ref, act)


async def _act(conn: Connection, ctx: ServerContext, kind: str, received: float,
               ref: str | None, call: Callable[[], Awaitable[int | None]],
               refused_as: str | None = None) -> None:
    """Make one change of the room (`call`: its version, or None if nothing changed),
    answering a refusal with its error (or close) and reporting it to the hooks as
    `kind` (`refused_as` when refused: a table room's message type is reported
    only once its game took it, so a client cannot make up metric labels)."""
    started = time.perf_counter()
    error: str | None = None
    try:
        version = await call()
        if version is not None:
            conn.action_saved(kind, received, version)
    except Exception as exc:
        failure = failure_of(exc)
        if failure is None:
            log.exception(
                "room %s: action %s of %s failed", conn.room_code, kind, conn.player_id
            )
            failure = SOCKET_INTERNAL
        if failure.close is not None:
            error = failure.close.end_reason
            conn.close(failure.close.close_code, failure.close.reason, failure.close.end_reason)
        else:
            error = failure.error_code
            _error(conn, ctx, failure.error_code, failure.message, ref, failure.rule)
            if isinstance(exc, OutcomeUnknown):  # the client waits for its next update
                ctx.hub.refresh(conn)
    finally:
        reported = kind if error is None or refused_as is None else refused_as
        ctx.hooks.action(conn.room_code, reported, time.perf_counter() - started, error)


# ---- the end ----


async def _end(conn: Connection, ctx: ServerContext) -> None:
    """Wait for the writer, leave the hub, report the close, mark the seat
    disconnected unless the end keeps presence (`EndReason.keeps_presence`), and log
    the close."""
    room_code, player_id = conn.room_code, conn.player_id
    conn.lag.stop()
    if conn.closing:
        await conn.wait_closed(timeout=2.0)
    else:
        conn.stop()
    await ctx.hub.detach(conn)
    close_code = conn.final_close_code
    ctx.hooks.ws_closed(room_code, player_id, close_code)  # counted before anyone hears
    if conn.end_reason is None or not conn.end_reason.keeps_presence:
        try:
            await ctx.rooms.disconnect(room_code, player_id, conn.id)
        except Exception:
            log.exception("room %s: marking %s disconnected failed", room_code, player_id)
    if conn.end_reason == EndReason.SHUTDOWN:
        ctx.presence.forget(conn)  # the lease runs out unless the client comes back (R17.3)
    else:
        await ctx.presence.release(conn)
    reason = conn.end_reason or ("server" if conn.close_code is not None else "client")
    log.info(
        "room %s: %s socket closed (code %s, %s)", room_code, player_id, close_code, reason,
        extra=fields(
            room_code, "ws_closed", player=player_id, socket=conn.id, close_code=close_code,
            reason=reason,
        ),
    )
