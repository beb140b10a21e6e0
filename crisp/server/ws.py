"""The websocket endpoint `/ws/{code}` (protocol.md "WebSocket").

Order of business: Origin check before accepting; `hello` within
`hello_timeout_s` with a valid token (else close 4401); the seat's newest
connection is recorded and the seat marked connected through the engine; the
first update carries the full view and no events. Then each client message is
size-checked, rate-limited, validated (pydantic) and applied through the rooms
service. Nothing a client sends can crash the connection or the room.

When the server stops, uvicorn closes every socket with 1012 (service restart;
clients reconnect at once) and the handler leaves the seat's presence as it is:
the client is expected back within seconds, and marking it disconnected meanwhile
could end a peek phase early (R16.2) for a restart alone.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from typing import Any

from pydantic import ValidationError
from starlette.websockets import WebSocket

from crisp.engine import IllegalAction
from crisp.store import StoreUnavailable

from .codes import normalize_code
from .connection import (
    CLOSE_BAD_HELLO,
    CLOSE_KICKED,
    CLOSE_RATE,
    CLOSE_RESTART,
    CLOSE_ROOM_GONE,
    CLOSE_TOO_BIG,
    CLOSE_TRY_LATER,
    Connection,
)
from .context import ServerContext
from .errors import RoomBusy, RoomNotFound, SeatGone
from .logs import fields
from .messages import Hello, action_dict, parse_client
from .origin import origin_allowed
from .ratelimit import RateLimiter

log = logging.getLogger("crisp.server.ws")

HARD_MAX_BYTES = 65536  # frames above this are closed with 1009 (uvicorn ws_max_size too)
# Ends after which the seat is not marked disconnected: another socket holds it, it
# is gone, or the server is restarting (the client reconnects at once).
_KEEP_PRESENCE = frozenset({"replaced", "kicked", "room_gone", "bad_hello", "shutdown"})


def _refuse(ctx: ServerContext, room: str | None, reason: str) -> None:
    ctx.hooks.ws_refused(reason)
    log.info(
        "room %s: websocket refused (%s)", room or "-", reason,
        extra=fields(room, "ws_refused", reason=reason),
    )


def _ref_of(data: Any) -> str | None:
    if isinstance(data, dict):
        ref = data.get("id")
        if isinstance(ref, str) and len(ref) <= 128:
            return ref
    return None


def _describe(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors()[:3]:
        loc = ".".join(str(p) for p in err.get("loc", ()))
        parts.append(f"{loc}: {err.get('msg')}" if loc else str(err.get("msg")))
    return "; ".join(parts) or "invalid message"


async def _receive_hello(ws: WebSocket, ctx: ServerContext, room: str | None) -> str | None:
    """The hello token, or None (the socket was closed with 4401 or went away)."""
    try:
        async with asyncio.timeout(ctx.settings.hello_timeout_s):
            msg = await ws.receive()
    except TimeoutError:
        _refuse(ctx, room, "hello_timeout")
        await ws.close(CLOSE_BAD_HELLO, "no hello in time")
        return None
    if msg["type"] == "websocket.disconnect":
        log.debug(
            "room %s: websocket closed before hello (code %s)", room or "-", msg.get("code"),
            extra=fields(room, "ws_closed", close_code=msg.get("code")),
        )
        return None
    text = msg.get("text")
    token: str | None = None
    if isinstance(text, str) and len(text) <= ctx.settings.max_message_bytes:
        try:
            parsed = parse_client(json.loads(text))
            if isinstance(parsed, Hello):
                token = parsed.token
        except (ValueError, ValidationError):
            token = None
    if token is None:
        _refuse(ctx, room, "bad_hello")
        await ws.close(CLOSE_BAD_HELLO, "expected hello")
    return token


async def websocket_endpoint(ws: WebSocket, code: str) -> None:
    """Serve one client socket for room `code`."""
    ctx: ServerContext = ws.app.state.ctx
    settings = ctx.settings
    origin, host = ws.headers.get("origin"), ws.headers.get("host")
    room = normalize_code(code)
    if not origin_allowed(origin, host, settings.allowed_origins):
        _refuse(ctx, room, "origin")
        await ws.close(1008)  # before accept: the handshake is refused with HTTP 403
        return
    await ws.accept()
    token = await _receive_hello(ws, ctx, room)
    if token is None:
        return
    try:
        pid = await ctx.rooms.authenticate(room, token) if room else None
    except StoreUnavailable:
        _refuse(ctx, room, "store_unavailable")
        await ws.close(CLOSE_TRY_LATER, "store unavailable")
        return
    if room is None or pid is None:
        _refuse(ctx, room, "bad_hello")
        await ws.close(CLOSE_BAD_HELLO, "unknown room or token")
        return

    conn = Connection(ws, room, pid, ctx.hooks)
    conn.start_writer()
    try:
        try:
            await ctx.hub.attach(conn)
            doc, number = await ctx.rooms.connect(room, pid, conn.id)
        except (RoomNotFound, SeatGone):
            conn.close(CLOSE_BAD_HELLO, "unknown room or token", "bad_hello")
            return
        except (StoreUnavailable, RoomBusy):
            conn.close(CLOSE_TRY_LATER, "try again later", "store_unavailable")
            return
        conn.n = number
        conn.snapshot(doc.state)
        ctx.hub.check_replaced(conn)
        ctx.hooks.ws_opened(room, pid)
        log.info(
            "room %s: %s connected (socket %s)", room, pid, conn.id,
            extra=fields(room, "ws_opened", player=pid, socket=conn.id),
        )
        try:
            await _serve(conn, ctx)
        except Exception:
            log.exception("room %s: socket of %s failed", room, pid)
            conn.close(1011, "internal error", "internal")
    finally:
        if conn.closing:
            await conn.wait_closed(timeout=2.0)
        else:
            conn.stop()
        await ctx.hub.detach(conn)
        if conn.close_code is None and conn.peer_close_code == CLOSE_RESTART:
            conn.end_reason = "shutdown"  # uvicorn closed it: the server is stopping
        if conn.end_reason not in _KEEP_PRESENCE:
            try:
                await ctx.rooms.disconnect(room, pid, conn.id)
            except Exception:
                log.exception("room %s: marking %s disconnected failed", room, pid)
        close_code = conn.final_close_code
        ctx.hooks.ws_closed(room, pid, close_code)
        reason = conn.end_reason or ("server" if conn.close_code is not None else "client")
        log.info(
            "room %s: %s socket closed (code %s, %s)", room, pid, close_code, reason,
            extra=fields(
                room, "ws_closed", player=pid, socket=conn.id, close_code=close_code,
                reason=reason,
            ),
        )


async def _serve(conn: Connection, ctx: ServerContext) -> None:
    """Read client messages until the socket closes."""
    settings = ctx.settings
    limiter = RateLimiter(settings.rate_per_s, settings.rate_burst, settings.rate_strikes)
    while not conn.closing:
        msg = await conn.ws.receive()
        received = time.perf_counter()
        if msg["type"] == "websocket.disconnect":
            conn.peer_close_code = int(msg.get("code") or 1005)
            return
        text = msg.get("text")
        if text is None:
            size = len(msg.get("bytes") or b"")
        else:
            size = len(text) if text.isascii() else len(text.encode("utf-8"))
        if size > HARD_MAX_BYTES:
            conn.close(CLOSE_TOO_BIG, "message too big", "too_big")
            return
        verdict = limiter.check()
        if verdict == "close":
            ctx.hooks.error_sent("rate_limited")
            conn.close(CLOSE_RATE, "too many messages", "rate")
            return
        if verdict == "limited":
            _error(conn, ctx, "rate_limited", "slow down: too many messages")
            continue
        if size > settings.max_message_bytes:
            limit = settings.max_message_bytes
            _error(conn, ctx, "too_large", f"messages are limited to {limit} bytes")
            continue
        if text is None:
            _error(conn, ctx, "bad_message", "binary frames are not accepted; send JSON text")
            continue
        await _handle_text(conn, ctx, text, received)


def _error(
    conn: Connection,
    ctx: ServerContext,
    code: str,
    message: str,
    ref: str | None = None,
    rule: str | None = None,
) -> None:
    ctx.hooks.error_sent(code)
    # Never the message's text or `ref`: both may echo what the client sent.
    log.warning(
        "room %s: error %s sent to %s%s", conn.code, code, conn.pid, f" ({rule})" if rule else "",
        extra=fields(conn.code, "error", player=conn.pid, code=code, rule=rule),
    )
    conn.send_error(code, message, ref, rule)


async def _handle_text(conn: Connection, ctx: ServerContext, text: str, received: float) -> None:
    try:
        data = json.loads(text)
    except ValueError:
        _error(conn, ctx, "bad_message", "not JSON")
        return
    ref = _ref_of(data)
    try:
        msg = parse_client(data)
    except ValidationError as exc:
        _error(conn, ctx, "bad_message", _describe(exc), ref)
        return
    if isinstance(msg, Hello):
        _error(conn, ctx, "bad_message", "hello was already received", ref)
        return
    action = action_dict(msg)
    kind = str(action["type"])
    started = time.perf_counter()
    error: str | None = None
    try:
        version = await ctx.rooms.act(conn.code, conn.pid, action)
        if version is not None:
            conn.action_saved(kind, received, version)
    except IllegalAction as exc:
        error = str(exc.code)
        message = str(exc.message)
        rule = getattr(exc, "rule", None)
        if rule and rule not in message:
            message = f"{message} ({rule})"
        _error(conn, ctx, error, message, ref, rule)
    except RoomBusy:
        error = "busy"
        _error(conn, ctx, error, "the room is busy; try again", ref)
    except StoreUnavailable:
        error = "store_unavailable"
        _error(conn, ctx, error, "the server cannot reach its store; try again", ref)
    except RoomNotFound:
        error = "room_gone"
        conn.close(CLOSE_ROOM_GONE, "room no longer exists", "room_gone")
    except SeatGone:
        error = "kicked"
        conn.close(CLOSE_KICKED, "kicked", "kicked")
    except Exception:
        log.exception("room %s: action %s of %s failed", conn.code, kind, conn.pid)
        error = "internal"
        _error(conn, ctx, error, "the server failed to handle this message", ref)
    finally:
        ctx.hooks.action(conn.code, kind, time.perf_counter() - started, error)
