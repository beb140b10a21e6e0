"""The soak's players (issue 23): `crisp bench`'s clients (client.py: the random
legal policy at the run's pace, one action in flight) that live through faults
the way the web client does (web/js/net/socket.js) and keep a record of every action.

- A socket that drops (1006, 1011, 1013, a refused connection, ...) is opened
  again after a backoff of 0.5 s doubling to 15 s (x0.8-1.2); 1012 (the server
  restarts) after 50 ms; the 44xx removals are final (counted).
- Nothing is resent blindly. After `outcome_unknown`, or when the socket carrying
  an action drops before its answer, the seat waits for its next update (on the
  same socket, or the first one of the next) and plans from it. After
  `store_unavailable` (nothing changed) it plans again on its view.
- Every action sent is an `ActionRecord`: the version of the view it was planned
  on, when it was sent, and how it was answered: the version of the update that
  announced it (`acked`), or the error code (`code`), or `lost:<close code>`, or
  `unanswered`: after ANSWER_S with neither, the seat plans from the table it has
  (the web client lets its player tap again after 2 s): events are at most once,
  and after a pub/sub loss an action's own update can be gone, its table reloaded.
  The accounting (account.py) holds these against the history Redis published.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
from collections import Counter, deque
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import Any, Protocol

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from crisp.server.wire.vocabulary import MessageType, ServerErrorCode

from ..answers import UNREFERENCED_ERRORS, announces, refuses
from ..client import HELLO_TIMEOUT_S, Client, Room
from ..pacing import Pace
from ..stats import Stats

ANSWER_S = 10.0  # an action unanswered this long on an open socket: its outcome is unknown
FATAL_CLOSES = frozenset({4401, 4403, 4404, 4409})  # the web client does not retry these
RESTART_CLOSE = 1012
BASE_DELAY_S, MAX_DELAY_S, RESTART_DELAY_S = 0.5, 15.0, 0.05  # web/js/net/socket.js


@dataclass
class ActionRecord:
    """One action a seat sent, and what it was told."""

    id: str
    kind: str
    fields: dict[str, Any]
    base: int  # the table version of the view it was planned on
    sent_ms: int  # wall-clock ms when it was sent
    acked: int | None = None  # the version of the update that announced it
    code: str | None = None  # the error that answered it, `lost:<close>`, `unanswered`
    applied: int | None = None  # the version it was applied at (set by the accounting)
    trail: list[tuple[int, int, list[str]]] | None = None  # the seat's last updates, if
    # unanswered: (ms, version, event kinds)

    def outcome(self) -> str:
        """acked, refused:<code>, or unknown:<why> (outcome_unknown, lost, unanswered)."""
        if self.code is None:
            return "acked" if self.acked is not None else "unknown:no_answer"
        if self.code in (ServerErrorCode.OUTCOME_UNKNOWN, "unanswered") \
                or self.code.startswith("lost"):  # fmt: skip
            return f"unknown:{self.code.split(':')[0]}"
        return f"refused:{self.code}"


class SoakDriver(Protocol):
    """What the soak's seats need from the run (run.py's Soak), besides client.Driver."""

    stats: Stats
    pace: Pace
    rng: random.Random
    t_measure: float
    t_stop: float
    refused: float
    quiet: bool  # no new action is sent (the end of the run)
    finished: bool  # sockets close and stay closed

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> None: ...


@dataclass
class SeatLog:
    """A seat's connections: closes by code, reconnects, tables older than one
    already received on the same socket, final removals."""

    closes: Counter[str] = field(default_factory=Counter)
    connects: int = 0
    failed_connects: int = 0
    backwards: int = 0
    fatal: int | None = None


class SoakSeat(Client):
    """One seat: a `Client` that reconnects like the web client and records actions."""

    def __init__(self, driver: SoakDriver, room: Room, pid: str, token: str, counter: bool,
                 ws_url: str, address: str) -> None:  # fmt: skip
        super().__init__(driver, room, pid, token, counter)
        self.sd = driver
        self.ws_url = ws_url
        self.address = address  # the X-Forwarded-For of this seat's "phone"
        self.records: list[ActionRecord] = []
        self._by_id: dict[str, ActionRecord] = {}
        self.waiting = False  # the next update is the truth (after an unknown outcome)
        self.version = 0  # the table version of the last update
        self._socket_version = 0  # of this socket's last update
        self.attempt = 0
        self.log = SeatLog()
        # The last updates (ms, version, event kinds): a seat left waiting tells why.
        self.trail: deque[tuple[int, int, list[str]]] = deque(maxlen=8)

    @property
    def connected(self) -> bool:
        return self.ws is not None and self.view is not None

    @property
    def settled(self) -> bool:
        """Connected, nothing in flight, nothing awaited."""
        return self.connected and self.inflight is None and not self.waiting

    # -- the connection loop -----------------------------------------------------

    async def run(self) -> None:
        """Connect, play, reconnect after drops, until the run is finished."""
        while not self.sd.finished:
            code = await self._session()
            if self.sd.finished:
                return
            if code in FATAL_CLOSES:
                self.log.fatal = code
                return
            if code == RESTART_CLOSE:
                delay = RESTART_DELAY_S
            else:
                delay = min(MAX_DELAY_S, BASE_DELAY_S * 2**self.attempt)
                delay *= 0.8 + 0.4 * random.random()
                self.attempt += 1
            await asyncio.sleep(delay)  # the web client's backoff: real time

    async def _session(self) -> int | None:
        """One socket from connect to close: its close code (None: it never opened)."""
        try:
            ws = await connect(f"{self.ws_url}/ws/{self.room.code}", compression=None,
                               proxy=None, ping_interval=None, open_timeout=HELLO_TIMEOUT_S,
                               close_timeout=2, max_size=2**20, max_queue=256,
                               additional_headers={"X-Forwarded-For": self.address})  # fmt: skip
        except Exception:
            self.log.failed_connects += 1
            return None
        self.log.connects += 1
        self._socket_version = 0
        self.ws = ws
        try:
            await ws.send(json.dumps({"type": MessageType.HELLO, "token": self.token}))
            async for raw in ws:
                self.on_message(raw, time.perf_counter())
        except ConnectionClosed:
            pass
        finally:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(ws.close(), 2)
            self._dropped(ws.close_code)
        self.log.closes[str(ws.close_code)] += 1
        return ws.close_code

    def _dropped(self, code: int | None) -> None:
        """The socket is gone: an action in flight has an unknown outcome."""
        self.ws = None
        self.view = None
        self.cancel()
        if self.inflight is not None:
            self._record().code = f"lost:{code}"
            self.inflight = None
            self.waiting = True

    # -- answers -----------------------------------------------------------------

    def _record(self) -> ActionRecord:
        return self._by_id[str(self.n)]

    def _on_update(self, msg: dict[str, Any], at: float) -> None:
        version = int(msg["view"]["version"])
        if version < self._socket_version:
            self.log.backwards += 1
        self._socket_version = self.version = version
        self.trail.append((time.time_ns() // 1_000_000, version,
                           [e["kind"] for e in msg["events"]]))  # fmt: skip
        if self.attempt and self.view is None:
            self.attempt = 0  # a healthy socket: the next drop starts the backoff afresh
        if self.inflight is not None:
            kind, _, fields = self.inflight
            if announces(msg["events"], kind, self.pid, fields):
                self._record().acked = version
        self.waiting = False
        super()._on_update(msg, at)

    def _on_error(self, msg: dict[str, Any], at: float) -> None:
        code = str(msg.get("code"))
        self.d.stats.errors[code] += 1
        ref = msg.get("ref")
        record = self._by_id.get(ref) if isinstance(ref, str) else None
        if record is None and ref is None and code in UNREFERENCED_ERRORS \
                and self.inflight is not None:  # fmt: skip
            record = self._record()
        if record is not None and record.code in (None, "unanswered"):
            record.code = code
        if self.inflight is not None and refuses(msg, str(self.n)):
            self.inflight = None
            self.cancel()
            if code == ServerErrorCode.OUTCOME_UNKNOWN:
                self.waiting = True  # the next update tells whether it was applied
            elif self.view is not None:
                self.plan(self.view)

    # -- sending -----------------------------------------------------------------

    def plan(self, view: dict[str, Any]) -> None:
        if self.waiting or self.ws is None or self.sd.quiet:
            self.cancel()
            return
        super().plan(view)

    def _fire(self, kind: str, fields: dict[str, Any], deadline: float | None) -> None:
        if self.sd.quiet or self.waiting:
            self.timer = self.planned = None
            return
        n = self.n
        super()._fire(kind, fields, deadline)
        if self.n != n and self.view is not None:
            record = ActionRecord(str(self.n), kind, dict(fields), int(self.view["version"]),
                                  time.time_ns() // 1_000_000)  # fmt: skip
            self.records.append(record)
            self._by_id[record.id] = record

    def sweep(self, now: float) -> None:
        """An action unanswered for ANSWER_S on an open socket: counted, and the seat
        plans again from the table it has (a later error still answers it)."""
        if self.inflight is not None and now - self.inflight[1] > ANSWER_S:
            self._record().code = "unanswered"
            self._record().trail = list(self.trail)
            self.inflight = None
            if self.view is not None and not self.waiting:
                self.plan(self.view)
