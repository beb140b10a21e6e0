"""The websocket protocol of every Crisp server: uvicorn's sans-io one, guarded
(the websocket half of transport.py's edge: see its docstring).

What it adds: a closing handshake that waits `CLOSE_TIMEOUT_S`, 1007 for text
that is not UTF-8 (counted, never a traceback), the guard's accounting (evictable
until hello, released at the end), the app's own timed pings (pings.py, R18.4),
and, issue 39, the socket's kernel side: its transport is a `ClosingTransport`
(closing.py: a close the peer does not take within the grace is an abort, an
RST), its user-space buffer pauses at `sockbuf.WRITE_HIGH_WATER`, and nothing is
written while it is paused (`write_paused`, in the scope as `sockbuf.PAUSED_KEY`
for the connection's queue).
"""

from __future__ import annotations

import asyncio
import functools
import secrets
from typing import Any, cast

from crisp.server.edge import sockbuf
from crisp.server.edge.closing import ClosingTransport
from crisp.server.edge.pings import AppPings
from crisp.server.edge.transport import CLOSE_TIMEOUT_S, _guard_of

try:
    from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
except ImportError:  # pragma: no cover - uvicorn before the sans-io websockets protocol
    WebSocketsSansIOProtocol = None  # type: ignore[assignment,misc]


if WebSocketsSansIOProtocol is not None:

    class EdgeWebSocketProtocol(AppPings, WebSocketsSansIOProtocol):
        """uvicorn's websockets protocol: a shorter closing handshake, 1007 for text
        that is not UTF-8 (counted, never a traceback), the guard's release, and the
        app's own timed pings (pings.py, R18.4). Issue 39: its transport is a
        `ClosingTransport` (a close that the peer does not take within the grace
        is an abort), and nothing is written while the transport is paused for
        writing: not uvicorn's keepalive ping either, whose pong deadline still
        runs, so a peer that does not read is closed (then aborted) like one
        that does not answer."""

        raw_transport: asyncio.Transport

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.close_timeout = CLOSE_TIMEOUT_S

        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            self.raw_transport = cast(asyncio.Transport, transport)
            self.raw_transport.set_write_buffer_limits(high=sockbuf.WRITE_HIGH_WATER)
            guard = _guard_of(self)
            on_abort = None if guard is None else self._aborted
            super().connection_made(cast(Any, ClosingTransport(self.raw_transport, on_abort)))

        def _aborted(self) -> None:
            guard = _guard_of(self)
            if guard is not None:
                guard.hooks.connection_dropped("not_reading")

        @property
        def write_paused(self) -> bool:
            """The transport paused writing (its buffer is over the high-water mark)."""
            return not self.writable.is_set()

        def _paused_now(self) -> bool:
            return self.write_paused

        def send_keepalive_ping(self) -> None:
            if not self.write_paused:
                super().send_keepalive_ping()
                return
            self.ping_timer = None  # no ping written, but its pong is due all the same
            if self.close_sent or self.transport.is_closing():
                return
            self.pending_ping_payload = secrets.token_bytes(8)  # no pong can match it
            if self.ping_timeout is not None:
                self.pong_timer = self.loop.call_later(self.ping_timeout, self.keepalive_timeout)
            else:  # pragma: no cover - crisp keeps uvicorn's ping timeout
                self.schedule_ping()

        async def send(self, message: Any) -> None:
            if (
                message["type"] == "websocket.close" and self.write_paused
                and self.handshake_complete and not self.close_sent
                and self.initial_response is None
            ):
                # No close frame can reach a peer that does not read: close at once
                # (the ClosingTransport aborts it after its grace), not after the
                # writer's wait for a transport that never resumes.
                self.queue.put_nowait({"type": "websocket.disconnect",
                                       "code": message.get("code", 1000),
                                       "reason": message.get("reason") or ""})
                self.close_sent = True
                self.transport.close()
                return
            await super().send(message)

        def handle_connect(self, event: Any) -> None:
            super().handle_connect(event)
            guard = _guard_of(self)
            scope = getattr(self, "scope", None)
            if scope is not None:
                scope[sockbuf.PAUSED_KEY] = self._paused_now
            if guard is not None and scope is not None:  # accepted: evictable until hello
                guard.upgraded(self.raw_transport)
                scope["crisp.hello"] = functools.partial(guard.said_hello, self.raw_transport)

        def connection_lost(self, exc: Exception | None) -> None:
            guard = _guard_of(self)
            if guard is not None:
                guard.release(self.raw_transport)
            super().connection_lost(exc)

        def send_receive_event_to_app(self) -> None:
            if self.curr_msg_data_type == "text" and not self.close_sent:
                data = self.frames[0] if len(self.frames) == 1 else b"".join(self.frames)
                try:
                    data.decode()
                except UnicodeDecodeError:
                    self.frames = []
                    guard = _guard_of(self)
                    if guard is not None:
                        guard.hooks.connection_dropped("bad_utf8")
                    self.conn.send_close(1007, "text frames must be UTF-8")
                    self.handle_parser_exception()
                    return
            super().send_receive_event_to_app()

    WS_PROTOCOL: type[asyncio.Protocol] | str = EdgeWebSocketProtocol
else:  # pragma: no cover
    WS_PROTOCOL = "auto"
