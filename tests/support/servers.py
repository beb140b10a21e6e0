"""Live Crisp servers for the tests: in a thread of the test process (its app and
store at hand) or as a `crisp serve` subprocess (crisp.bench.procs; it can be
SIGKILLed), both `LiveServer`s with `base`, `ws_base` and `http()`."""

from __future__ import annotations

import asyncio
import os
import sys
import threading
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from subprocess import Popen
from typing import Any, TypeVar

import httpx
import uvicorn

from crisp.bench.procs import CrispServer, free_port, start_crisp
from crisp.server.app import create_app
from crisp.server.main import uvicorn_options
from crisp.server.ops.hooks import ServerHooks
from crisp.server.ops.settings import Settings

T = TypeVar("T")
LOCKSTEP_MS = 500  # the most one process's manual clock runs ahead of another's
ROOT = Path(__file__).resolve().parents[2]
# The test servers' message rates: the kit's players move far faster than people,
# and every test client comes from one address. The tests of the seat rate and the
# client rate (tests/edge, test_edge_ws, test_server_ws) set production values.
KIT_RATE_PER_S = 200  # a seat's messages per second (real time)
KIT_CLIENT_RATE_PER_S = 100_000  # all sockets of one address, per second


class LiveServer:
    """Base: an HTTP/websocket server at `base`. With `manual_clock` its game time
    moves only when a test moves it (`advance`; docs/server.md, "Time in tests")."""

    base: str
    manual_clock: bool = False

    @property
    def ws_base(self) -> str:
        return self.base.replace("http://", "ws://")

    def http(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(base_url=self.base, trust_env=False, timeout=10, verify=False)

    async def clock(self, room: str | None = None) -> dict[str, Any]:
        """The server's clock: {"now", "due" (the store's next room deadline), and with
        `room`, "version" (that room's stored version)}. Real time without a manual
        clock (no "due")."""
        if not self.manual_clock:
            return {"now": time.time_ns() // 1_000_000, "due": None}
        params = {} if room is None else {"room": room}
        async with self.http() as client:
            r = await client.get("/api/test/clock", params=params)
        assert r.status_code == 200, r.text
        return dict(r.json())

    async def now_ms(self) -> int:
        """The server's game time now."""
        return int((await self.clock())["now"])

    async def advance(
        self, ms: int | None = None, *, to: int | None = None, room: str | None = None
    ) -> dict[str, Any]:
        """Move the manual clock `ms` forward (or to `to`); returns once every deadline
        due by then has been applied and its updates written (the answer of
        `clock(room)` after the move)."""
        assert self.manual_clock, "this server runs on real time"
        body: dict[str, Any] = {}
        if ms is not None:
            body["advance_ms"] = ms
        if to is not None:
            body["to_ms"] = to
        if room is not None:
            body["room"] = room
        async with self.http() as client:
            r = await client.post("/api/test/clock", json=body, timeout=30)
        assert r.status_code == 200, r.text
        return dict(r.json())


async def advance_all(
    servers: list[LiveServer], ms: int = 0, *, to: int | None = None, room: str | None = None
) -> list[dict[str, Any]]:
    """Move the manual clocks of several processes on one store together to `ms` past
    the latest of them (0: only line them up), or to `to`, in steps of at most `LOCKSTEP_MS`, so
    that no process runs ahead of another by more than a step (a process far ahead
    would see the others' leases run out, R17.3); their last answers, in order."""
    now = max([await s.now_ms() for s in servers])
    target = max(now + ms, to or 0)
    answers: list[dict[str, Any]] = []
    while True:
        now = min(target, now + LOCKSTEP_MS) if answers else now
        answers = [await s.advance(to=now, room=room) for s in servers]
        if now >= target:
            return answers


class ThreadServer(LiveServer):
    """uvicorn running `create_app(settings, hooks=hooks)` in a background thread (own
    event loop)."""

    def __init__(self, settings: Settings, hooks: ServerHooks | None = None) -> None:
        self.settings = settings
        self.manual_clock = settings.clock == "manual"
        self.app = create_app(settings, hooks=hooks)
        config = uvicorn.Config(
            self.app,
            host="127.0.0.1",
            port=0,
            log_level="warning",
            lifespan="on",
            **uvicorn_options(),  # as `crisp serve` runs: the guarded protocols (transport.py)
        )
        self.server = uvicorn.Server(config)
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        try:
            self.loop.run_until_complete(self.server.serve())
        finally:
            self.loop.close()

    async def call(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run a coroutine on the server's event loop (e.g. a store call) and await it."""
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, self.loop))

    @property
    def ctx(self) -> Any:
        """The running app's ServerContext (store, rooms, hub, settings)."""
        return self.app.state.ctx

    def start(self) -> ThreadServer:
        self.thread.start()
        deadline = time.monotonic() + 15
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("test server did not start")
            time.sleep(0.01)  # poll interval: uvicorn's `started`
        port = self.server.servers[0].sockets[0].getsockname()[1]
        self.base = f"http://127.0.0.1:{port}"
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(8)
        if self.thread.is_alive():  # report what blocks the shutdown, then force it
            self.loop.call_soon_threadsafe(_dump_tasks, self.loop)
            time.sleep(0.5)  # the dump is printed by the server's loop
            self.server.force_exit = True
            self.thread.join(8)
            raise AssertionError("test server did not shut down in 8 s (tasks dumped to stderr)")


def _dump_tasks(loop: asyncio.AbstractEventLoop) -> None:
    for task in asyncio.all_tasks(loop):
        print(f"--- {task.get_name()}", file=sys.stderr)
        task.print_stack(file=sys.stderr)


class ProcServer(LiveServer):
    """`python -m crisp serve` in a subprocess (so it can be SIGKILLed), with the CRISP_*
    settings `env` and none from the test runner's environment."""

    def __init__(self, env: dict[str, str], log_path: Path | None = None) -> None:
        self.env = env
        self.manual_clock = env.get("CRISP_CLOCK") == "manual"
        self.log_path = log_path
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.server: CrispServer | None = None

    @property
    def proc(self) -> Popen[bytes] | None:
        return None if self.server is None else self.server.proc

    def start(self, timeout: float = 20.0) -> ProcServer:
        env = {k: v for k, v in os.environ.items() if not k.startswith("CRISP_")}
        env.update({"CRISP_LOG_LEVEL": "warning", **self.env})
        self.server = start_crisp(
            env, port=self.port, timeout=timeout, cwd=ROOT, log=self.log_path
        )
        return self

    async def log_shows(self, pred: Callable[[str], bool], timeout: float = 15.0) -> str:
        """Wait until the log file's text satisfies `pred` (a state of the server's own:
        its log); returns the text."""
        assert self.log_path is not None
        deadline = time.monotonic() + timeout
        while True:
            text = self.log_path.read_text() if self.log_path.exists() else ""
            if pred(text):
                return text
            if time.monotonic() > deadline:
                raise AssertionError(f"the log never showed it; last lines:\n{text[-2000:]}")
            await asyncio.sleep(0.05)  # poll interval of the file

    def kill(self) -> None:
        """SIGKILL: a crash, nothing cleaned up."""
        if self.server is not None:
            self.server.kill()

    def stop(self, timeout: float = 10.0) -> None:
        """SIGTERM; fails the test if the server ignores it for `timeout` seconds."""
        if self.server is not None and not self.server.stop(timeout):
            log = self.server.tail()
            raise AssertionError(f"server ignored SIGTERM for {timeout} s; log:\n{log}")
