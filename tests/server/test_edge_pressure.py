"""The edge under pressure (issue 23): a JSON scan linear in the text's length,
websockets that never say hello evicted like silent TCP connections, a per-address
connection rate, and logs that one address cannot flood with websocket handshakes.
Against `crisp serve` (a process of its own: its file limit, its logs)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import time
from pathlib import Path

import httpx
import pytest

from crisp.server.edge.guards import MAX_DEPTH, loads_bounded
from tests.server.test_edge_procs import _closed_within, _low_fd_server, _silent

CAP = 4096  # CRISP_MAX_MESSAGE_BYTES's default: the largest text the guard ever scans


def _best(fn: object, arg: str, rounds: int = 30) -> float:
    """The fastest of `rounds` calls (seconds): the machine's noise only adds time."""
    best = float("inf")
    for _ in range(rounds):
        started = time.perf_counter()
        with contextlib.suppress(ValueError, RecursionError):
            fn(arg)  # type: ignore[operator]
        best = min(best, time.perf_counter() - started)
    return best


def _hostile(size: int) -> dict[str, str]:
    """The texts that cost the old scan most (an unterminated string of escapes), and
    others that make the scan do all its work, each `size` characters."""
    tail = "[" * (MAX_DEPTH + 1)
    return {
        "escapes": ('"\\' * size)[: size - len(tail)] + tail,
        "brackets": "[" * size,
        "quotes": ('"[' * size)[:size],
        "mixed": ('["\\"", [' * size)[:size],
    }


def test_the_nesting_scan_is_linear_up_to_the_message_cap() -> None:
    """Every hostile text of every size up to the cap, timed beside `json.loads` of a
    message of the same size (the same machine, the same moment): the scan's time
    grows like the size (16 times the text, at most twice that in time; the old
    scan's grew with its square: 60 ms at 4 KB), and at the cap it costs a bounded
    number of `json.loads`."""
    sizes = [256, 512, 1024, 2048, CAP]
    scans: dict[str, list[float]] = {}
    ratio_at_cap: dict[str, float] = {}
    for size in sizes:
        message = json.dumps({"type": "hello", "token": "t" * (size - 30)})
        loads = _best(json.loads, message)
        for name, text in _hostile(size).items():
            assert len(text) == size
            scans.setdefault(name, []).append(_best(loads_bounded, text))
            if size == CAP:
                ratio_at_cap[name] = scans[name][-1] / loads
    for name, times in scans.items():
        growth = times[-1] / max(times[0], 1e-7)
        assert growth <= 2 * CAP / sizes[0], (name, times)  # linear (quadratic: 256x)
        assert ratio_at_cap[name] < 200, (name, ratio_at_cap)


def test_the_nesting_guard_refuses_only_what_is_too_deep() -> None:
    assert loads_bounded('{"type": "hello", "token": "[[[[[[[[[[[[[[[[[[[[[["}') == {
        "type": "hello", "token": "[[[[[[[[[[[[[[[[[[[[[["}
    assert loads_bounded("[" * MAX_DEPTH + "]" * MAX_DEPTH) is not None
    for text in ("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), '"\\' * 2000 + "[" * 17,
                 '{"a":' * 17 + "1" + "}" * 17):
        with pytest.raises(ValueError):
            loads_bounded(text)


async def _prehello(port: int, source: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A websocket that completes its handshake and never says hello."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
    writer.write(
        b"GET /ws/ABCD HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
        b"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        b"Sec-WebSocket-Version: 13\r\n\r\n"
    )
    await writer.drain()
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
    assert head.startswith(b"HTTP/1.1 101"), head
    return reader, writer


async def test_websockets_that_never_say_hello_cannot_keep_healthz_out(tmp_path: Path) -> None:
    """300 descriptors (a cap of 172 connections): ten addresses open 30 websockets
    each that never say hello, 300 in all. /healthz answers every time meanwhile (a
    pre-hello socket is evicted like a silent TCP one), and under that pressure a
    pre-hello socket has one second, not five, for its hello (4401)."""
    with _low_fd_server(tmp_path, 300, CRISP_HELLO_TIMEOUT_S="5") as server:
        port = server.port
        held = []
        started = time.monotonic()
        for host in range(2, 12):
            for _ in range(30):
                # closed at once when at the cap with nothing older to evict
                with contextlib.suppress(ConnectionError, asyncio.IncompleteReadError):
                    held.append(await _prehello(port, f"127.0.0.{host}"))
        async with httpx.AsyncClient(base_url=server.base, trust_env=False, timeout=2) as c:
            for _ in range(10):
                assert (await c.get("/healthz")).status_code == 200
        # the pressed hello window: well before the configured 5 s, every one is gone
        closed = await asyncio.gather(*(_closed_within(r, 3.0) for r, _ in held))
        assert all(closed)
        assert time.monotonic() - started < 5 + 3
        for _, writer in held:
            writer.close()
        scraped = httpx.get(server.base + "/metrics", trust_env=False).text
        assert re.search(r'crisp_connections_dropped_total\{reason="evicted"\} [1-9]', scraped)
        assert re.search(r'crisp_ws_refused_total\{reason="hello_timeout"\} [1-9]', scraped)
        assert "Traceback" not in server.output()


async def test_one_address_opens_connections_at_a_bounded_rate(tmp_path: Path) -> None:
    """CRISP_CONNECT_RATE_PER_S=5 (a burst of 10): 40 connections opened at once from
    one address, the ones over the burst closed at once; another address is not held
    back by it."""
    with _low_fd_server(tmp_path, 1024, CRISP_CONNECT_RATE_PER_S="5") as server:
        flood = [await _silent(server.port, "127.0.0.2") for _ in range(40)]
        closed = await asyncio.gather(*(_closed_within(r, 0.5) for r, _ in flood))
        assert 40 - 10 - 3 <= sum(closed) <= 40 - 10, sum(closed)  # a little refill
        other = await _silent(server.port, "127.0.0.3")
        assert not await _closed_within(other[0], 0.3)
        for _, writer in [*flood, other]:
            writer.close()
        scraped = httpx.get(server.base + "/metrics", trust_env=False).text
        assert re.search(r'crisp_connections_dropped_total\{reason="connect_rate"\} [1-9]',
                         scraped)


async def test_websocket_handshakes_cannot_flood_the_log(tmp_path: Path) -> None:
    """200 websockets from one address in a row (each refused at hello): uvicorn's
    line per handshake goes through the per-address access throttle, so the log holds
    at most its 100 lines of that address per interval, not 200."""
    with _low_fd_server(tmp_path, 1024, CRISP_LOG_INTERVAL_S="60") as server:
        for _ in range(200):
            reader, writer = await _prehello(server.port, "127.0.0.4")
            writer.write(b"\x88\x80\x00\x00\x00\x00")  # a masked close frame
            await writer.drain()
            await _closed_within(reader, 2.0)
            writer.close()
        lines = [x for x in server.output().splitlines() if '"WebSocket /ws/' in x]
        assert 1 <= len(lines) <= 100, len(lines)
