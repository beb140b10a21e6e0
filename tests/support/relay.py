"""A delaying TCP relay: a slow network between a test's client and a server (R18.4).

    relay = await DelayRelay(server, delay_s=0.15).start()
    slow = relay.server        # a LiveServer whose websockets go through the relay
    p = await Player.join(slow, code, pid, token)

Every chunk of bytes is held `delay_s` in each direction (real time: the delay is
the subject), in order, so a websocket through it has a round trip of at least
twice the delay; the server measures it with its pings and sees the same delay a
phone on a mobile network would give. HTTP calls and the manual clock of
`relay.server` go straight to the server (only the websockets are slowed).

`relay_in_thread(server, delay_s)` runs one on an event loop of its own, for the
browser tests (sync Playwright): a page opened at `http://127.0.0.1:<port>` has
everything slowed, its page, its files and its websocket.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterator
from urllib.parse import urlsplit

from .servers import LiveServer


class _Relayed(LiveServer):
    """`inner`, whose websockets are reached through the relay at `port`."""

    def __init__(self, inner: LiveServer, port: int) -> None:
        self.inner = inner
        self.base = inner.base  # HTTP and the test clock: straight to the server
        self.manual_clock = inner.manual_clock
        self._ws_base = f"ws://127.0.0.1:{port}"

    @property
    def ws_base(self) -> str:
        return self._ws_base


class DelayRelay:
    """Listens on a port of 127.0.0.1 and relays every connection to `target`,
    holding each chunk `delay_s` each way."""

    def __init__(self, target: LiveServer, delay_s: float) -> None:
        url = urlsplit(target.base)
        assert url.hostname is not None and url.port is not None
        self.target = target
        self.host, self.target_port = url.hostname, url.port
        self.delay_s = delay_s
        self.port = 0
        self._listener: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def server(self) -> LiveServer:
        assert self.port, "start() the relay first"
        return _Relayed(self.target, self.port)

    async def start(self) -> DelayRelay:
        self._listener = await asyncio.start_server(self._connection, "127.0.0.1", 0)
        self.port = self._listener.sockets[0].getsockname()[1]
        return self

    async def close(self) -> None:
        if self._listener is not None:
            self._listener.close()
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    async def _connection(self, down_r: asyncio.StreamReader, down_w: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            up_r, up_w = await asyncio.open_connection(self.host, self.target_port)
            try:
                await asyncio.gather(self._pipe(down_r, up_w), self._pipe(up_r, down_w))
            finally:
                up_w.close()
        except (ConnectionError, OSError):
            pass  # one side went away: the other is closed below
        except asyncio.CancelledError:
            pass  # the relay is closing (asyncio's stream server logs a cancelled handler)
        finally:
            down_w.close()
            self._tasks.discard(task)

    async def _pipe(self, src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
        """Copy `src` to `dst`, each chunk `delay_s` after it was read, in order; an
        end of stream is passed on the same way."""
        loop = asyncio.get_running_loop()
        held: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()

        async def read() -> None:
            while True:
                data = await src.read(65536)
                held.put_nowait((loop.time() + self.delay_s, data))
                if not data:
                    return

        async def write() -> None:
            while True:
                due, data = await held.get()
                wait = due - loop.time()
                if wait > 0:
                    await asyncio.sleep(wait)  # the network's delay itself (real time)
                if not data:
                    with contextlib.suppress(OSError, RuntimeError):
                        dst.write_eof()
                    return
                dst.write(data)
                await dst.drain()

        await asyncio.gather(read(), write())


@contextlib.contextmanager
def relay_in_thread(target: LiveServer, delay_s: float) -> Iterator[DelayRelay]:
    """A `DelayRelay` on an event loop in a thread of its own, until the block ends."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:
        relay = asyncio.run_coroutine_threadsafe(
            DelayRelay(target, delay_s).start(), loop).result(10)  # fmt: skip
        try:
            yield relay
        finally:
            asyncio.run_coroutine_threadsafe(relay.close(), loop).result(10)
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()
