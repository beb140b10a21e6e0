"""The kernel's side of each accepted socket (issue 39; docs/deploy.md, "Limits").

- `cap_send_buffer`: the socket's `SO_SNDBUF` (`CRISP_SOCKET_SNDBUF_BYTES`; Linux
  doubles it for its bookkeeping and stops autotuning it), so a peer that never
  reads pins at most that much kernel memory, not the 4 MB `tcp_wmem` allows.
- `unsent`: the bytes still in the socket's kernel send queue (`SIOCOUTQ`: written,
  not yet acknowledged by the peer).
- `abort`: close with `SO_LINGER` 0, an RST: the kernel frees the socket and its
  queue at once. A plain close of a socket whose peer does not read leaves an
  orphan (FIN-WAIT-1 against a zero window) holding its queue for minutes.

Every function takes an asyncio (or uvloop) transport and does nothing, or
answers 0, when the transport has no socket (a test transport, a closed one).
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import socket
import struct
import termios
from typing import Any

_LINGER_NOW = struct.pack("ii", 1, 0)  # l_onoff 1, l_linger 0: close sends an RST
# A websocket's user-space write buffer above which its transport pauses writing
# (asyncio's and uvloop's default is 64 KiB): what a peer that stops reading pins in
# the process, besides the kernel's SO_SNDBUF
WRITE_HIGH_WATER = 16 * 1024
# scope key of a websocket: a function saying whether its transport is paused for
# writing now (the connection then queues only the latest table, issue 39)
PAUSED_KEY = "crisp.write_paused"


def _socket(transport: asyncio.BaseTransport) -> Any:
    return transport.get_extra_info("socket")


def cap_send_buffer(transport: asyncio.BaseTransport, size: int) -> None:
    """Set the socket's `SO_SNDBUF` to `size` bytes (0: leave the kernel's)."""
    sock = _socket(transport)
    if size > 0 and sock is not None:
        with contextlib.suppress(OSError, ValueError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, size)


def send_buffer(transport: asyncio.BaseTransport) -> int:
    """The socket's `SO_SNDBUF` as the kernel reports it (twice what was set), or 0."""
    sock = _socket(transport)
    if sock is None:
        return 0
    try:
        return int(sock.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF))
    except (OSError, ValueError):
        return 0


def unsent(transport: asyncio.BaseTransport) -> int:
    """Bytes in the socket's kernel send queue (`SIOCOUTQ`), 0 without a socket."""
    sock = _socket(transport)
    if sock is None:
        return 0
    try:
        fd = sock.fileno()
        if fd < 0:
            return 0
        out = fcntl.ioctl(fd, termios.TIOCOUTQ, b"\0\0\0\0")
    except (OSError, ValueError):
        return 0
    return int(struct.unpack("i", out)[0])


def abort(transport: asyncio.Transport) -> None:
    """Close the socket at once with an RST (`SO_LINGER` 0): no orphan keeps its
    send queue in the kernel."""
    sock = _socket(transport)
    if sock is not None:
        with contextlib.suppress(OSError, ValueError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, _LINGER_NOW)
    transport.abort()
