"""The soak's witness (issue 23): every change Redis publishes, kept per room, so
that the accounting (account.py) can hold each action a client sent against
the history that was stored.

Each save of a room publishes the whole table with the events of the change and
the room's store version `v` (docs/store.md). The `Recorder` subscribes to every
room channel (`PSUBSCRIBE crisp:room:*`) on a connection of its own and keeps,
per room, the last `v`, the last table, and the events that announce a human
seat's action (the event kinds of answers.py's ANSWER; a seat the computer plays,
R17.2, is told apart by `away` in the table after the change).

Pub/sub is at most once, so the witness must never lose a message:
- Redis frozen (SIGSTOP): its connection waits; nothing is published meanwhile.
- Redis killed and started again: the soak starts it on a private port, the
  witness subscribes there and reads every room (`resume`) before Redis is moved
  to the servers' port (`CONFIG SET port`), so no save can come before the
  subscription. Saves that Redis ran and wrote to its append-only file but whose
  message died in its output buffer with it show as a room whose stored table is
  newer than the last one published: a `Gap`, with the tables on both sides,
  which the accounting resolves by replaying the unknown actions (account.py).
- A message whose `v` is not newer than the room's last is a rewind: a write
  that was published (so on disk first) and then lost. Counted; never expected.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import dataclass, field
from typing import Any

import orjson
from redis.asyncio import Redis

from crisp.engine import ActionType as A
from crisp.engine import EventKind as K

PREFIX = "crisp:room:"


@dataclass(frozen=True)
class SeatEvent:
    """An event announcing an action of a human seat: the table version after the
    change, the seat, the client message type it announces, and whether the seat was
    away after the change (R17.2: then it is most likely the computer's move, though
    a seat still connected may act while away, e.g. after its lease ran out)."""

    version: int
    seat: str
    kind: str
    away: bool = False


@dataclass
class Gap:
    """Changes of a room that were stored but never published (Redis died holding
    their message): the tables before and after, and when it was noticed."""

    room: str
    before: dict[str, Any] | None
    after: dict[str, Any]
    at_ms: int

    @property
    def span(self) -> tuple[int, int]:
        return (0 if self.before is None else int(self.before["version"]),
                int(self.after["version"]))  # fmt: skip


@dataclass
class RoomTrace:
    """What the witness knows of one room."""

    v: int = 0  # the store version of the last message (or read)
    state: dict[str, Any] | None = None  # the last table
    events: list[SeatEvent] = field(default_factory=list)
    computer: int = 0  # events of away seats (R17.2: mostly the computer's moves)
    messages: int = 0
    rewinds: list[tuple[int, int]] = field(default_factory=list)  # (last v, message v)
    changed_at: float = 0.0  # monotonic time of the last change of the table

    @property
    def version(self) -> int:
        return 0 if self.state is None else int(self.state["version"])


# Event kinds -> the client message they announce (answers.py's ANSWER, inverted, for
# the messages the soak's seats send). `round_started` announces `start` only for the
# first round of a game (a round after the first starts when everyone is ready).
ANNOUNCES: dict[str, str] = {
    K.DREW: A.DRAW, K.SWAPPED: A.SWAP, K.DISCARDED: A.DISCARD, K.JACK: A.JACK,
    K.QUEEN: A.QUEEN, K.KING: A.KING, K.CRISP: A.CRISP, K.READY: A.READY,
    K.REMATCH: A.REMATCH, K.OPTIONS: A.OPTIONS, K.ROUND_STARTED: A.START}  # fmt: skip
HOST_KINDS = frozenset({A.OPTIONS, A.START})  # events without a player: the host's


def seat_events(state: dict[str, Any], events: list[dict[str, Any]]) -> list[SeatEvent]:
    """The events of one change that announce a human seat's action."""
    players = {p["id"]: p for p in state["players"]}
    out: list[SeatEvent] = []
    for ev in events:
        kind = ANNOUNCES.get(ev["kind"])
        data = ev.get("data") or {}
        if kind is None or data.get("timeout") or (kind == A.START and data.get("round") != 1):
            continue
        seat = state["host"] if kind in HOST_KINDS else data.get("player")
        player = players.get(seat)
        if player is None or player.get("bot_level"):
            continue
        out.append(SeatEvent(int(state["version"]), str(seat), kind, bool(player.get("away"))))
    return out


class Recorder:
    """The witness: one pub/sub connection to Redis and a trace per room."""

    def __init__(self) -> None:
        self.rooms: dict[str, RoomTrace] = {}
        self.gaps: list[Gap] = []
        self.losses = 0  # the subscription dropped while Redis lived (must not happen)
        self.expect_loss = False  # set by the soak just before it kills Redis
        self._client: Redis | None = None
        self._task: asyncio.Task[None] | None = None

    def lost(self) -> bool:
        """The subscription ended (Redis died, or the connection dropped)."""
        return self._task is not None and self._task.done()

    def trace(self, room: str) -> RoomTrace:
        found = self.rooms.get(room)
        if found is None:
            found = self.rooms[room] = RoomTrace()
        return found

    async def attach(self, port: int, codes: list[str] | None = None) -> None:
        """Subscribe on `port` (confirmed before this returns), then, with `codes`,
        read those rooms and record any that changed unseen (a `Gap`)."""
        await self.detach()
        client = Redis(host="127.0.0.1", port=port, socket_connect_timeout=5)
        pubsub = client.pubsub()
        await pubsub.psubscribe(PREFIX + "*")
        while True:  # the confirmation: after it, no message can be missed
            msg = await pubsub.get_message(timeout=5)
            if msg is not None and msg["type"] == "psubscribe":
                break
        self._client = client
        if codes:
            await self._catch_up(client, codes)
        self._task = asyncio.create_task(self._read(pubsub), name="soak-recorder")

    async def detach(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
            self._task = None
        if self._client is not None:
            with contextlib.suppress(Exception):
                await self._client.aclose()
            self._client = None

    async def _read(self, pubsub: Any) -> None:
        try:
            while True:
                msg = await pubsub.get_message(ignore_subscribe_messages=True, timeout=1.0)
                if msg is not None and msg["type"] == "pmessage":
                    self.on_message(msg["channel"].decode(), msg["data"])
        except asyncio.CancelledError:
            raise
        except Exception:
            if not self.expect_loss:
                self.losses += 1

    def on_message(self, channel: str, text: bytes | str) -> None:
        data = orjson.loads(text)
        if not isinstance(data, dict) or data.get("t") != "change":
            return
        room = channel.removeprefix(PREFIX)
        trace = self.trace(room)
        v = int(data["v"])
        if v <= trace.v:
            trace.rewinds.append((trace.v, v))
        trace.messages += 1
        self._advance(trace, v, data["state"])
        events = seat_events(data["state"], data["events"])
        trace.events.extend(events)
        trace.computer += sum(ev.away for ev in events)

    @staticmethod
    def _advance(trace: RoomTrace, v: int, state: dict[str, Any]) -> None:
        if trace.state is None or int(state["version"]) != trace.version:
            trace.changed_at = time.monotonic()
        trace.v, trace.state = v, state

    async def _catch_up(self, client: Redis, codes: list[str]) -> None:
        """After a restart: rooms stored newer than their last message are gaps."""
        stored = await read_rooms(client, codes)
        for code, (v, state) in stored.items():
            trace = self.trace(code)
            if v <= trace.v:
                continue
            if int(state["version"]) != trace.version:
                self.gaps.append(Gap(code, trace.state, state, time.time_ns() // 1_000_000))
            self._advance(trace, v, state)


async def read_rooms(client: Redis, codes: list[str]) -> dict[str, tuple[int, dict[str, Any]]]:
    """The stored (store version, table) of each room of `codes` that exists."""
    out: dict[str, tuple[int, dict[str, Any]]] = {}
    for i in range(0, len(codes), 200):
        pipe = client.pipeline(transaction=False)
        chunk = codes[i : i + 200]
        for code in chunk:
            pipe.hmget(PREFIX + code, "v", "doc")
        for code, (v, doc) in zip(chunk, await pipe.execute(), strict=True):
            if v is not None and doc is not None:
                out[code] = (int(v), orjson.loads(doc)["state"])
    return out


async def stored_rooms(port: int, codes: list[str]) -> dict[str, tuple[int, dict[str, Any]]]:
    """`read_rooms` on a connection of its own."""
    client = Redis(host="127.0.0.1", port=port, socket_connect_timeout=5, socket_timeout=10)
    try:
        return await read_rooms(client, codes)
    finally:
        await client.aclose()
