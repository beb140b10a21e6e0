"""Rooms for the tests: created and joined over HTTP, seated with connected players,
started (the start / peek / ready sequence of R16.2)."""

from __future__ import annotations

import json
from typing import Any

from crisp.engine import State
from crisp.store import create_store

from .player import Player
from .servers import LiveServer


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


async def start_game(players: list[Player], *, ready: bool = True, **options: Any) -> None:
    """The host (`players[0]`) sets `options` (if any) and starts the game; every player
    waits for the peek phase and, with `ready`, confirms it (R16.2), and then every
    player has the table in play. On real time the phase may end by its clock (10 s)
    while the players before confirm on a slow machine: a player then only checks
    that it was shown the phase."""
    host = players[0]
    if options:
        await host.act("options", **options)
    marks = [p.mark() for p in players]
    await host.act("start")
    for p, mark in zip(players, marks, strict=True):

        def shown_peek(q: Player, m: int = mark) -> bool:
            return any(u["view"]["status"] == "peek" for u in q.updates[m:])

        await p.wait(shown_peek, what="the peek phase")
        if ready and p.view["status"] == "peek":
            await p.act("ready")
    if ready:  # every seat confirmed: play starts (R16.2)
        for p, mark in zip(players, marks, strict=True):
            await p.wait_view(lambda v: v["status"] == "playing", after=mark,
                              what="the table in play")


def acts_of(p: Player, pid: str, after: int = 0) -> list[tuple[int, dict[str, Any]]]:
    """(server time, event) of every move `pid` made, as `p` saw them."""
    moves = {"ready", "drew", "swapped", "discarded", "jack", "queen", "king", "crisp"}
    return [
        (u["now"], e) for u in p.updates[after:] for e in u["events"]
        if e["kind"] in moves and e.get("player") == pid and not e.get("timeout")
    ]


async def add_bots(host: Player, *levels: str) -> list[str]:
    """The host adds computer players; their ids."""
    ids = []
    for level in levels:
        answer = await host.act("add_bot", level=level)
        assert answer["type"] == "update", answer
        (added,) = [e for e in answer["events"] if e["kind"] == "bot_added"]
        assert added["level"] == level
        ids.append(added["player"])
    return ids


async def stored_state(redis_url: str, code: str) -> State:
    """The room's engine state as saved in the Redis at `redis_url`."""
    store = create_store(redis_url)
    await store.start()
    try:
        found = await store.load(code)
        assert found is not None
        return State.from_json(json.loads(found.doc)["state"])
    finally:
        await store.close()
