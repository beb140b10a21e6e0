"""How the server closes a websocket's TCP connection (issue 39: no orphan keeps a
buffer).

`ClosingTransport` is what uvicorn's websocket protocol sees as its transport
(transport.py wraps it around the real one): everything passes through, except
`close()`. A close no longer hands the socket to the kernel with bytes still
queued: it waits until the peer has acknowledged everything written (the user
space buffer is empty and the kernel's send queue, `SIOCOUTQ`, is 0; a peer that
reads does so within its round trip), then closes. A peer that has not taken
them `ABORT_GRACE_S` later does not read: the socket is aborted (`SO_LINGER` 0,
an RST), so the kernel frees its buffers at once instead of keeping an orphan
in FIN-WAIT-1 against a zero window for minutes. Every close of a websocket goes
this way: the closing handshake's end, a limit's close (4429, 1009, too slow), a
keepalive timeout, a shutdown. Nothing is written after `close()`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from crisp.server.edge import sockbuf

ABORT_GRACE_S = 1.0  # after close(): time for the peer to take what was written
POLL_S = 0.05  # how often a closing socket's queues are looked at meanwhile


class ClosingTransport:
    """A transport whose `close()` drains, then closes, or aborts (see the module
    docstring). `on_abort()` is called when it aborts."""

    def __init__(
        self, inner: asyncio.Transport, on_abort: Callable[[], None] | None = None,
        grace_s: float | None = None,
    ) -> None:  # fmt: skip
        self.inner = inner
        self.on_abort = on_abort
        self.grace_s = grace_s  # None: ABORT_GRACE_S as it is at the close
        self._closing = False
        self._deadline = 0.0
        self._timer: asyncio.TimerHandle | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def is_closing(self) -> bool:
        return self._closing or self.inner.is_closing()

    def write(self, data: bytes | bytearray | memoryview) -> None:
        if not self._closing:
            self.inner.write(data)

    def writelines(self, data: Any) -> None:
        if not self._closing:
            self.inner.writelines(data)

    def abort(self) -> None:
        self._closing = True
        self._cancel()
        sockbuf.abort(self.inner)

    def close(self) -> None:
        if self._closing:
            return
        self._closing = True
        grace = ABORT_GRACE_S if self.grace_s is None else self.grace_s
        self._deadline = asyncio.get_running_loop().time() + grace
        self._check()

    @property
    def drained(self) -> bool:
        """Everything written has left user space and been acknowledged by the peer."""
        return self.inner.get_write_buffer_size() == 0 and sockbuf.unsent(self.inner) == 0

    def _check(self) -> None:
        self._timer = None
        inner = self.inner
        if inner.is_closing():  # lost meanwhile (the peer closed, or an abort)
            return
        if self.drained:
            inner.close()
            return
        loop = asyncio.get_running_loop()
        if loop.time() >= self._deadline:
            sockbuf.abort(inner)
            if self.on_abort is not None:
                self.on_abort()
            return
        self._timer = loop.call_later(POLL_S, self._check)

    def _cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
