"""Test kit for the server suite: live servers (in a thread or a subprocess) and
websocket players that record every frame they receive."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import httpx
import uvicorn
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from crisp.engine import FULL_DECK
from crisp.server.app import create_app
from crisp.server.settings import Settings
from crisp.server.ws import HARD_MAX_BYTES

T = TypeVar("T")
ROOT = Path(__file__).resolve().parents[2]
ALL_CARDS = [c.text for c in FULL_DECK]
WAIT = 8.0  # generous default wait for a frame (slow CI)


def deck(*top: str) -> list[str]:
    """A 52-card deck whose first cards are `top` (index 0 = top of the stock)."""
    rest = [c for c in ALL_CARDS if c not in top]
    assert len(set(top)) == len(top) and len(rest) + len(top) == 52
    return [*top, *rest]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# --------------------------------------------------------------------------- servers


class LiveServer:
    """Base: an HTTP/websocket server at `base`."""

    base: str

    @property
    def ws_base(self) -> str:
        return self.base.replace("http://", "ws://")

    def http(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(base_url=self.base, trust_env=False, timeout=10, verify=False)


class ThreadServer(LiveServer):
    """uvicorn running `create_app(settings)` in a background thread (own event loop)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.app = create_app(settings)
        config = uvicorn.Config(
            self.app,
            host="127.0.0.1",
            port=0,
            ws_max_size=HARD_MAX_BYTES,
            log_level="warning",
            lifespan="on",
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
            time.sleep(0.01)
        port = self.server.servers[0].sockets[0].getsockname()[1]
        self.base = f"http://127.0.0.1:{port}"
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(8)
        if self.thread.is_alive():  # report what blocks the shutdown, then force it
            self.loop.call_soon_threadsafe(_dump_tasks, self.loop)
            time.sleep(0.5)
            self.server.force_exit = True
            self.thread.join(8)
            raise AssertionError("test server did not shut down in 8 s (tasks dumped to stderr)")


def _dump_tasks(loop: asyncio.AbstractEventLoop) -> None:
    for task in asyncio.all_tasks(loop):
        print(f"--- {task.get_name()}", file=sys.stderr)
        task.print_stack(file=sys.stderr)


@dataclass
class ProcServer(LiveServer):
    """`python -m crisp serve` in a subprocess (so it can be SIGKILLed)."""

    env: dict[str, str]
    port: int = field(default_factory=free_port)
    proc: subprocess.Popen[bytes] | None = None
    log_path: Path | None = None

    def start(self, timeout: float = 20.0) -> ProcServer:
        env = {**os.environ, **self.env, "CRISP_PORT": str(self.port), "CRISP_HOST": "127.0.0.1"}
        env.setdefault("CRISP_LOG_LEVEL", "warning")
        env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
        self.base = f"http://127.0.0.1:{self.port}"
        out = open(self.log_path, "ab") if self.log_path else subprocess.DEVNULL  # noqa: SIM115
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "crisp", "serve"],
            env=env,
            cwd=ROOT,
            stdout=out,
            stderr=out,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode}")
            try:
                if httpx.get(self.base + "/healthz", timeout=0.5, trust_env=False).is_success:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
        raise RuntimeError("server subprocess did not become healthy")

    def kill(self) -> None:
        """SIGKILL: a crash, nothing cleaned up."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def stop(self, timeout: float = 10.0) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired as exc:
                self.proc.kill()
                self.proc.wait(5)
                log = self.log_path.read_text()[-3000:] if self.log_path else ""
                message = f"server ignored SIGTERM for {timeout} s; log:\n{log}"
                raise AssertionError(message) from exc


# --------------------------------------------------------------------------- HTTP


async def create_room(
    server: LiveServer, name: str = "Ana", **extra: Any
) -> tuple[str, str, str]:
    """POST /api/rooms -> (code, player_id, token)."""
    async with server.http() as client:
        r = await client.post("/api/rooms", json={"name": name, **extra})
    assert r.status_code == 201, r.text
    body = r.json()
    return body["code"], body["player_id"], body["token"]


async def join_room(server: LiveServer, code: str, name: str) -> tuple[str, str]:
    """POST /api/rooms/{code}/players -> (player_id, token)."""
    async with server.http() as client:
        r = await client.post(f"/api/rooms/{code}/players", json={"name": name})
    assert r.status_code == 201, r.text
    body = r.json()
    return body["player_id"], body["token"]


# --------------------------------------------------------------------------- players

# The event that announces each accepted action (crisp/engine), and whose `player` it
# names: the actor, the `player` field of the message (kick), or nobody (None).
ANSWER_EVENTS: dict[str, tuple[str, str | None]] = {
    "options": ("options", None),
    "start": ("round_started", None),
    "next_round": ("round_started", None),
    "rematch": ("round_started", None),
    "kick": ("left", "player"),
    "ready": ("ready", "actor"),
    "draw": ("drew", "actor"),
    "swap": ("swapped", "actor"),
    "discard": ("discarded", "actor"),
    "jack": ("jack", "actor"),
    "queen": ("queen", "actor"),
    "king": ("king", "actor"),
    "crisp": ("crisp", "actor"),
}
# Errors that cannot name the message they refuse (no `ref`, protocol.md).
UNREFERENCED_ERRORS = frozenset({"rate_limited", "too_large"})


def answers(
    frame: dict[str, Any], kind: str, fields: dict[str, Any], actor: str, ref: str
) -> bool:
    """True if `frame` answers the message `{"type": kind, "id": ref, **fields}` that
    `actor` sent: its refusal, or the update that announces it. For a kind not in
    ANSWER_EVENTS, the first update after sending is taken as the answer."""
    if frame["type"] == "error":
        return frame.get("ref") == ref or (
            "ref" not in frame and frame["code"] in UNREFERENCED_ERRORS
        )
    if frame["type"] != "update":
        return False
    if kind not in ANSWER_EVENTS:
        return True
    event_kind, who = ANSWER_EVENTS[kind]
    player = actor if who == "actor" else fields.get("player") if who == "player" else None
    return any(
        e["kind"] == event_kind
        and (player is None or e.get("player") == player)
        and not e.get("timeout")  # a draw timer's discard is not the player's (R14.2)
        for e in frame["events"]
    )



class Player:
    """One websocket seat. Records every frame; helpers wait for conditions."""

    def __init__(self, ws: ClientConnection, code: str, pid: str, token: str) -> None:
        self.ws = ws
        self.code = code
        self.pid = pid
        self.token = token
        self.frames: list[dict[str, Any]] = []
        self.updates: list[dict[str, Any]] = []  # the `update` frames, in order
        self.errors: list[dict[str, Any]] = []  # the `error` frames, in order
        self.close_code: int | None = None
        self._ids = itertools.count(1)
        self.close_reason: str = ""
        self._changed = asyncio.Condition()
        self._reader = asyncio.create_task(self._read())

    @classmethod
    async def join(
        cls,
        server: LiveServer,
        code: str,
        pid: str,
        token: str,
        *,
        hello: bool = True,
        origin: str | None = None,
    ) -> Player:
        ws = await connect(
            f"{server.ws_base}/ws/{code}",
            proxy=None,
            origin=origin,  # type: ignore[arg-type]
            open_timeout=10,
            max_size=None,
        )
        player = cls(ws, code, pid, token)
        if hello:
            await player.send({"type": "hello", "token": token})
            await player.wait(lambda p: p.updates or p.closed, what="first update")
        return player

    async def _read(self) -> None:
        try:
            async for raw in self.ws:
                assert isinstance(raw, str)
                frame = json.loads(raw)
                async with self._changed:
                    self.frames.append(frame)
                    if frame["type"] == "update":
                        self.updates.append(frame)
                    elif frame["type"] == "error":
                        self.errors.append(frame)
                    self._changed.notify_all()
        except ConnectionClosed:
            pass
        finally:
            rcvd = self.ws.protocol.close_rcvd
            async with self._changed:
                self.close_code = rcvd.code if rcvd is not None else 1006
                self.close_reason = rcvd.reason if rcvd is not None else ""
                self._changed.notify_all()

    # ---- state ----

    @property
    def closed(self) -> bool:
        return self.close_code is not None

    def mark(self) -> int:
        """This point in the stream: the number of updates received so far. Pass it as
        `after=` to wait for something that only an update received later may show."""
        return len(self.updates)

    @property
    def view(self) -> dict[str, Any]:
        ups = self.updates
        assert ups, "no update yet"
        return ups[-1]["view"]  # type: ignore[no-any-return]

    def events(self, kind: str | None = None) -> list[dict[str, Any]]:
        out = [e for u in self.updates for e in u["events"]]
        return out if kind is None else [e for e in out if e["kind"] == kind]

    # ---- waiting ----

    async def wait(
        self, pred: Callable[[Player], Any], timeout: float = WAIT, what: str = "condition"
    ) -> Any:
        async with self._changed:
            try:
                await asyncio.wait_for(self._changed.wait_for(lambda: pred(self)), timeout)
            except TimeoutError:
                last = self.frames[-1] if self.frames else None
                raise AssertionError(
                    f"{self.pid}: timed out waiting for {what}; close={self.close_code}; "
                    f"last frame={json.dumps(last)[:1500]}"
                ) from None
        return pred(self)

    async def wait_view(
        self,
        pred: Callable[[dict[str, Any]], Any],
        timeout: float = WAIT,
        what: str = "view",
        *,
        after: int = 0,
    ) -> dict[str, Any]:
        """Wait until the latest view satisfies `pred`, and it came in an update received
        after mark `after` (so a view from before an action cannot match)."""
        await self.wait(lambda p: len(p.updates) > after and pred(p.view), timeout, what)
        return self.view

    async def wait_event(self, kind: str, after: int = 0, timeout: float = WAIT) -> dict[str, Any]:
        """The first event of `kind` among updates received after index `after`."""

        def find(p: Player) -> dict[str, Any] | None:
            for u in p.updates[after:]:
                for e in u["events"]:
                    if e["kind"] == kind:
                        return e  # type: ignore[no-any-return]
            return None

        result = await self.wait(find, timeout, f"event {kind}")
        return result  # type: ignore[no-any-return]

    async def wait_error(self, after: int = 0, timeout: float = WAIT) -> dict[str, Any]:
        res = await self.wait(lambda p: p.errors[after:] and p.errors[after], timeout, "error")
        return res  # type: ignore[no-any-return]

    async def wait_closed(self, timeout: float = WAIT) -> int:
        await self.wait(lambda p: p.closed, timeout, "close")
        assert self.close_code is not None
        return self.close_code

    async def wait_legal(
        self, kind: str, timeout: float = WAIT, *, after: int = 0
    ) -> dict[str, Any]:
        """Wait until `kind` is legal for this player (in an update received after mark
        `after`), honouring `may_start_at` for draws."""
        if kind == "draw":
            view = await self.wait_view(
                lambda v: v["turn"] is not None
                and v["turn"]["player"] == self.pid
                and v["holding"] is None
                and v["status"] == "playing",
                timeout,
                "my turn",
                after=after,
            )
            start = view["turn"]["may_start_at"]
            delay = (start - time.time() * 1000) / 1000
            if delay > 0:
                await asyncio.sleep(delay + 0.005)
            return view
        return await self.wait_view(
            lambda v: kind in v["legal"], timeout, f"legal {kind}", after=after
        )

    # ---- sending ----

    async def send(self, msg: dict[str, Any] | str | bytes) -> None:
        data = msg if isinstance(msg, str | bytes) else json.dumps(msg)
        await self.ws.send(data)

    async def act(self, kind: str, /, **fields: Any) -> dict[str, Any]:
        """Send action `kind` and return the frame that answers it: the error whose `ref`
        is the message's `id`, or the update that announces the action (ANSWER_EVENTS).
        The server handles a socket's messages in order, but updates of other changes
        may still be on their way when it is sent: those are not the answer. Once this
        returns, `view` is at least as new as the answer."""
        ref = str(fields.pop("id", None) or f"{self.pid}-{next(self._ids)}")
        start = len(self.frames)
        await self.send({"type": kind, "id": ref, **fields})

        def answer(p: Player) -> dict[str, Any] | None:
            for frame in p.frames[start:]:
                if answers(frame, kind, fields, p.pid, ref):
                    return frame
            if p.closed:
                raise AssertionError(f"{p.pid}: closed {p.close_code} before {kind} was answered")
            return None

        found = await self.wait(answer, WAIT, f"the answer to {kind}")
        return found  # type: ignore[no-any-return]

    async def close(self) -> None:
        await self.ws.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._reader, 5)


async def table(
    server: LiveServer, n: int, **create: Any
) -> tuple[str, list[Player]]:
    """A room with `n` connected players (the host first), still in the lobby."""
    names = ["Ana", "Ben", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal"]
    code, pid, token = await create_room(server, names[0], **create)
    seats = [(pid, token)]
    for name in names[1:n]:
        seats.append(await join_room(server, code, name))
    players = [await Player.join(server, code, p, t) for p, t in seats]
    for p in players:
        await p.wait_view(
            lambda v: len(v["players"]) == n and all(x["connected"] for x in v["players"])
        )
    return code, players


async def close_all(players: list[Player]) -> None:
    await asyncio.gather(*(p.close() for p in players), return_exceptions=True)


# --------------------------------------------------------------------------- driving

Policy = Callable[[Player, dict[str, Any], int], dict[str, Any] | None]


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def may_draw(p: Player, v: dict[str, Any], now: int) -> bool:
    """True if this player may draw now (legal, or legal by the clock: may_start_at)."""
    turn = v["turn"]
    if v["status"] != "playing" or turn is None or turn["player"] != p.pid:
        return False
    if v["holding"] is not None:
        return False
    return "draw" in v["legal"] or now >= turn["may_start_at"]


def simple_policy(p: Player, v: dict[str, Any], now: int) -> dict[str, Any] | None:
    """Ready when asked, draw from the stock, play a King, discard anything else,
    call crisp whenever possible."""
    legal = v["legal"]
    if "ready" in legal and v["status"] == "peek":
        return {"type": "ready"}
    window = (v["crisp"] or {}).get("window")
    if "crisp" in legal and window and window["closes_at"] > now:
        return {"type": "crisp"}
    holding = v["holding"]
    if holding is not None:
        return {"type": "king"} if holding[0] == "K" else {"type": "discard"}
    if may_draw(p, v, now):
        return {"type": "draw", "source": "stock"}
    return None


async def drive(
    p: Player,
    policy: Policy,
    until: Callable[[Player], bool],
    timeout: float = 60.0,
) -> None:
    """Let `policy` play for `p` until `until(p)`. Each action is awaited until its
    answer came (`Player.act`), so the next decision sees a view at least that new."""
    deadline = time.monotonic() + timeout
    while not until(p):
        if p.closed:
            raise AssertionError(f"{p.pid} closed {p.close_code} while driving")
        if time.monotonic() > deadline:
            raise AssertionError(f"{p.pid}: driving timed out; last view {p.view}")
        seen = len(p.frames)
        v = p.view
        now = now_ms()
        action = policy(p, v, now)
        if action is not None:
            fields = dict(action)
            answer = await p.act(fields.pop("type"), **fields)
            if answer["type"] == "error":
                # refused (e.g. a window that just closed): wait for news instead of retrying
                ups = len(p.updates)
                with contextlib.suppress(AssertionError):
                    await p.wait(lambda q, u=ups: len(q.updates) > u or q.closed or until(q), 0.1)
            continue
        wait = 0.2
        turn = v["turn"]
        if turn is not None and turn["player"] == p.pid and turn["may_start_at"] > now:
            wait = min(wait, (turn["may_start_at"] - now) / 1000 + 0.002)
        with contextlib.suppress(AssertionError):
            await p.wait(lambda q, n=seen: len(q.frames) > n or q.closed or until(q), wait)


def finished(statuses: tuple[str, ...]) -> Callable[[Player], bool]:
    return lambda p: bool(p.updates) and p.view["status"] in statuses


async def play_rounds_to_game_over(players: list[Player]) -> None:
    """Play rounds with `simple_policy`, the host dealing each next round, to game over."""
    host = players[0]
    for _ in range(15):
        await asyncio.gather(
            *(drive(p, simple_policy, finished(("round_over", "game_over"))) for p in players)
        )
        if host.view["status"] == "game_over":
            return
        await host.act("next_round")
        for p in players:
            await p.wait_view(lambda v: v["status"] == "peek")
    raise AssertionError("the game did not end")
