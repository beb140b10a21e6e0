"""The floor: the least a server on Crisp's stack must do per action (issue 38).

`crisp bench --floor` runs this beside `crisp serve` under the same driver and
load (docs/benchmarks.md, "The floor"). It is FastAPI + uvicorn (httptools, the
websockets sans-I/O protocol, no per-message deflate, uvloop) + redis.asyncio +
orjson, and speaks just enough of Crisp's protocol for the bench's clients:

- `POST /api/rooms` and `POST /api/rooms/{code}/players` give a seat (`code`,
  `player_id`, `token`); the room document lives in Redis.
- `/ws/{code}`: `hello` with the token, then a full update; the host's
  `options` and `start`, then the seats take turns: `draw`, then `swap` or
  `discard`. The only rule is whose turn it is (so that the clients play);
  anything else is refused with `illegal`.

Per accepted action, and nothing else:

1. the client's frame is parsed once (orjson);
2. ONE pipelined Redis round trip: GET of the room's document (a server reads
   what it writes over), SET of the new one, PUBLISH of the change on the
   room's channel (on a Redis Cluster, `redis+cluster://`: SPUBLISH, and
   SSUBSCRIBE on one connection per master);
3. every process with sockets of the room reads the message on its one pub/sub
   connection and parses it once (orjson);
4. each of the room's seats on that process gets its own view (the shape and
   size of Crisp's, about 1.2 KB: what a seat may see differs per seat),
   encoded once (orjson) and written to its socket.

The garbage collector is set as `crisp serve` sets it (crisp/server/ops/gctune.py:
what start-up made frozen, thresholds raised): with the defaults a full collection
of 4,000 sockets' objects stalls the loop for half a second, and that is a setting,
not work. No compare-and-set, no timers, no presence, no metrics, no logging on the path:
each process keeps the room as last made or published and builds the next one
from it. `crisp/bench/outside_floor.py` is an independent floor of the same
definition that shares no code with this one: `crisp bench --outside-floor`
measures both in one invocation (they must agree within 10 %).

    python -m crisp.bench.floor --port 8100 --redis redis://127.0.0.1:6379/0 [--workers 2]

`CRISP_LOOP_LAG_DIR` starts the same loop-lag probe as `crisp serve`
(crisp/server/ops/looplag.py).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import logging
import os
import secrets
import string
from collections.abc import AsyncIterator
from typing import Any

import orjson
import uvicorn
from fastapi import FastAPI, HTTPException, Request, WebSocket, WebSocketDisconnect
from redis.asyncio import BlockingConnectionPool, Redis
from redis.asyncio.client import PubSub
from redis.asyncio.cluster import RedisCluster

from crisp.engine import ActionType as A
from crisp.engine import ErrorCode, Source, Status
from crisp.engine import EventKind as K
from crisp.games.registry import DEFAULT
from crisp.server.ops import gctune, looplag
from crisp.server.wire.vocabulary import MessageType, ServerErrorCode

log = logging.getLogger("floor")
PREFIX = "floor:room:"
ENV_REDIS = "FLOOR_REDIS_URL"
CARDS = [r + s for s in "SHDC" for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10",
                                          "J", "Q", "K")]  # fmt: skip
# Crisp's wire names, as module names (a member looked up on its class costs ~0.3 us).
LOBBY_, PLAYING_ = str(Status.LOBBY), str(Status.PLAYING)
OPTIONS, START, DRAW, SWAP, DISCARD = (str(A.OPTIONS), str(A.START), str(A.DRAW), str(A.SWAP),
                                       str(A.DISCARD))  # fmt: skip
ROUND_STARTED, OPTIONS_SET, DREW, SWAPPED, DISCARDED = (
    str(K.ROUND_STARTED), str(K.OPTIONS), str(K.DREW), str(K.SWAPPED), str(K.DISCARDED))
STOCK = str(Source.STOCK)
HELLO, UPDATE, ERROR = str(MessageType.HELLO), str(MessageType.UPDATE), str(MessageType.ERROR)
ILLEGAL = str(ErrorCode.ILLEGAL)
TURN_KINDS = (SWAP, DISCARD)
dumps, loads = orjson.dumps, orjson.loads


def new_room(code: str) -> dict[str, Any]:
    """A room document: a deck, hands, token hashes (about 1 KB with 4 seats)."""
    return {"v": 1, "code": code, "version": 0, "status": LOBBY_,
            "options": {"limit": 100, "draw_seconds": None, "discard_draw": False},
            "players": [], "round": 0, "dealer": None, "turn": None, "holding": None,
            "stock": CARDS[12:], "discard": [], "events": []}  # fmt: skip


def add_player(room: dict[str, Any], name: str, token: str) -> str:
    n = len(room["players"])
    pid = f"p{n + 1}"
    room["players"].append({"id": pid, "name": name, "total": 0, "ready": False,
                            "hand": CARDS[n * 3 : n * 3 + 3],
                            "token": hashlib.sha256(token.encode()).hexdigest()})  # fmt: skip
    return pid


def view_for(room: dict[str, Any], pid: str) -> dict[str, Any]:
    """What seat `pid` sees: the shape and size of Crisp's view (protocol.md)."""
    players = room["players"]
    turn = room["turn"]
    mine = turn is not None and players[turn]["id"] == pid
    holding = room["holding"] if mine else None
    if room["status"] == LOBBY_:
        legal = [OPTIONS, START] if players[0]["id"] == pid else []
    elif mine:
        legal = list(TURN_KINDS) if holding else [DRAW]
    else:
        legal = []
    discard = room["discard"]
    return {
        "version": room["version"], "status": room["status"], "options": room["options"],
        "host": players[0]["id"], "you": pid, "watching": False,
        "players": [{"id": p["id"], "name": p["name"], "seat": i, "connected": True,
                     "is_bot": False, "bot_level": None, "away": False, "total": p["total"],
                     "ready": p["ready"], "cards": [None, None, None]}
                    for i, p in enumerate(players)],
        "round": room["round"], "dealer": room["dealer"],
        "turn": None if turn is None else {
            "player": players[turn]["id"], "may_start_at": 0, "draw_deadline": None,
            "drawn_from": STOCK if room["holding"] else None, "extra_draws": 0,
            "final": False, "kings": []},
        "crisp": {"caller": None, "window": None, "windows": [], "final_turns_left": []},
        "peek_ends_at": None, "stock_count": len(room["stock"]),
        "discard_top": discard[-1] if discard else None, "discard_count": len(discard),
        "holding": holding, "legal": legal, "last_round": None, "winners": [], "history": [],
        "game": DEFAULT, "code": room["code"], "locked": False, "watchers": 0, "lag_ms": None,
    }  # fmt: skip


def play(room: dict[str, Any], pid: str, kind: str) -> dict[str, Any] | None:
    """The room after `pid`'s message `kind`, or None if it is not theirs to send."""
    players = room["players"]
    seat = next((i for i, p in enumerate(players) if p["id"] == pid), None)
    if seat is None:
        return None
    new = dict(room)
    if room["status"] == LOBBY_:
        if seat != 0 or kind not in (OPTIONS, START):
            return None
        if kind == START:
            new.update(status=PLAYING_, round=1, dealer=players[-1]["id"], turn=0)
            new["events"] = [{"kind": ROUND_STARTED, "round": 1}]
        else:
            new["events"] = [{"kind": OPTIONS_SET, "limit": 100}]
    elif room["turn"] != seat:
        return None
    elif kind == DRAW and room["holding"] is None:
        stock = room["stock"] or CARDS[12:]
        new.update(holding=stock[0], stock=stock[1:])
        new["events"] = [{"kind": DREW, "player": pid, "source": STOCK}]
    elif kind in TURN_KINDS and room["holding"] is not None:
        card = room["holding"]
        new.update(holding=None, discard=[*room["discard"][-20:], card],
                   turn=(seat + 1) % len(players))  # fmt: skip
        new["events"] = [{"kind": SWAPPED if kind == SWAP else DISCARDED,
                          "player": pid, "card": card}]  # fmt: skip
    else:
        return None
    new["version"] = room["version"] + 1
    return new


class Floor:
    """One process: its Redis client, its pub/sub connection(s), the rooms it has
    sockets in (as last made or published) and their sockets."""

    def __init__(self, url: str) -> None:
        self.cluster = url.split("://", 1)[0].lower().endswith("+cluster")
        self.redis: Any
        if self.cluster:
            self.redis = RedisCluster.from_url(url.replace("+cluster", "", 1),
                                               max_connections=64)  # fmt: skip
        else:
            # Bounded and blocking, as Crisp's store's pool: under load an action waits
            # for a connection instead of failing with "Too many connections".
            pool = BlockingConnectionPool.from_url(url, max_connections=64, timeout=5)
            self.redis = Redis.from_pool(pool)
        self.publish_command = "SPUBLISH" if self.cluster else "PUBLISH"
        self.pubsubs: dict[str, PubSub] = {}  # node name ("" on one Redis) -> its pub/sub
        self.rooms: dict[str, dict[str, Any]] = {}
        self.sockets: dict[str, dict[str, Seat]] = {}  # code -> pid -> seat
        self.readers: list[asyncio.Task[None]] = []

    async def start(self) -> None:
        if self.cluster:
            await self.redis.initialize()
            return
        ps = self.pubsubs[""] = self.redis.pubsub()
        await ps.subscribe(PREFIX + "-")  # listen() needs one channel
        self.readers.append(asyncio.create_task(self._read(ps)))

    async def stop(self) -> None:
        for reader in self.readers:
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reader
        for ps in self.pubsubs.values():
            await ps.aclose()  # type: ignore[no-untyped-call, unused-ignore]  # redis-py < 8.2
        await self.redis.aclose()

    async def subscribe(self, code: str) -> None:
        """Hold the room's channel (on a cluster: on its master's connection)."""
        channel = PREFIX + code
        if not self.cluster:
            await self.pubsubs[""].subscribe(channel)
            return
        node = self.redis.get_node_from_key(channel)
        ps = self.pubsubs.get(node.name)
        fresh = ps is None
        if ps is None:
            ps = self.pubsubs[node.name] = Redis(host=node.host, port=node.port).pubsub()
        await ps.ssubscribe(channel)
        if fresh:
            self.readers.append(asyncio.create_task(self._read(ps)))

    async def unsubscribe(self, code: str) -> None:
        channel = PREFIX + code
        if not self.cluster:
            await self.pubsubs[""].unsubscribe(channel)
            return
        ps = self.pubsubs.get(self.redis.get_node_from_key(channel).name)
        if ps is not None:
            await ps.sunsubscribe(channel)

    async def _read(self, ps: PubSub) -> None:
        async for msg in ps.listen():
            if msg["type"] in ("message", "smessage"):
                await self._fan_out(msg["channel"][len(PREFIX) :].decode(), msg["data"])

    async def _fan_out(self, code: str, data: bytes) -> None:
        seats = self.sockets.get(code)
        if seats is None:
            return
        room = loads(data)  # once per message per process
        if room["version"] > self.rooms[code]["version"]:
            self.rooms[code] = room  # a change made by another process
        events = room["events"]
        for pid, seat in list(seats.items()):
            await seat.send(room, pid, events)

    async def change(self, code: str, new: dict[str, Any]) -> None:
        """One round trip: GET (as a server reads before it writes), SET, PUBLISH."""
        text = dumps(new)
        key = PREFIX + code
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.get(key)
            pipe.set(key, text)
            pipe.execute_command(self.publish_command, key, text)
            await pipe.execute()


class Seat:
    """One seat's socket and its update counter."""

    def __init__(self, ws: WebSocket) -> None:
        self.ws = ws
        self.seq = 0

    async def send(self, room: dict[str, Any], pid: str, events: list[dict[str, Any]]) -> None:
        self.seq += 1
        frame = dumps({"type": UPDATE, "seq": self.seq, "now": 0,
                       "view": view_for(room, pid), "events": events})  # fmt: skip
        with contextlib.suppress(Exception):
            await self.ws.send_text(frame.decode())


def _code() -> str:
    return "".join(secrets.choice(string.ascii_uppercase) for _ in range(8))


def create_app() -> FastAPI:
    floor = Floor(os.environ[ENV_REDIS])

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await floor.start()
        gctune.tune()  # the collector as `crisp serve` sets it (a full collection: 0.5 s)
        probe = looplag.start_from_env()
        try:
            yield
        finally:
            await looplag.stop(probe)
            await floor.stop()

    app = FastAPI(lifespan=lifespan)

    @app.get("/healthz")
    async def healthz() -> dict[str, bool]:
        return {"ok": True}

    @app.post("/api/rooms")
    async def create(request: Request) -> dict[str, str]:
        body = await request.json()
        code, token = _code(), secrets.token_urlsafe(24)
        room = new_room(code)
        pid = add_player(room, str(body.get("name", "?")), token)
        await floor.redis.set(PREFIX + code, dumps(room))
        return {"code": code, "player_id": pid, "token": token}

    @app.post("/api/rooms/{code}/players")
    async def join(code: str, request: Request) -> dict[str, str]:
        body = await request.json()
        text = await floor.redis.get(PREFIX + code)
        if text is None:
            raise HTTPException(404)
        room, token = loads(text), secrets.token_urlsafe(24)
        pid = add_player(room, str(body.get("name", "?")), token)
        await floor.redis.set(PREFIX + code, dumps(room))
        return {"code": code, "player_id": pid, "token": token}

    @app.websocket("/ws/{code}")
    async def socket(ws: WebSocket, code: str) -> None:
        await ws.accept()
        hello = loads(await ws.receive_text())
        text = await floor.redis.get(PREFIX + code)
        if text is None or hello.get("type") != HELLO:
            await ws.close(4401)
            return
        room = loads(text)
        digest = hashlib.sha256(str(hello.get("token")).encode()).hexdigest()
        pid = next((p["id"] for p in room["players"] if p["token"] == digest), None)
        if pid is None:
            await ws.close(4401)
            return
        seats = floor.sockets.get(code)
        if seats is None:
            seats = floor.sockets[code] = {}
            floor.rooms[code] = room
            await floor.subscribe(code)
        seat = seats[pid] = Seat(ws)
        try:
            # No presence: every seat is shown connected (the bench's host starts once
            # every client has connected).
            await seat.send(floor.rooms[code], pid, [])
            while True:
                msg = loads(await ws.receive_text())
                new = play(floor.rooms[code], pid, str(msg.get("type")))
                if new is None:
                    await ws.send_text(dumps({"type": ERROR, "code": ILLEGAL, "message": "not now",
                                              "ref": msg.get("id")}).decode())  # fmt: skip
                    continue
                old, floor.rooms[code] = floor.rooms[code], new  # the next action builds on it
                try:
                    await floor.change(code, new)
                except Exception:  # Redis failed (a cluster client under load): refused
                    if floor.rooms.get(code) is new:
                        floor.rooms[code] = old
                    refusal = {"type": ERROR, "code": ServerErrorCode.STORE_UNAVAILABLE,
                               "message": "try again", "ref": msg.get("id")}
                    await ws.send_text(dumps(refusal).decode())
        except WebSocketDisconnect:
            pass
        except Exception:
            log.exception("floor: socket of %s in %s failed", pid, code)
        finally:
            seats.pop(pid, None)
            if not seats:
                floor.sockets.pop(code, None)
                floor.rooms.pop(code, None)
                with contextlib.suppress(Exception):
                    await floor.unsubscribe(code)

    return app


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8100)
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--redis", required=True, metavar="URL")
    a = p.parse_args()
    os.environ[ENV_REDIS] = a.redis
    uvicorn.run("crisp.bench.floor:create_app", factory=True, host=a.host, port=a.port,
                workers=a.workers, http="httptools", ws="websockets-sansio",
                ws_per_message_deflate=False, log_level="error", lifespan="on")  # fmt: skip


if __name__ == "__main__":
    main()
