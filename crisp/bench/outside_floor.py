"""An outside floor: written apart from crisp/bench/floor.py, sharing no code with it
and importing nothing of Crisp, to check that the project's floor costs what any
minimal server of the same definition costs (issue 38, docs/benchmarks.md).

The definition: FastAPI + uvicorn + redis.asyncio, no rules, per action ONE
pipelined round trip of GET + SET + PUBLISH, and a view of Crisp's size (about
1.2 KB of JSON) sent to each of the room's 4 seats. It speaks only what the
bench's clients need: seats over HTTP, `hello`, the host's `options`/`start`,
then turns of `draw` and `swap`/`discard`. Its garbage collector is set as the
stack's servers set it (start-up frozen, thresholds 20,000 / 20 / 50).

    python -m crisp.bench.outside_floor --port 8200 --redis redis://127.0.0.1:6379/0
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import secrets
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from typing import Any

import orjson
import uvicorn
from fastapi import FastAPI, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import JSONResponse
from redis.asyncio import BlockingConnectionPool, Redis

REDIS_ENV = "OUTSIDE_FLOOR_REDIS"
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
DECK = [rank + suit for suit in "CDHS" for rank in RANKS]
PLAYER_PAD = {"connected": True, "is_bot": False, "bot_level": None, "away": False,
              "ready": False, "cards": [None, None, None]}  # fmt: skip


@dataclass
class Table:
    """A room as one process knows it."""

    code: str
    names: list[str] = field(default_factory=list)
    tokens: dict[str, str] = field(default_factory=dict)  # token -> player id
    version: int = 0
    playing: bool = False
    turn: int = 0
    holding: str | None = None
    drawn: int = 0
    pile: list[str] = field(default_factory=list)
    last: list[dict[str, Any]] = field(default_factory=list)  # the last change's events
    sockets: dict[str, WebSocket] = field(default_factory=dict)
    seqs: dict[str, int] = field(default_factory=dict)

    def doc(self) -> bytes:
        return orjson.dumps({
            "code": self.code, "version": self.version, "playing": self.playing,
            "turn": self.turn, "holding": self.holding, "drawn": self.drawn,
            "pile": self.pile, "names": self.names, "tokens": self.tokens,
            "events": self.last, "deck": DECK,
        })  # fmt: skip

    def load(self, raw: dict[str, Any]) -> None:
        for key in ("version", "playing", "turn", "holding", "drawn", "pile", "names"):
            setattr(self, key, raw[key])
        self.tokens = raw["tokens"]
        self.last = raw["events"]

    def frame(self, me: str) -> bytes:
        """Seat `me`'s update: everything a Crisp seat sees, at Crisp's size."""
        seat_ids = [f"p{i + 1}" for i in range(len(self.names))]
        on_turn = seat_ids[self.turn] if self.playing else None
        if not self.playing:
            legal = ["options", "start"] if me == "p1" else []
        elif me == on_turn:
            legal = ["swap", "discard"] if self.holding else ["draw"]
        else:
            legal = []
        view: dict[str, Any] = {
            "version": self.version, "status": "playing" if self.playing else "lobby",
            "options": {"limit": 100, "draw_seconds": None, "discard_draw": False,
                        "watchers": True},
            "host": "p1", "you": me, "watching": False,
            "players": [{"id": pid, "name": name, "seat": n, "total": 0, **PLAYER_PAD}
                        for n, (pid, name) in enumerate(zip(seat_ids, self.names, strict=True))],
            "round": 1 if self.playing else 0, "dealer": seat_ids[-1] if self.playing else None,
            "turn": {"player": on_turn, "may_start_at": 0, "draw_deadline": None,
                     "drawn_from": "stock" if self.holding else None, "extra_draws": 0,
                     "final": False, "kings": []} if self.playing else None,
            "crisp": {"caller": None, "window": None, "windows": [], "final_turns_left": []},
            "peek_ends_at": None, "stock_count": 40 - self.drawn % 40,
            "discard_top": self.pile[-1] if self.pile else None,
            "discard_count": len(self.pile),
            "holding": self.holding if me == on_turn else None, "legal": legal,
            "last_round": None, "winners": [], "history": [], "game": "crisp",
            "code": self.code, "locked": False, "watchers": 0, "lag_ms": None,
        }  # fmt: skip
        self.seqs[me] = self.seqs.get(me, 0) + 1
        return orjson.dumps({"type": "update", "seq": self.seqs[me], "now": 0, "view": view,
                             "events": self.last})  # fmt: skip


def build() -> FastAPI:
    redis = Redis.from_pool(BlockingConnectionPool.from_url(
        os.environ[REDIS_ENV], max_connections=64, timeout=5))  # fmt: skip
    pubsub = redis.pubsub()
    here: dict[str, Table] = {}  # rooms with a socket in this process

    async def listen() -> None:
        async for message in pubsub.listen():
            if message["type"] != "message":
                continue
            table = here.get(message["channel"].decode()[4:])
            if table is None:
                continue
            table.load(orjson.loads(message["data"]))
            for me, ws in list(table.sockets.items()):
                with suppress(Exception):
                    await ws.send_text(table.frame(me).decode())

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> Any:
        await pubsub.subscribe("out:-")
        task = asyncio.create_task(listen())
        # The stack's collector setting (as any server of thousands of sockets needs):
        # start-up's objects out of every scan, young collections rarer.
        gc.collect()
        gc.freeze()
        gc.set_threshold(20_000, 20, 50)
        yield
        task.cancel()
        with suppress(asyncio.CancelledError):
            await task
        await pubsub.aclose()  # type: ignore[no-untyped-call, unused-ignore]
        await redis.aclose()

    app = FastAPI(lifespan=lifespan)

    @app.get("/healthz")
    async def health() -> dict[str, str]:
        return {"status": "ok"}

    async def seat(table: Table, name: str) -> dict[str, str]:
        token = secrets.token_hex(16)
        table.names.append(name)
        table.tokens[token] = f"p{len(table.names)}"
        await redis.set(f"doc:{table.code}", table.doc())
        return {"code": table.code, "player_id": table.tokens[token], "token": token}

    @app.post("/api/rooms")
    async def open_room(request: Request) -> dict[str, str]:
        return await seat(Table(secrets.token_hex(4).upper()), (await request.json())["name"])

    @app.post("/api/rooms/{code}/players")
    async def join(code: str, request: Request) -> Any:
        raw = await redis.get(f"doc:{code}")
        if raw is None:
            return JSONResponse({"error": "no_room"}, 404)
        table = Table(code)
        table.load(orjson.loads(raw))
        return await seat(table, (await request.json())["name"])

    @app.websocket("/ws/{code}")
    async def play(ws: WebSocket, code: str) -> None:
        await ws.accept()
        hello = orjson.loads(await ws.receive_text())
        raw = await redis.get(f"doc:{code}")
        if raw is None:
            await ws.close(4404)
            return
        table = here.get(code)
        if table is None:
            table = here[code] = Table(code)
            table.load(orjson.loads(raw))
            await pubsub.subscribe(f"out:{code}")
        me = table.tokens.get(hello.get("token", ""))
        if me is None:
            await ws.close(4401)
            return
        table.sockets[me] = ws
        await ws.send_text(table.frame(me).decode())
        try:
            while True:
                message = orjson.loads(await ws.receive_text())
                kind = message.get("type")
                on_turn = f"p{table.turn + 1}"
                if not table.playing and me == "p1" and kind in ("options", "start"):
                    table.playing = kind == "start"
                    table.last = [{"kind": "round_started" if table.playing else "options",
                                   "round": 1}]  # fmt: skip
                elif table.playing and me == on_turn and kind == "draw" and not table.holding:
                    table.holding = DECK[table.drawn % 52]
                    table.drawn += 1
                    table.last = [{"kind": "drew", "player": me, "source": "stock"}]
                elif table.playing and me == on_turn and kind in ("swap", "discard") \
                        and table.holding:  # fmt: skip
                    table.pile = [*table.pile[-20:], table.holding]
                    table.last = [{"kind": "swapped" if kind == "swap" else "discarded",
                                   "player": me, "card": table.holding}]  # fmt: skip
                    table.holding = None
                    table.turn = (table.turn + 1) % len(table.names)
                else:
                    await ws.send_text(orjson.dumps({"type": "error", "code": "illegal",
                                                     "ref": message.get("id")}).decode())
                    continue
                table.version += 1
                doc = table.doc()
                async with redis.pipeline(transaction=False) as pipe:
                    pipe.get(f"doc:{code}")
                    pipe.set(f"doc:{code}", doc)
                    pipe.publish(f"out:{code}", doc)
                    await pipe.execute()
        except WebSocketDisconnect:
            pass
        finally:
            table.sockets.pop(me, None)
            if not table.sockets:
                here.pop(code, None)
                with suppress(Exception):
                    await pubsub.unsubscribe(f"out:{code}")

    return app


def main() -> None:
    args = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    args.add_argument("--port", type=int, default=8200)
    args.add_argument("--workers", type=int, default=1)
    args.add_argument("--redis", required=True)
    a = args.parse_args()
    os.environ[REDIS_ENV] = a.redis
    uvicorn.run("crisp.bench.outside_floor:build", factory=True, host="127.0.0.1", port=a.port,
                workers=a.workers, http="httptools", ws="websockets-sansio",
                ws_per_message_deflate=False, log_level="error")  # fmt: skip


if __name__ == "__main__":
    main()
