"""Rooms for the tests: created and joined over HTTP, seated with connected players,
started (the start / peek / ready sequence of R16.2)."""

from __future__ import annotations

from typing import Any

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
    waits for the peek phase and, with `ready`, confirms it (R16.2)."""
    host = players[0]
    if options:
        await host.act("options", **options)
    await host.act("start")
    for p in players:
        await p.wait_view(lambda v: v["status"] == "peek")
        if ready:
            await p.act("ready")
