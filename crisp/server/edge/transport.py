"""Connections that cost nothing when idle (docs/deploy.md, "Connections").

uvicorn reads request headers and websocket frames for the app, and has no
header timeout of its own (its keep-alive timeout only runs between requests),
no cap per client and no cap below the file limit. Its protocol classes are
subclassed here (`EdgeHttpProtocol`) and in wsprotocol.py (`EdgeWebSocketProtocol`),
passed as `http=` and `ws=` by `main.uvicorn_options`, and a per-process `Guard`
decides:

- **per client**: a peer address (not a trusted proxy) may hold at most
  `CRISP_MAX_CONNECTIONS_PER_CLIENT` connections; more are closed at once;
- **in total**: at most `Guard.max_total` (`CRISP_MAX_CONNECTIONS`, by default the
  file limit less `FD_RESERVE`); at the cap, the connection that has waited
  longest for its request headers is closed to make room, so silent sockets
  cannot keep `/healthz` out; if none waits, the new one is closed;
- **headers**: a connection must deliver a request's headers within
  `CRISP_HEADER_TIMEOUT_S` of opening (or of its previous response), else it is
  closed;
- **pre-hello websockets** (issue 23): a websocket that has not yet sent a valid
  `hello` is as evictable as a connection waiting for headers (the endpoint tells
  the guard when the hello passed: `scope["crisp.hello"]`), and under pressure
  (half the cap in use) the endpoint gives it `PRESSED_HELLO_S` instead of
  `CRISP_HELLO_TIMEOUT_S`;
- **connection rate**: a peer address may open at most `CRISP_CONNECT_RATE_PER_S`
  connections a second (a burst of twice that); more are closed at once;
- **websockets** (wsprotocol.py): a text frame that is not UTF-8 closes the
  socket with 1007, without the traceback uvicorn would log; the closing
  handshake waits `CLOSE_TIMEOUT_S` for the peer, not uvicorn's 10 s;
- **kernel buffers** (issue 39, sockbuf.py): every accepted socket's `SO_SNDBUF`
  is `CRISP_SOCKET_SNDBUF_BYTES`, and a websocket whose peer does not take what
  was written is aborted at its close, never left an orphan (closing.py).

The guard reaches the protocols through the lifespan state (`GUARD_KEY`), which
uvicorn hands every protocol as `app_state`. Without it (another server, a test
client) these classes behave exactly like uvicorn's.
"""

from __future__ import annotations

import asyncio
import logging
import resource
import time
from typing import Any, cast

from uvicorn.protocols.http.h11_impl import H11Protocol

from crisp.server.edge import sockbuf
from crisp.server.edge.clients import TrustedProxies, client_key
from crisp.server.edge.ratelimit import TokenBucket
from crisp.server.ops.hooks import ServerHooks
from crisp.server.ops.throttle import LogCeiling, LogThrottle

try:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
except ImportError:  # pragma: no cover - httptools is part of uvicorn[standard]
    HttpToolsProtocol = None  # type: ignore[assignment,misc]

log = logging.getLogger("crisp.server.edge.transport")

GUARD_KEY = "crisp.guard"
FD_RESERVE = 128  # descriptors kept for everything else: Redis pool, logs, listeners
MIN_CONNECTIONS = 32
CLOSE_TIMEOUT_S = 2.0
PRESSURE = 0.5  # the share of the cap in use from which pre-hello sockets get less time
PRESSED_HELLO_S = 1.0  # their hello window then
MAX_OPENING_BUCKETS = 10_000  # per-address connection-rate buckets before full ones go


def raise_file_limit() -> tuple[int, int]:
    """Raise this process's soft RLIMIT_NOFILE to its hard limit (children inherit
    it); returns the (soft, hard) limits now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 20)
    if soft != resource.RLIM_INFINITY and soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError) as exc:
            log.warning("could not raise the file limit from %s to %s: %s", soft, target, exc)
    return soft, hard


def connection_cap(configured: int) -> int:
    """The process's connection cap: `configured` (CRISP_MAX_CONNECTIONS) if set,
    else the soft file limit less `FD_RESERVE` (at least `MIN_CONNECTIONS`)."""
    if configured > 0:
        return configured
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        soft = 1 << 20
    return max(MIN_CONNECTIONS, soft - FD_RESERVE)


class Guard:
    """Counts this process's open connections, in total and per client address, and
    decides which are let in (`admit`) and which make room (`_evict`)."""

    def __init__(
        self,
        *,
        max_total: int,
        max_per_client: int,
        header_timeout_s: float,
        trusted: TrustedProxies,
        hooks: ServerHooks,
        log_interval_s: float = 30.0,
        connect_rate: float = 0.0,
        send_buffer: int = 0,
        log_ceiling: LogCeiling | None = None,
    ) -> None:
        self.max_total = max_total
        self.send_buffer = send_buffer  # each accepted socket's SO_SNDBUF (0: the kernel's)
        self.connect_rate = connect_rate  # connections a second per client (0: no limit)
        self._openings: dict[str, TokenBucket] = {}
        self.max_per_client = max_per_client
        self.header_timeout_s = header_timeout_s
        self.trusted = trusted
        self.hooks = hooks
        self.clients: dict[asyncio.BaseTransport, str | None] = {}  # transport -> client
        self.per_client: dict[str, int] = {}
        # Connections waiting for request headers, and websockets waiting for their
        # hello: oldest first (dicts keep order), the ones a new connection may evict.
        self.waiting: dict[asyncio.BaseTransport, float] = {}
        self.prehello: dict[asyncio.BaseTransport, float] = {}
        self._log = LogThrottle(log_interval_s, ceiling=log_ceiling)
        hooks.watch_sockets(self.kernel_queue)

    @property
    def open_count(self) -> int:
        return len(self.clients)

    def kernel_queue(self) -> int:
        """Bytes in the kernel send queues of this process's connections (/metrics)."""
        return sum(sockbuf.unsent(transport) for transport in list(self.clients))

    def admit(self, transport: asyncio.BaseTransport) -> bool:
        """Let a new connection in (it then waits for headers), or refuse it."""
        peer = transport.get_extra_info("peername")
        host = peer[0] if isinstance(peer, tuple) and peer else None
        client = None if host is None or host in self.trusted else client_key(host)
        if (
            client is not None
            and self.max_per_client
            and self.per_client.get(client, 0) >= self.max_per_client
        ):
            self._drop("per_client", client)
            return False
        if client is not None and self.connect_rate and not self._opening(client):
            self._drop("connect_rate", client)
            return False
        if len(self.clients) >= self.max_total and not self._evict():
            self._drop("total", client)
            return False
        self.clients[transport] = client
        if client is not None:
            self.per_client[client] = self.per_client.get(client, 0) + 1
        self.waiting[transport] = time.monotonic()
        return True

    def _opening(self, client: str) -> bool:
        """Spend one of the client's connection openings (a bucket per address,
        forgotten once full again)."""
        bucket = self._openings.get(client)
        if bucket is None:
            if len(self._openings) >= MAX_OPENING_BUCKETS:
                now = time.monotonic()
                for key in [k for k, b in self._openings.items() if b.full_since(now)]:
                    del self._openings[key]
            bucket = self._openings[client] = TokenBucket(self.connect_rate, 2 * self.connect_rate)
        return bucket.take()

    @property
    def pressed(self) -> bool:
        """Half the cap or more is in use: pre-hello sockets get `PRESSED_HELLO_S`."""
        return len(self.clients) >= self.max_total * PRESSURE

    def hello_window(self, normal_s: float) -> float:
        """How long a new websocket has for its hello now."""
        return min(normal_s, PRESSED_HELLO_S) if self.pressed else normal_s

    def upgraded(self, transport: asyncio.BaseTransport) -> None:
        """The connection became a websocket that has not said hello yet: evictable."""
        if transport in self.clients:
            self.waiting.pop(transport, None)
            self.prehello[transport] = time.monotonic()

    def said_hello(self, transport: asyncio.BaseTransport) -> None:
        """The websocket's hello passed: it holds a seat, never evicted."""
        self.prehello.pop(transport, None)

    def busy(self, transport: asyncio.BaseTransport) -> None:
        """The connection has a request (or became a websocket): not evictable."""
        self.waiting.pop(transport, None)

    def idle(self, transport: asyncio.BaseTransport) -> None:
        """The connection answered its request and waits for the next one."""
        if transport in self.clients:
            self.waiting.pop(transport, None)
            self.waiting[transport] = time.monotonic()

    def release(self, transport: asyncio.BaseTransport) -> None:
        """The connection is gone."""
        self.waiting.pop(transport, None)
        self.prehello.pop(transport, None)
        if transport not in self.clients:
            return
        client = self.clients.pop(transport)
        if client is not None:
            left = self.per_client.get(client, 1) - 1
            if left > 0:
                self.per_client[client] = left
            else:
                self.per_client.pop(client, None)

    def timed_out(self, transport: asyncio.BaseTransport, reason: str) -> None:
        """Close a connection that was too slow (`header_timeout`, `body_timeout`)."""
        self._drop(reason, self.clients.get(transport))
        transport.close()

    def _evict(self) -> bool:
        """Close the connection that has waited longest for its request headers, or
        the websocket that has waited longest for its hello, whichever is older."""
        oldest = [(since, transport) for pool in (self.waiting, self.prehello)
                  for transport, since in list(pool.items())[:1]]
        if not oldest:
            return False
        _, transport = min(oldest, key=lambda item: item[0])
        self.release(transport)
        transport.close()
        self._drop("evicted", None)
        return True

    def _drop(self, reason: str, client: str | None) -> None:
        self.hooks.connection_dropped(reason)
        left_out = self._log.allow((reason, client))
        if left_out is not None:
            more = f" ({left_out} more since the last line)" if left_out else ""
            log.warning(
                "connection from %s closed: %s (open %d, cap %d, per client %d)%s",
                client or "-", reason, len(self.clients), self.max_total,
                self.max_per_client, more,
            )
        else:
            self.hooks.log_suppressed("connection_dropped", 1)


def _guard_of(protocol: Any) -> Guard | None:
    state = getattr(protocol, "app_state", None)
    guard = state.get(GUARD_KEY) if isinstance(state, dict) else None
    return guard if isinstance(guard, Guard) else None


class _GuardedHttp(asyncio.Protocol):
    """What EdgeHttpProtocol adds to uvicorn's HTTP protocol (either implementation):
    admission, the header deadline, idle tracking and release."""

    transport: asyncio.Transport
    loop: asyncio.AbstractEventLoop
    cycle: Any
    _guard: Guard | None = None
    _header_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        self._guard = _guard_of(self)
        if self._guard is None:
            return
        if not self._guard.admit(transport):
            self._guard = None
            transport.close()
            return
        sockbuf.cap_send_buffer(transport, self._guard.send_buffer)
        self._arm()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        guard = self._guard
        if guard is None:
            return
        upgraded = not self._owns_transport()  # now a websocket
        if upgraded or (self.cycle is not None and not self.cycle.response_complete):
            self._disarm()
            guard.busy(self.transport)

    def on_response_complete(self) -> None:
        super().on_response_complete()  # type: ignore[misc]
        if self._guard is not None and not self.transport.is_closing():
            self._guard.idle(self.transport)
            self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        if self._guard is not None and self._owns_transport():
            self._guard.release(self.transport)
        super().connection_lost(exc)

    def _owns_transport(self) -> bool:
        """False once the transport was handed to a websocket protocol."""
        return self.transport.get_protocol() is cast(asyncio.BaseProtocol, self)

    def _arm(self) -> None:
        self._disarm()
        assert self._guard is not None
        self._header_timer = self.loop.call_later(
            self._guard.header_timeout_s, self._headers_late
        )

    def _disarm(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _headers_late(self) -> None:
        self._header_timer = None
        guard = self._guard
        waiting = self.cycle is None or self.cycle.response_complete
        if guard is not None and self._owns_transport() and waiting:
            guard.timed_out(self.transport, "header_timeout")


class EdgeH11Protocol(_GuardedHttp, H11Protocol):
    """uvicorn's h11 protocol, guarded."""


if HttpToolsProtocol is not None:

    class EdgeHttpToolsProtocol(_GuardedHttp, HttpToolsProtocol):
        """uvicorn's httptools protocol, guarded."""

    EdgeHttpProtocol: type[asyncio.Protocol] = EdgeHttpToolsProtocol
else:  # pragma: no cover
    EdgeHttpProtocol = EdgeH11Protocol

