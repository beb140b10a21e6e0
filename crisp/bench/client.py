"""The clients of `crisp bench`: one websocket per seat, playing random legal moves
(the bots' random policy, crisp.bots) with one action in flight, and timing each
action until the update that announces it.

`ANSWER`, `announces` and `refuses` say which frame answers a client message; the
test suite's players (tests/support/player.py) use them too.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from crisp.bots import random_message, random_move

if TYPE_CHECKING:
    from .run import Bench

try:
    import orjson

    _loads: Callable[[str | bytes], Any] = orjson.loads
except ImportError:  # pragma: no cover - orjson is optional
    _loads = json.loads

ANSWER_TIMEOUT_S = 5.0
HELLO_TIMEOUT_S = 15.0

# The events that announce each accepted client message (crisp/engine), and whose id
# their `player` holds: the sender's ("actor"), that of a field of the message
# ("player" for kick), or nobody's (None). A kick frees a seat in the lobby and
# hands it to the computer during a game (R17.5). `leave` has no answer here: the
# leaver's socket is closed (4403).
ANSWER: dict[str, tuple[tuple[str, ...], str | None]] = {
    "options": (("options",), None),
    "start": (("round_started",), None),
    "next_round": (("round_started",), None),
    "rematch": (("rematch",), "actor"),  # back to the lobby (issue 11)
    "kick": (("left", "took_over"), "player"),
    "add_bot": (("bot_added",), None),
    "ready": (("ready",), "actor"),
    "draw": (("drew",), "actor"),
    "swap": (("swapped",), "actor"),
    "discard": (("discarded",), "actor"),
    "jack": (("jack",), "actor"),
    "queen": (("queen",), "actor"),
    "king": (("king",), "actor"),
    "crisp": (("crisp",), "actor"),
}
# Errors that cannot name the message they refuse: they carry no `ref` (protocol.md).
UNREFERENCED_ERRORS = frozenset({"rate_limited", "too_large"})


def announces(
    events: list[dict[str, Any]], kind: str, actor: str, fields: Mapping[str, Any]
) -> bool:
    """True if `events` (one update's) announce the accepted message `{"type": kind,
    **fields}` that `actor` sent. The server handles a socket's messages in order, but
    updates of other changes can arrive between the sending and the answer."""
    event_kinds, who = ANSWER[kind]
    player = actor if who == "actor" else None if who is None else fields.get(who)
    return any(
        e["kind"] in event_kinds
        and (player is None or e.get("player") == player)
        and not e.get("timeout")  # a draw timer's discard is not the player's (R14.2)
        for e in events
    )


def legal_at(view: dict[str, Any], now: float) -> dict[str, Any]:
    """The view with `legal` as of `now`: the one action that becomes legal by the clock
    alone, the seat's first draw of its turn (from `turn.may_start_at`, protocol.md),
    is added once that time has come."""
    turn = view.get("turn")
    if (
        "draw" in view["legal"]
        or view["status"] != "playing"
        or turn is None
        or turn["player"] != view["you"]
        or view["holding"] is not None
        or now < turn["may_start_at"]
    ):
        return view
    return {**view, "legal": [*view["legal"], "draw"]}


def refuses(error: dict[str, Any], ref: str) -> bool:
    """True if `error` refuses the message whose `id` was `ref`."""
    if "ref" in error:
        return bool(error["ref"] == ref)
    return error.get("code") in UNREFERENCED_ERRORS


@dataclass
class Stats:
    measuring: bool = False
    stopping: bool = False
    latencies: dict[str, list[float]] = field(default_factory=dict)
    sent: int = 0
    answered: int = 0
    unanswered: int = 0
    updates: int = 0
    rounds: int = 0
    games: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    errors_by_action: Counter[str] = field(default_factory=Counter)
    closes: Counter[str] = field(default_factory=Counter)
    opened: int = 0
    failed: int = 0
    fail_reasons: Counter[str] = field(default_factory=Counter)
    handshakes: list[float] = field(default_factory=list)


@dataclass
class Room:
    code: str
    size: int
    options_sent: bool = False
    go: bool = False  # the host may start the game (set once the ramp is over)


class Client:
    """One seat's websocket: plays whatever its latest view allows, one action in flight."""

    def __init__(self, bench: Bench, room: Room, pid: str, token: str, host: bool) -> None:
        self.b = bench
        self.room = room
        self.pid = pid
        self.token = token
        self.host = host
        self.ws: ClientConnection | None = None
        self.view: dict[str, Any] | None = None
        self.inflight: tuple[str, float, dict[str, Any]] | None = None  # (type, sent at, fields)
        self.timer: asyncio.TimerHandle | None = None
        self.planned: str | None = None
        self.crisp_window: int | None = None
        self.n = 0
        self.task: asyncio.Task[None] | None = None

    async def open(self, ws_url: str) -> None:
        t0 = time.perf_counter()
        ws: ClientConnection | None = None
        try:
            ws = await connect(f"{ws_url}/ws/{self.room.code}", compression=None, proxy=None,
                               ping_interval=None, open_timeout=HELLO_TIMEOUT_S, close_timeout=2,
                               max_size=2**20, max_queue=64)  # fmt: skip
            await ws.send(json.dumps({"type": "hello", "token": self.token}))
            first = await asyncio.wait_for(ws.recv(), HELLO_TIMEOUT_S)
        except Exception as exc:
            self.b.stats.failed += 1
            self.b.stats.fail_reasons[type(exc).__name__] += 1
            if ws is not None:
                with contextlib.suppress(Exception):
                    await ws.close()
            return
        self.b.stats.opened += 1
        self.b.stats.handshakes.append((time.perf_counter() - t0) * 1000)
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
            if not self.b.stats.stopping:
                self.b.stats.closes[str(self.ws.close_code)] += 1
            self._cancel()

    def on_message(self, raw: str | bytes, at: float) -> None:
        msg = _loads(raw)
        st = self.b.stats
        if msg["type"] == "update":
            if st.measuring:
                st.updates += 1
            self.view = view = msg["view"]
            events = msg["events"]
            if self.host:
                for ev in events:
                    kind = ev["kind"]
                    if kind == "round_started" and st.measuring:
                        st.rounds += 1
                    elif kind == "game_over" and st.measuring:
                        st.games += 1
            if self.inflight is not None:
                kind, sent, fields = self.inflight
                if announces(events, kind, self.pid, fields):
                    if sent >= self.b.t_measure:
                        st.latencies.setdefault(kind, []).append((at - sent) * 1000)
                        st.answered += 1
                    self.inflight = None
            if self.inflight is None:
                self.plan(view)
        elif msg["type"] == "error":
            if st.measuring:
                st.errors[msg.get("code", "?")] += 1
            if self.inflight is not None and refuses(msg, str(self.n)):
                if st.measuring:
                    st.errors_by_action[f"{self.inflight[0]}:{msg.get('code')}"] += 1
                self.inflight = None
                self._cancel()
                self._schedule("replan", {}, self.b.think())

    def plan(self, view: dict[str, Any]) -> None:
        decision = self.decide(view)
        if decision is None:
            self._cancel()
            return
        kind, fields, delay = decision
        if self.timer is not None and self.planned == kind:
            return  # keep the think time already running for the same move
        self._cancel()
        self._schedule(kind, fields, delay)

    def decide(self, v: dict[str, Any]) -> tuple[str, dict[str, Any], float] | None:
        """The next move and its think time: the bots' random policy for the seat's own
        moves (crisp.bots.random_move; a call in each new window with probability
        `--crisp-chance`), the host's decisions here (bots never take them)."""
        status, legal, rng, think = v["status"], v["legal"], self.b.rng, self.b.think()
        if status in ("playing", "peek"):
            chance = 0.0
            if "crisp" in legal:
                closes = v["crisp"]["window"]["closes_at"]
                if closes != self.crisp_window:
                    self.crisp_window = closes
                    chance = self.b.args.crisp_chance
            now = time.time() * 1000
            move = random_move(legal_at(v, now), rng, chance)
            if move is not None:
                kind = move.pop("type")
                return kind, move, min(think, 0.02) if kind == "crisp" else think
            turn = v["turn"]
            if turn and turn["player"] == self.pid and v["holding"] is None:
                wait = (turn["may_start_at"] - now) / 1000 + 0.003
                move = random_message(v, "draw", rng)
                return move.pop("type"), move, max(wait, think)
            return None
        if not self.host:
            return None
        if status == "round_over" and "next_round" in legal:
            return "next_round", {}, think
        if status == "game_over" and "rematch" in legal:
            return "rematch", {}, think
        if status == "lobby" and self.room.go:
            players = v["players"]
            if len(players) >= self.room.size and all(p["connected"] for p in players):
                if not self.room.options_sent:
                    return "options", {"limit": 50, "discard_draw": True}, think
                return "start", {}, think
        return None

    def replan(self) -> None:
        if self.view is not None and self.inflight is None and not self.b.stats.stopping:
            self.plan(self.view)

    def _schedule(self, kind: str, fields: dict[str, Any], delay: float) -> None:
        self.planned = kind
        self.timer = asyncio.get_running_loop().call_later(delay, self._fire, kind, fields)

    def _cancel(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
            self.planned = None

    def _fire(self, kind: str, fields: dict[str, Any]) -> None:
        self.timer = None
        self.planned = None
        if self.b.stats.stopping or self.ws is None or self.inflight is not None:
            return
        if kind == "replan":
            self.replan()
            return
        if kind == "options":
            self.room.options_sent = True
        self.n += 1
        text = json.dumps({"type": kind, "id": str(self.n), **fields}, separators=(",", ":"))
        self.inflight = (kind, time.perf_counter(), fields)
        if self.b.stats.measuring:
            self.b.stats.sent += 1
        self.b.spawn(self.ws.send(text))

    def sweep(self, now: float) -> None:
        """Give up on an action unanswered for ANSWER_TIMEOUT_S (counted) and move on."""
        if self.inflight is not None and now - self.inflight[1] > ANSWER_TIMEOUT_S:
            if self.inflight[1] >= self.b.t_measure:
                self.b.stats.unanswered += 1
            self.inflight = None
            if self.view is not None and not self.b.stats.stopping:
                self.plan(self.view)
