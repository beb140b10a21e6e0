"""Prometheus metrics: `PrometheusHooks`, the default `ServerHooks` of `create_app`.

Every instance has its own `CollectorRegistry` (never the global one), so several
apps in one process (tests) do not clash. `GET /metrics` calls `refresh()` (the
gauges, read at scrape time) and serves `render()`. With several uvicorn workers
each worker has its own metrics: see docs/deploy.md ("Observability").
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    PlatformCollector,
    ProcessCollector,
    generate_latest,
)

from crisp.server.ops.hooks import ServerHooks
from crisp.server.wire.vocabulary import CloseCode
from crisp.store import OPS, Store

CONTENT_TYPE = CONTENT_TYPE_LATEST
SOCKSTAT = "/proc/net/sockstat"
PAGE = os.sysconf("SC_PAGE_SIZE")
ROOM_COUNT_TIMEOUT_S = 1.0

# Seconds. Action -> update is a store round trip or two plus fan-out: 1-100 ms.
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.02, 0.035, 0.05, 0.075, 0.1, 0.25, 0.5, 1.0)
# The scheduler polls at least every 50 ms; more means a busy loop or a slow store.
LATENESS_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
STORE_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0)

# Known close codes get their own label value; anything else a client sends is "other".
CLOSE_CODES = frozenset(int(c) for c in CloseCode)


def tcp_sockstat(path: str = SOCKSTAT) -> dict[str, int]:
    """The `TCP:` line of `/proc/net/sockstat` (`inuse`, `orphan`, `tw`, `alloc`,
    `mem` in pages), or {} where there is none."""
    try:
        with open(path) as f:
            for line in f:
                if line.startswith("TCP:"):
                    parts = line.split()[1:]
                    return {parts[i]: int(parts[i + 1]) for i in range(0, len(parts) - 1, 2)}
    except (OSError, ValueError):
        pass
    return {}


def close_label(close_code: int | None) -> str:
    """The `code` label of `crisp_ws_closed_total` (bounded set of values)."""
    if close_code is None:
        return "none"
    return str(int(close_code)) if close_code in CLOSE_CODES else "other"


class PrometheusHooks(ServerHooks):
    """Counts and times what the server reports through its hooks."""

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        reg = registry if registry is not None else CollectorRegistry()
        self.registry = reg
        ProcessCollector(registry=reg)
        PlatformCollector(registry=reg)
        self.rooms_active = Gauge(
            "crisp_rooms_active", "Live rooms in the store (all processes)", registry=reg
        )
        self.players_connected = Gauge(
            "crisp_players_connected", "Websockets holding a seat on this process", registry=reg
        )
        self.rooms_created = Counter(
            "crisp_rooms_created_total", "Rooms created on this process", registry=reg
        )
        self.players_joined = Counter(
            "crisp_players_joined_total", "Players who joined a room over HTTP", registry=reg
        )
        self.actions = Counter(
            "crisp_actions_total", "Client actions handled, by type", ["type"], registry=reg
        )
        self.errors = Counter(
            "crisp_errors_total", "Error messages sent on websockets, by code", ["code"],
            registry=reg,
        )
        self.http_errors = Counter(
            "crisp_http_errors_total", "HTTP error answers, by status and code",
            ["status", "code"], registry=reg,
        )
        self.action_update_seconds = Histogram(
            "crisp_action_update_seconds",
            "From receiving an accepted action to sending its update to the actor",
            buckets=LATENCY_BUCKETS, registry=reg,
        )
        self.timer_lateness = Histogram(
            "crisp_timer_lateness_seconds",
            "How late the scheduler applied a room deadline, versus its due time",
            buckets=LATENESS_BUCKETS, registry=reg,
        )
        self.store_seconds = Histogram(
            "crisp_store_op_seconds", "Store call latency, by operation", ["op"],
            buckets=STORE_BUCKETS, registry=reg,
        )
        self.store_failures = Counter(
            "crisp_store_failures_total", "Failed store calls, by operation", ["op"],
            registry=reg,
        )
        self.ws_opens = Counter(
            "crisp_ws_opened_total", "Websockets that passed hello", registry=reg
        )
        self.ws_closes = Counter(
            "crisp_ws_closed_total", "Websockets (past hello) that ended, by close code",
            ["code"], registry=reg,
        )
        self.ws_refusals = Counter(
            "crisp_ws_refused_total", "Websockets refused before or at hello, by reason",
            ["reason"], registry=reg,
        )
        self.updates = Counter(
            "crisp_updates_total", "Room changes queued to local sockets", registry=reg
        )
        self.conflicts = Counter(
            "crisp_save_conflicts_total", "Compare-and-set saves that lost a race (retried)",
            registry=reg,
        )
        self.computer_moves = Counter(
            "crisp_computer_moves_total",
            "Computer moves this process made and saved (R17), by action type", ["type"],
            registry=reg,
        )
        self.limited_count = Counter(
            "crisp_limited_total",
            "Requests, hellos and messages refused for a spent per-client budget, by budget",
            ["budget"], registry=reg,
        )
        self.dropped = Counter(
            "crisp_connections_dropped_total",
            "TCP connections closed at the edge (caps, timeouts, bad frames), by reason",
            ["reason"], registry=reg,
        )
        self.suppressed = Counter(
            "crisp_log_suppressed_total",
            "Repeated log lines left out by the log throttle, by event", ["event"], registry=reg,
        )
        # the kernel's side of the sockets (issue 39), read at scrape time
        self._kernel_queue: Callable[[], int] | None = None
        self.send_queue = Gauge(
            "crisp_socket_send_queue_bytes",
            "Bytes in the kernel send queues of this process's connections "
            "(written, not yet acknowledged)", registry=reg,
        )
        self.tcp_orphans = Gauge(
            "crisp_tcp_orphans", "TCP sockets the host holds with no process "
            "(/proc/net/sockstat: orphan)", registry=reg,
        )
        self.tcp_memory = Gauge(
            "crisp_tcp_memory_bytes", "The host's TCP buffer memory "
            "(/proc/net/sockstat: mem, in bytes)", registry=reg,
        )
        for op in OPS:  # every series exists from the start, at zero
            self.store_seconds.labels(op)
            self.store_failures.labels(op)

    # ---- scraping ----

    async def refresh(self, store: Store, players: int) -> None:
        """Set the gauges (called by GET /metrics). A store that does not answer
        within a second leaves `crisp_rooms_active` at its last value."""
        self.players_connected.set(players)
        self.refresh_kernel()
        with contextlib.suppress(Exception):
            async with asyncio.timeout(ROOM_COUNT_TIMEOUT_S):
                self.rooms_active.set(await store.room_count())

    def watch_sockets(self, kernel_queue: Callable[[], int]) -> None:
        self._kernel_queue = kernel_queue

    def refresh_kernel(self) -> None:
        """Set the gauges of the kernel's side of the sockets (issue 39)."""
        if self._kernel_queue is not None:
            with contextlib.suppress(Exception):
                self.send_queue.set(self._kernel_queue())
        tcp = tcp_sockstat()
        if tcp:
            self.tcp_orphans.set(tcp.get("orphan", 0))
            self.tcp_memory.set(tcp.get("mem", 0) * PAGE)

    def render(self) -> bytes:
        """The registry in the Prometheus text format."""
        return generate_latest(self.registry)

    # ---- hooks ----

    def room_created(self, room_code: str) -> None:
        self.rooms_created.inc()

    def player_joined(self, room_code: str, player: str) -> None:
        self.players_joined.inc()

    def http_error(self, status: int, error_code: str) -> None:
        self.http_errors.labels(str(status), error_code).inc()

    def ws_opened(self, room_code: str, player: str) -> None:
        self.ws_opens.inc()

    def ws_closed(self, room_code: str, player: str | None, close_code: int | None) -> None:
        self.ws_closes.labels(close_label(close_code)).inc()

    def ws_refused(self, reason: str) -> None:
        self.ws_refusals.labels(reason).inc()

    def action(self, room_code: str, kind: str, seconds: float, error: str | None) -> None:
        self.actions.labels(kind).inc()

    def action_update(self, room_code: str, kind: str, seconds: float) -> None:
        self.action_update_seconds.observe(seconds)

    def error_sent(self, error_code: str) -> None:
        self.errors.labels(error_code).inc()

    def updates_sent(self, room_code: str, count: int) -> None:
        self.updates.inc(count)

    def save_conflict(self, room_code: str) -> None:
        self.conflicts.inc()

    def timer_fired(self, room_code: str, lateness_ms: int) -> None:
        self.timer_lateness.observe(lateness_ms / 1000)

    def computer_moved(self, room_code: str, player: str, kind: str) -> None:
        self.computer_moves.labels(kind).inc()

    def limited(self, budget: str) -> None:
        self.limited_count.labels(budget).inc()

    def connection_dropped(self, reason: str) -> None:
        self.dropped.labels(reason).inc()

    def log_suppressed(self, event: str, count: int) -> None:
        self.suppressed.labels(event).inc(count)

    def store_op(self, op: str, seconds: float, ok: bool) -> None:
        self.store_seconds.labels(op).observe(seconds)
        if not ok:
            self.store_failures.labels(op).inc()
