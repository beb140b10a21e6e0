"""The one read loop of every socket past its hello: a seat's and a watcher's
(issue 35 item 7: one door).

`read_messages` reads frames until the socket ends and, for each, in order: the
hard size bound (above `HARD_MAX_BYTES` the socket is closed with 1009), the
rate limits (`ctx.sockets`: the bucket `rate_key` names, a seat's or a watcher's
own, and the client address's, 4429 once a bucket's strikes are spent), the
protocol's size limit (`too_large`) and text frames only (`bad_message`); what
passes goes to the door's `handle(text, received)`. Errors go through the door's
`error`, so each door keeps its own error accounting (a seat's are logged, a
watcher's are not).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

from crisp.engine import ErrorCode
from crisp.server.context import ServerContext
from crisp.server.sockets.connection import Connection
from crisp.server.wire.vocabulary import CloseCode, EndReason, ServerErrorCode

HARD_MAX_BYTES = 65536  # frames above this are closed with 1009 (uvicorn ws_max_size too)

Handle = Callable[[str, float], Awaitable[None]]  # (text, perf_counter when received)
SendError = Callable[[str, str], None]  # (error code, message)
Flooded = Callable[[], Awaitable[None]]  # before a 4429 close (a seat notes it in the store)


async def read_messages(
    conn: Connection, ctx: ServerContext, client: str, rate_key: str, handle: Handle,
    error: SendError, flooded: Flooded | None = None,
) -> None:  # fmt: skip
    """Read client messages until the socket closes (see the module docstring)."""
    settings = ctx.settings
    while not conn.closing:
        msg = await conn.ws.receive()
        received = time.perf_counter()
        if msg["type"] == "websocket.disconnect":
            conn.peer_closed(msg.get("code"))
            return
        text = msg.get("text")
        if text is None:
            size = len(msg.get("bytes") or b"")
        else:
            size = len(text) if text.isascii() else len(text.encode("utf-8"))
        if size > HARD_MAX_BYTES:
            conn.close(CloseCode.TOO_BIG, "message too big", EndReason.TOO_BIG)
            return
        verdict = ctx.sockets.check(conn.room_code, rate_key, client)
        if verdict == "close":
            ctx.hooks.error_sent(ServerErrorCode.RATE_LIMITED)
            ctx.hooks.limited("messages")
            if flooded is not None:
                await flooded()
            conn.close(CloseCode.RATE, "too many messages", EndReason.RATE)
            return
        if verdict == "limited":
            error(ServerErrorCode.RATE_LIMITED, "slow down: too many messages")
            continue
        if size > settings.max_message_bytes:
            limit = settings.max_message_bytes
            error(ServerErrorCode.TOO_LARGE, f"messages are limited to {limit} bytes")
            continue
        if text is None:
            error(ErrorCode.BAD_MESSAGE, "binary frames are not accepted; send JSON text")
            continue
        await handle(text, received)
