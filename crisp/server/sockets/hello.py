"""What a websocket's `hello` names (protocol.md, "WebSocket"; v1.2 "Watching"): a
seat, by its token, or, with `"watch": true` and no token, nobody's seat (R18.1).

`hello_token` reads the parsed hello: the token, `WATCH_TOKEN` for a watcher, or
None after answering `bad_message` to a hello with both. `seat_of` says who the
hello is: the seat's player id (after spending one of its hellos, edge/limits.py),
`WATCHER_SEAT` for a watcher of a room that exists, or None (no such room or
token). The endpoint then serves a seat, or hands a watcher to `serve_watcher`.
"""

from __future__ import annotations

from starlette.websockets import WebSocket

from crisp.engine import ErrorCode
from crisp.server.context import ServerContext
from crisp.server.rooms.watch_count import WATCHER_SEAT
from crisp.server.sockets.watcher_socket import serve_watcher
from crisp.server.wire.client import Hello
from crisp.server.wire.frames import error_message

__all__ = ["WATCHER_SEAT", "WATCH_TOKEN", "hello_token", "seat_of", "serve_watcher"]

WATCH_TOKEN = ""  # a watcher's hello (no real token is empty: the models refuse it)


async def hello_token(ws: WebSocket, hello: Hello) -> str | None:
    """The hello's token, `WATCH_TOKEN` for a watcher, or None (a hello with both
    `watch` and a token: answered `bad_message`, then closed with 4401)."""
    if not hello.watch:
        return hello.token
    if hello.token is not None:
        await ws.send_text(error_message(ErrorCode.BAD_MESSAGE,
                                         "a hello watches or has a token, not both"))
        return None
    return WATCH_TOKEN


async def seat_of(ctx: ServerContext, room_code: str | None, token: str) -> str | None:
    """Who a hello with `token` is in the room: a seat's player id (one of the seat's
    hellos spent, or RateLimited; SeatGone for a seat removed in a game),
    `WATCHER_SEAT` for a watcher (R18.1: the room exists; no seat's hellos), or
    None."""
    if room_code is None:
        return None
    if token == WATCH_TOKEN:
        return WATCHER_SEAT if await ctx.store.exists(room_code) else None
    player_id = await ctx.rooms.authenticate(room_code, token)
    if player_id is not None:
        await ctx.limits.hello(room_code, player_id)
    return player_id
