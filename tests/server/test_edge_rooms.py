"""Rooms have bounds (issue 23): a total cap of rooms in the store, room budgets per
IPv6 /64 and per /48 (a site holds 65,536 /64s), and a room nobody ever opened is
deleted after minutes, not hours. On both stores; game time on the manual clock."""

from __future__ import annotations

from collections.abc import Callable

from tests.support.player import Player, close_all
from tests.support.rooms import create_room, start_game, table
from tests.support.servers import ThreadServer

UNOPENED_MS = 600_000  # CRISP_UNOPENED_ROOM_TTL_S's default


async def test_the_server_refuses_rooms_past_its_cap_with_a_clear_503(
    make_server: Callable[..., ThreadServer],
) -> None:
    server = make_server(max_rooms=2)
    await create_room(server, "Ana")
    await create_room(server, "Ben")
    async with server.http() as c:
        r = await c.post("/api/rooms", json={"name": "Cid"})
        assert r.status_code == 503, r.text
        assert r.json()["error"]["code"] == "too_many_rooms"
        assert int(r.headers["retry-after"]) >= 1
        metrics = (await c.get("/metrics")).text
    assert 'crisp_limited_total{budget="rooms_total"} 1.0' in metrics


async def test_an_ipv6_site_shares_a_budget_wider_than_one_64(
    make_server: Callable[..., ThreadServer],
) -> None:
    """2 rooms per /64 and, 16 times that, 32 per /48: sixteen /64s of one /48 create
    their 2 each; a seventeenth /64 of the same /48 is refused; another /48 is not."""
    server = make_server(http_limits="on", limit_rooms="2/1h", trusted_proxies=["127.0.0.1"])

    async def create(address: str) -> int:
        async with server.http() as c:
            r = await c.post("/api/rooms", json={"name": "Ana"},
                             headers={"X-Forwarded-For": address})
        return r.status_code

    for net in range(16):
        assert [await create(f"2001:db8:7:{net:x}::1") for _ in range(2)] == [201, 201]
        assert await create(f"2001:db8:7:{net:x}::2") == 429  # the /64's own budget
    assert await create("2001:db8:7:ff::1") == 429  # a new /64, but the /48 is spent
    assert await create("2001:db8:8::1") == 201  # another site


async def test_a_room_nobody_ever_opened_is_deleted_after_ten_minutes(
    make_server: Callable[..., ThreadServer],
) -> None:
    server = make_server()
    unopened, _, _ = await create_room(server, "Ana")
    opened, pid, token = await create_room(server, "Ben")
    ben = await Player.join(server, opened, pid, token)
    await ben.close()  # it was opened once: it lives the idle time, as before
    async with server.http() as c:
        await server.advance(UNOPENED_MS - 1)
        assert (await c.get(f"/api/rooms/{unopened}")).status_code == 200
        await server.advance(1)
        assert (await c.get(f"/api/rooms/{unopened}")).status_code == 404
        assert (await c.get(f"/api/rooms/{opened}")).status_code == 200
    ben = await Player.join(server, opened, pid, token)
    await close_all([ben])


async def test_a_started_game_answers_game_started_even_when_its_lobby_was_locked(
    make_server: Callable[..., ThreadServer],
) -> None:
    """protocol.md: a join to a started game is 409 `game_started`, whatever else; a
    kick locked this room's lobby before the game started (issue 23)."""
    code, players = await table(server := make_server(), 3)
    ana, _ben, cid = players
    await ana.act("kick", player=cid.pid)  # locks the lobby
    await start_game(players[:2])
    async with server.http() as c:
        r = await c.post(f"/api/rooms/{code}/players", json={"name": "Dee"})
    assert r.status_code == 409 and r.json()["error"]["code"] == "game_started", r.text
    await close_all(players[:2])
