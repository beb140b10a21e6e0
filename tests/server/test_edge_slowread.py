"""Seats that stop reading (issue 39), with real sockets on loopback.

A client with a 4 KB receive buffer says hello and stops reading while its host
changes the options: the server's socket for it holds at most its capped
`SO_SNDBUF` in the kernel and a bounded user-space buffer; when the client reads
again it gets the latest table, not every update it missed. A socket the server
closes while its peer does not read is aborted (an RST): no orphan keeps its
send queue. The kernel's side is read from `/proc/net/tcp` (the server's socket
for the client's port: its state and send queue) and `/proc/net/sockstat`.
"""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import Callable
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection, connect

from crisp.server.edge import closing, sockbuf
from crisp.server.main import uvicorn_options
from crisp.server.wire.vocabulary import CloseCode
from tests.support import servers
from tests.support.player import Player, close_all
from tests.support.rooms import create_room, join_room
from tests.support.servers import LiveServer, ProcServer, ThreadServer

SNDBUF = 32768  # CRISP_SOCKET_SNDBUF_BYTES's default: the kernel books twice that
UPDATES = 240  # ~1.8 KB each: over 4 times what the kernel and user space buffers hold
TCP_STATES = {"01": "ESTABLISHED", "04": "FIN_WAIT1", "05": "FIN_WAIT2", "06": "TIME_WAIT",
              "07": "CLOSE", "08": "CLOSE_WAIT", "09": "LAST_ACK", "0B": "CLOSING"}


def server_socket(port: int, peer_port: int) -> tuple[str, int] | None:
    """The server's socket (local `port`, remote `peer_port` on loopback) in
    /proc/net/tcp: (its state, its send queue in bytes), or None once it is gone."""
    with open("/proc/net/tcp") as f:
        next(f)
        for line in f:
            parts = line.split()
            local, remote, state, queues = parts[1], parts[2], parts[3], parts[4]
            if int(local.split(":")[1], 16) == port and int(remote.split(":")[1], 16) == peer_port:
                return TCP_STATES.get(state, state), int(queues.split(":")[0], 16)
    return None


async def slow_seat(
    server: LiveServer, code: str, token: str
) -> tuple[ClientConnection, socket.socket]:
    """A seat that says hello and never reads again: (its websocket, its socket)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.setblocking(False)
    port = int(server.base.rsplit(":", 1)[1])
    await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", port))
    ws = await connect(f"{server.ws_base}/ws/{code}", sock=sock, proxy=None,
                       ping_interval=None, max_queue=1, open_timeout=10, max_size=None)
    ws.transport.pause_reading()  # never read again (until the test says so)
    await ws.send(json.dumps({"type": "hello", "token": token}))
    return ws, sock


async def busy_lobby(spawn_server: Callable[..., ThreadServer], **settings: Any) -> tuple[
    ThreadServer, int, Player, str, ClientConnection, socket.socket
]:  # fmt: skip
    """A server, its port, a reading host, and a slow seat (its id, websocket, socket)."""
    # the host changes the options as fast as the server answers
    server = spawn_server(rate_per_s=1000, rate_burst=2 * UPDATES, **settings)
    return (server, *await fill(server))


async def fill(
    server: LiveServer,
) -> tuple[int, Player, str, ClientConnection, socket.socket]:
    """A lobby on `server` whose slow seat has been sent `UPDATES` updates."""
    code, hpid, htok = await create_room(server, "Ana")
    spid, stok = await join_room(server, code, "Ben")
    host = await Player.join(server, code, hpid, htok)
    ws, sock = await slow_seat(server, code, stok)
    await host.wait(lambda p: any(q["connected"] for q in p.view["players"] if q["id"] == spid),
                    what="the slow seat connected")
    for i in range(UPDATES):
        await host.act("options", limit=50 if i % 2 else 100)
    return int(server.base.rsplit(":", 1)[1]), host, spid, ws, sock


async def wait_for(check: Callable[[], bool], timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.02)


def metric(text: str, name: str) -> float:
    for line in text.splitlines():
        if line.startswith(name + " ") or line.startswith(name + "{"):
            return float(line.rsplit(" ", 1)[1])
    raise AssertionError(f"{name} not in /metrics")


async def test_a_seat_that_stops_reading_is_bounded_and_then_gets_the_latest_table(
    spawn_server: Callable[..., ThreadServer],
) -> None:
    server, port, host, _spid, ws, sock = await busy_lobby(spawn_server)
    peer = sock.getsockname()[1]
    found = server_socket(port, peer)
    assert found is not None and found[0] == "ESTABLISHED", found
    # the kernel holds at most the capped buffer (Linux books twice SO_SNDBUF)
    assert 0 < found[1] <= 2 * SNDBUF, found

    def transports() -> list[asyncio.Transport]:
        return [t for t in server.ctx.guard.clients
                if t.get_extra_info("peername")[1] == peer]

    (transport,) = transports()
    assert sockbuf.send_buffer(transport) == 2 * SNDBUF
    # user space: at most the high-water mark and the frame that crossed it
    assert transport.get_write_buffer_size() <= sockbuf.WRITE_HIGH_WATER + 4096
    async with server.http() as c:
        text = (await c.get("/metrics")).text
    assert metric(text, "crisp_socket_send_queue_bytes") >= found[1]
    metric(text, "crisp_tcp_orphans")
    assert metric(text, "crisp_tcp_memory_bytes") >= 0  # pages the host books (may round to 0)

    latest = host.version
    ws.transport.resume_reading()  # it reads again: the latest table, not a backlog
    seen = 0
    while True:
        frame = json.loads(await asyncio.wait_for(ws.recv(), 5))
        if frame["type"] == "update":
            seen += 1
            if frame["view"]["version"] >= latest:
                break
    # what the buffers held (some 60 updates), then the latest: not all of them
    assert seen < UPDATES // 2, f"{seen} updates: a backlog"
    await ws.close()
    await close_all([host])


async def test_a_socket_closed_while_its_peer_does_not_read_is_aborted_not_orphaned(
    spawn_server: Callable[..., ThreadServer], monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(closing, "ABORT_GRACE_S", 0.2)  # real time, not the game's
    server, port, host, spid, ws, sock = await busy_lobby(spawn_server)
    peer = sock.getsockname()[1]
    assert server_socket(port, peer) is not None
    await host.act("kick", player=spid)  # the server closes the slow seat's socket
    # gone from the kernel at once: no FIN_WAIT1 orphan holding its send queue
    await wait_for(lambda: server_socket(port, peer) is None)
    with pytest.raises(ConnectionResetError):  # an RST: what it had was dropped
        while sock.recv(1 << 20):  # what it had not read yet, then the reset
            pass
    async with server.http() as c:
        text = (await c.get("/metrics")).text
    assert 'crisp_connections_dropped_total{reason="not_reading"} 1.0' in text
    ws.transport.abort()
    await close_all([host])


async def test_a_peer_that_reads_is_closed_cleanly_not_aborted(
    spawn_server: Callable[..., ThreadServer],
) -> None:
    server = spawn_server()
    code, hpid, htok = await create_room(server, "Ana")
    spid, stok = await join_room(server, code, "Ben")
    host = await Player.join(server, code, hpid, htok)
    ben = await Player.join(server, code, spid, stok)
    await host.act("kick", player=spid)
    assert await ben.wait_closed() == CloseCode.KICKED
    async with server.http() as c:
        text = (await c.get("/metrics")).text
    assert 'reason="not_reading"' not in text
    await close_all([host, ben])


async def test_crisp_serve_aborts_a_seat_that_does_not_read(
    spawn_crisp: Callable[..., ProcServer],
) -> None:
    """The same on `crisp serve` (uvloop's transports): the kernel's side bounded, the
    close an abort, counted."""
    server = spawn_crisp(CRISP_RATE_PER_S="1000", CRISP_RATE_BURST=str(2 * UPDATES))
    port, host, spid, ws, sock = await fill(server)
    peer = sock.getsockname()[1]
    found = server_socket(port, peer)
    assert found is not None and 0 < found[1] <= 2 * SNDBUF, found
    await host.act("kick", player=spid)
    await wait_for(lambda: server_socket(port, peer) is None, timeout=10)
    async with server.http() as c:
        text = (await c.get("/metrics")).text
    assert 'crisp_connections_dropped_total{reason="not_reading"} 1.0' in text
    ws.transport.abort()
    await close_all([host])


async def test_a_peer_that_stops_reading_is_closed_by_the_keepalive_then_aborted(
    spawn_server: Callable[..., ThreadServer], monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Nothing is written to its paused transport, not the keepalive ping either, but
    the ping's pong deadline still runs: the socket is closed and aborted. uvicorn's
    keepalive (20 s and 20 s in production) is made 0.2 s here: real time, which the
    game clock does not move."""
    monkeypatch.setattr(closing, "ABORT_GRACE_S", 0.1)
    options = uvicorn_options()
    monkeypatch.setattr(servers, "uvicorn_options",
                        lambda: {**options, "ws_ping_interval": 0.2, "ws_ping_timeout": 0.2})
    server, port, host, _spid, ws, sock = await busy_lobby(spawn_server)
    peer = sock.getsockname()[1]
    await wait_for(lambda: server_socket(port, peer) is None)
    assert not host.closed  # the host reads: it answers every ping
    async with server.http() as c:
        text = (await c.get("/metrics")).text
    assert 'crisp_connections_dropped_total{reason="not_reading"} 1.0' in text
    ws.transport.abort()
    await close_all([host])
