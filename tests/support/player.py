"""A websocket seat for the tests: it records every frame it receives; `act` returns
the frame that answers what it sent; the waits take a mark (`after=`) so that a view
received before some point cannot satisfy them."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import time
from collections.abc import Callable
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from crisp.bench.client import ANSWER, announces, refuses

from .servers import LiveServer

WAIT = 15.0  # a safety timeout: it fires only on a real hang (every wait is for a state)


def answers(
    frame: dict[str, Any], kind: str, fields: dict[str, Any], actor: str, ref: str
) -> bool:
    """True if `frame` answers the message `{"type": kind, "id": ref, **fields}` that
    `actor` sent: its refusal, or the update that announces it. For a kind without a
    known announcing event, the first update after sending is taken as the answer."""
    if frame["type"] == "error":
        return refuses(frame, ref)
    if frame["type"] != "update":
        return False
    return kind not in ANSWER or announces(frame["events"], kind, actor, fields)


class Player:
    """One websocket seat. Records every frame; helpers wait for conditions."""

    def __init__(
        self, ws: ClientConnection, code: str, pid: str, token: str, server: LiveServer
    ) -> None:
        self.ws = ws
        self.server = server
        self.code = code
        self.pid = pid
        self.token = token
        self.frames: list[dict[str, Any]] = []
        self.updates: list[dict[str, Any]] = []  # the `update` frames, in order
        self.errors: list[dict[str, Any]] = []  # the `error` frames, in order
        self.close_code: int | None = None
        self.close_reason: str = ""
        self._ids = itertools.count(1)  # message ids of `act`
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
        player = cls(ws, code, pid, token, server)
        if hello:
            await player.send({"type": "hello", "token": token})
            await player.wait(lambda p: p.updates or p.closed, what="first update")
        return player

    @classmethod
    async def watch(cls, server: LiveServer, code: str, *, origin: str | None = None) -> Player:
        """A watcher of the room (R18.1): `hello` with `"watch": true` and no token;
        its `pid` is "watcher". Returns once its first update (or close) came."""
        player = await cls.join(server, code, "watcher", "", hello=False, origin=origin)
        await player.send({"type": "hello", "watch": True})
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
            await self.server_time(view["turn"]["may_start_at"])
            return view
        return await self.wait_view(
            lambda v: kind in v["legal"], timeout, f"legal {kind}", after=after
        )

    async def server_time(self, at: int) -> None:
        """Wait until the server's game time is `at`: a manual clock is moved there
        (servers.py); on real time this waits for that moment, a deadline of the
        server's own (R10.4 `may_start_at`)."""
        if self.server.manual_clock:
            await self.server.advance(to=at)
            return
        delay = (at - time.time_ns() // 1_000_000) / 1000
        if delay > 0:
            await asyncio.sleep(delay + 0.005)  # real time: the moment itself, not a guess

    @property
    def version(self) -> int:
        """The room version of the latest view (-1 before the first update)."""
        return int(self.updates[-1]["view"]["version"]) if self.updates else -1

    # ---- sending ----

    async def send(self, msg: dict[str, Any] | str | bytes) -> None:
        data = msg if isinstance(msg, str | bytes) else json.dumps(msg)
        await self.ws.send(data)

    async def act(self, kind: str, /, **fields: Any) -> dict[str, Any]:
        """Send action `kind` and return the frame that answers it: the error whose `ref`
        is the message's `id`, or the update that announces the action (crisp.bench.client).
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


async def close_all(players: list[Player]) -> None:
    await asyncio.gather(*(p.close() for p in players), return_exceptions=True)
