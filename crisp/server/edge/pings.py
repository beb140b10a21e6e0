"""Websocket ping frames of the app's own, timed where the bytes come and go (R18.4).

ASGI has no ping message, and uvicorn's keepalive pings keep their round trips to
themselves. `AppPings` is mixed into the websocket protocol (transport.py) and puts
one function into the connection's scope, `scope["crisp.ping"]`: `ping(on_pong)`
writes a ping frame with a payload of its own and calls `on_pong(rtt_ms)` when the
matching pong is read (the round trip from the write of the ping to the read of the
pong, by the event loop's monotonic clock). It returns False when the socket is
closing; while the transport is paused for writing it writes nothing (issue 39).
Pongs it did not ask for go to uvicorn's own keepalive as before. The measuring
itself (how often, which round trips count) is the socket's (`sockets/lag.py`).
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

PING_KEY = "crisp.ping"
MAX_IN_FLIGHT = 4  # pings without their pong yet, per socket (older ones are forgotten)

Ping = Callable[[Callable[[float], None]], bool]


class AppPings:
    """The app's ping frames on uvicorn's sans-io websocket protocol."""

    if TYPE_CHECKING:  # provided by uvicorn's WebSocketsSansIOProtocol
        conn: Any
        transport: asyncio.Transport
        loop: asyncio.AbstractEventLoop
        close_sent: bool

        @property
        def write_paused(self) -> bool: ...

    _app_pings: dict[bytes, tuple[float, Callable[[float], None]]]

    def handle_connect(self, event: Any) -> None:
        super().handle_connect(event)  # type: ignore[misc]
        self._app_pings = {}
        scope = getattr(self, "scope", None)
        if scope is not None:
            scope[PING_KEY] = self.app_ping

    def app_ping(self, on_pong: Callable[[float], None]) -> bool:
        """Write a ping frame; `on_pong(rtt_ms)` once its pong is read. False if the
        socket is closing (nothing written)."""
        if self.close_sent or self.transport.is_closing():
            return False
        if self.write_paused:  # issue 39: nothing is written to a paused transport
            return True
        pending = self._app_pings
        while len(pending) >= MAX_IN_FLIGHT:  # pongs that never came
            del pending[next(iter(pending))]
        payload = b"crisp" + secrets.token_bytes(4)
        pending[payload] = (self.loop.time(), on_pong)
        try:
            self.conn.send_ping(payload)
        except Exception:  # the protocol refuses to send (closing): no ping
            del pending[payload]
            return False
        self.transport.write(b"".join(self.conn.data_to_send()))
        return True

    def handle_pong(self, event: Any) -> None:
        waiting = getattr(self, "_app_pings", None)
        found = waiting.pop(bytes(event.data), None) if waiting else None
        if found is None:
            super().handle_pong(event)  # type: ignore[misc]
            return
        sent_at, on_pong = found
        on_pong((self.loop.time() - sent_at) * 1000.0)
