"""The clients of `crisp bench`: one websocket per seat, playing random legal moves
(the bots' random policy, crisp.bots) at the run's pace (`pacing.py`) with one
action in flight, and timing each action until the update that announces it.

A client sends only what its latest view lists as legal at the moment it sends
(`legal_at`), and never a move that would reach the server after its deadline
(the peek's end, its crisp window's close) less the pace's margin: a real
player's phone does not offer a button whose time is up. So a run has no
refusals unless it asks for them (`--refused`, counted apart from actions).

`ANSWER`, `announces`, `refuses` and `legal_at` (answers.py) say which frame
answers a client message; the test suite's players use them from here too.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any, Protocol

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from crisp.bots import random_message
from crisp.bots.moves import TURN_KINDS
from crisp.engine import GAME_OVER, LOBBY, PEEK, PLAYING, Source
from crisp.engine import ActionType as A
from crisp.engine import EventKind as K
from crisp.server.wire.vocabulary import MessageType

from .answers import ANSWER, UNREFERENCED_ERRORS, announces, legal_at, refuses
from .pacing import Pace
from .stats import Stats

__all__ = ["ANSWER", "UNREFERENCED_ERRORS", "Client", "Driver", "Room", "announces",
           "legal_at", "refuses"]  # fmt: skip
# Read on every frame: module names (a member looked up on its class costs ~0.3 us in 3.11).
_UPDATE, _ERROR = MessageType.UPDATE, MessageType.ERROR
_ROUND_STARTED, _GAME_OVER_EVENT = K.ROUND_STARTED, K.GAME_OVER

try:
    import orjson

    _loads: Callable[[str | bytes], Any] = orjson.loads
except ImportError:  # pragma: no cover - orjson is optional
    _loads = json.loads

ANSWER_TIMEOUT_S = 5.0
HELLO_TIMEOUT_S = 15.0

# A planned move: (type, fields, seconds until it is sent, its deadline in ms or None).
Move = tuple[str, dict[str, Any], float, float | None]


class Driver(Protocol):
    """What the clients need from the run that drives them (run.py's Bench)."""

    stats: Stats
    pace: Pace
    rng: random.Random
    t_measure: float  # perf_counter time the measured window opened (inf before)
    t_stop: float  # and closed (inf until then): an action counts if sent in between
    refused: float  # chance, after each answered action, of an off-turn message

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> None: ...


@dataclass
class Room:
    code: str
    size: int
    clients: list[Client] = field(default_factory=list)
    options_sent: bool = False
    go: bool = False  # the host may start the game (set once the ramp is over)


class Client:
    """One seat's websocket: plays whatever its latest view allows, one action in flight.
    `counter`: this seat counts its room's changes (one seat per room does)."""

    def __init__(self, driver: Driver, room: Room, pid: str, token: str, counter: bool) -> None:
        self.d = driver
        self.room = room
        self.pid = pid
        self.token = token
        self.counter = counter
        self.ws: ClientConnection | None = None
        self.view: dict[str, Any] | None = None
        self.inflight: tuple[str, float, dict[str, Any]] | None = None  # (type, sent at, fields)
        self.timer: asyncio.TimerHandle | None = None
        self.planned: tuple[Any, ...] | None = None  # the decision the running timer is on
        self.crisp_window: tuple[float, bool] | None = None  # (closes_at, calling)
        self.refusing: dict[str, float] = {}  # ids of messages sent to be refused -> sent at
        self.n = 0
        self.task: asyncio.Task[None] | None = None

    async def open(self, ws_url: str, ssl: Any = None) -> None:
        t0 = time.perf_counter()
        st = self.d.stats
        ws: ClientConnection | None = None
        try:
            ws = await connect(f"{ws_url}/ws/{self.room.code}", compression=None, proxy=None,
                               ping_interval=None, open_timeout=HELLO_TIMEOUT_S, close_timeout=2,
                               max_size=2**20, max_queue=64, ssl=ssl)  # fmt: skip
            await ws.send(json.dumps({"type": MessageType.HELLO, "token": self.token}))
            first = await asyncio.wait_for(ws.recv(), HELLO_TIMEOUT_S)
        except Exception as exc:
            st.failed += 1
            st.fail_reasons[type(exc).__name__] += 1
            if ws is not None:
                with contextlib.suppress(Exception):
                    await ws.close()
            return
        st.opened += 1
        st.handshakes.append((time.perf_counter() - t0) * 1000)
        self.ws = ws
        self.task = asyncio.create_task(self._read())
        self.on_message(first, time.perf_counter())

    async def _read(self) -> None:
        assert self.ws is not None
        try:
            async for raw in self.ws:
                self.on_message(raw, time.perf_counter())
        except ConnectionClosed:
            pass
        finally:
            if not self.d.stats.stopping:
                self.d.stats.closes[str(self.ws.close_code)] += 1
            self.cancel()

    # -- frames ------------------------------------------------------------------

    def on_message(self, raw: str | bytes, at: float) -> None:
        msg = _loads(raw)
        if msg["type"] == _UPDATE:
            self._on_update(msg, at)
        elif msg["type"] == _ERROR:
            self._on_error(msg, at)

    def _on_update(self, msg: dict[str, Any], at: float) -> None:
        st = self.d.stats
        self.view = view = msg["view"]
        events = msg["events"]
        if st.measuring:
            st.updates += 1
            if self.counter:  # every change of the room reaches every seat once
                st.changes += 1
                for ev in events:
                    if ev["kind"] == _ROUND_STARTED:
                        st.rounds += 1
                    elif ev["kind"] == _GAME_OVER_EVENT:
                        st.games += 1
        self.observe(view, events)
        if self.inflight is not None:
            kind, sent, fields = self.inflight
            if self.answered(events, kind, fields):
                if self.d.t_measure <= sent < self.d.t_stop:
                    st.latencies.setdefault(kind, []).append((at - sent) * 1000)
                    st.answered += 1
                self.inflight = None
                if self.d.refused and self.d.rng.random() < self.d.refused:
                    self._someone_refused()
        if self.inflight is None:
            self.plan(view)

    def observe(self, view: dict[str, Any], events: list[dict[str, Any]]) -> None:
        """What the seat makes of an update before it decides (a game's bot, gameclient.py)."""

    def answered(self, events: list[dict[str, Any]], kind: str, fields: dict[str, Any]) -> bool:
        """True if `events` (one update's) announce this seat's message in flight."""
        return announces(events, kind, self.pid, fields)

    def _on_error(self, msg: dict[str, Any], at: float) -> None:
        st = self.d.stats
        ref = msg.get("ref")
        if isinstance(ref, str) and ref in self.refusing:  # asked for (--refused)
            sent = self.refusing.pop(ref)
            if self.d.t_measure <= sent < self.d.t_stop:
                st.refusals_ms.append((at - sent) * 1000)
            return
        if st.measuring:
            st.errors[msg.get("code", "?")] += 1
        if self.inflight is not None and refuses(msg, str(self.n)):
            if st.measuring:
                st.errors_by_action[f"{self.inflight[0]}:{msg.get('code')}"] += 1
            self.inflight = None
            self.cancel()
            if self.view is not None:
                self.plan(self.view)

    # -- deciding ----------------------------------------------------------------

    def plan(self, view: dict[str, Any]) -> None:
        """Plan the next move on `view`, keeping a think time already running for the
        same decision (the same legal moves, card held, turn, round and window)."""
        if self.timer is not None and self.planned == self._decision(view):
            return
        move = self.decide(view)
        self.cancel()
        if move is not None:
            self._schedule(move, self._decision(view))

    def _decision(self, view: dict[str, Any]) -> tuple[Any, ...]:
        """What a planned move depends on: while it holds, the plan stands."""
        turn = view["turn"]
        return (view["status"], tuple(view["legal"]), view["holding"],
                turn and turn["player"], view["round"], self.crisp_window)  # fmt: skip

    def decide(self, v: dict[str, Any]) -> Move | None:
        """The seat's next move: the bots' random policy for its own moves (a uniformly
        random legal turn move; a crisp call in a new window with the pace's chance;
        the peek and round confirmations), and the host's lobby and rematch."""
        pace, rng = self.d.pace, self.d.rng
        now = time.time() * 1000
        legal = legal_at(v, now)["legal"]
        status = v["status"]
        if A.READY in legal:
            if status == PEEK:
                return A.READY, {}, pace.think(A.READY, rng), v.get("peek_ends_at")
            return A.READY, {}, pace.think("ready_round", rng), None  # R16.5: all confirm
        if status == PLAYING:
            window = v["crisp"]["window"]
            if A.CRISP in legal and window is not None:
                closes = float(window["closes_at"])
                if self.crisp_window is None or self.crisp_window[0] != closes:
                    self.crisp_window = (closes, rng.random() < pace.crisp_chance)
                if self.crisp_window[1]:
                    return A.CRISP, {}, pace.think(A.CRISP, rng), closes
            kinds = [k for k in legal if k in TURN_KINDS]
            if kinds:
                message = random_message(v, rng.choice(kinds), rng)
                kind = message.pop("type")
                deadline = (v["turn"] or {}).get("draw_deadline")
                return kind, message, pace.think(kind, rng), deadline
            turn = v["turn"]
            if turn and turn["player"] == self.pid and v["holding"] is None:
                wait = (turn["may_start_at"] - now) / 1000 + 0.003
                message = random_message(v, A.DRAW, rng)
                delay = max(wait + pace.react(rng), pace.think(A.DRAW, rng))
                return message.pop("type"), message, delay, turn.get("draw_deadline")
            return None
        if v["host"] != self.pid:
            return None
        if status == GAME_OVER and A.REMATCH in legal:
            return A.REMATCH, {}, pace.think(A.REMATCH, rng), None
        if status == LOBBY and self.room.go:
            players = v["players"]
            if len(players) >= self.room.size and all(p["connected"] for p in players):
                if not self.room.options_sent and A.OPTIONS in legal:
                    return A.OPTIONS, {"limit": 50, "discard_draw": True}, pace.think(A.OPTIONS,
                                                                                      rng), None
                if A.START in legal:
                    return A.START, {}, pace.think(A.START, rng), None
        return None

    def replan(self) -> None:
        if self.view is not None and self.inflight is None and not self.d.stats.stopping:
            self.plan(self.view)

    # -- sending -----------------------------------------------------------------

    def _schedule(self, move: Move, key: tuple[Any, ...]) -> None:
        kind, fields, delay, deadline = move
        if deadline is not None:
            arrives = time.time() * 1000 + delay * 1000 + self.d.pace.deadline_margin_ms()
            if arrives > deadline:
                return  # too late for it: a player would not make it either
        self.planned = key
        self.timer = asyncio.get_running_loop().call_later(delay, self._fire, kind, fields,
                                                           deadline)  # fmt: skip

    def cancel(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
            self.planned = None

    def _fire(self, kind: str, fields: dict[str, Any], deadline: float | None) -> None:
        self.timer = None
        self.planned = None
        st = self.d.stats
        if st.stopping or self.ws is None or self.inflight is not None or self.view is None:
            return
        now = time.time() * 1000
        late = deadline is not None and now + self.d.pace.deadline_margin_ms() > deadline
        if late or kind not in legal_at(self.view, now)["legal"]:
            self.plan(self.view)  # the table moved on meanwhile: decide again
            return
        if kind == A.OPTIONS:
            self.room.options_sent = True
        self._send(kind, fields)

    def _send(self, kind: str, fields: dict[str, Any]) -> None:
        """Send the action `kind` with `fields` on this seat's socket, numbered, as the
        one in flight, counted while measuring."""
        assert self.ws is not None
        st = self.d.stats
        self.n += 1
        text = json.dumps({"type": kind, "id": str(self.n), **fields}, separators=(",", ":"))
        self.inflight = (kind, time.perf_counter(), fields)
        if st.measuring:
            st.sent += 1
            st.sent_by_type[kind] += 1
        self.d.spawn(self.ws.send(text))

    def _someone_refused(self) -> None:
        """`--refused`: another seat of the room, not on turn and with nothing in
        flight, sends a draw the server refuses (not_your_turn)."""
        turn = (self.view or {}).get("turn") or {}
        others = [c for c in self.room.clients if c is not self and c.ws is not None
                  and c.inflight is None and c.pid != turn.get("player")]  # fmt: skip
        if not others or self.d.stats.stopping:
            return
        other = self.d.rng.choice(others)
        assert other.ws is not None
        other.n += 1
        ref = f"r{other.n}"
        other.refusing[ref] = time.perf_counter()
        if self.d.stats.measuring:
            self.d.stats.refused_sent += 1
        text = json.dumps({"type": A.DRAW, "source": Source.STOCK, "id": ref},
                          separators=(",", ":"))
        self.d.spawn(other.ws.send(text))

    def sweep(self, now: float) -> None:
        """Give up on an action unanswered for ANSWER_TIMEOUT_S (counted) and move on."""
        if self.inflight is not None and now - self.inflight[1] > ANSWER_TIMEOUT_S:
            if self.d.t_measure <= self.inflight[1] < self.d.t_stop:
                self.d.stats.unanswered += 1
            self.inflight = None
            if self.view is not None and not self.d.stats.stopping:
                self.plan(self.view)
        for ref, sent in list(self.refusing.items()):
            if now - sent > ANSWER_TIMEOUT_S:
                del self.refusing[ref]
