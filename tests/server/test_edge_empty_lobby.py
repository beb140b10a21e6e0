"""Empty lobbies do not hold the room cap (issue 39; docs/deploy.md, "Rooms and
memory"): a lobby none of whose human seats has been connected for
`CRISP_EMPTY_LOBBY_TTL_S` (30 min) is deleted, by the scheduler, on the manual
clock. A lobby with a connected seat, and a game that has started, stay.
"""

from __future__ import annotations

from collections.abc import Callable

from crisp.server.rooms.changes import EMPTY_LOBBY_MS
from tests.support.player import Player, close_all
from tests.support.rooms import create_room, start_game, table
from tests.support.servers import ThreadServer


async def status(server: ThreadServer, code: str) -> int:
    async with server.http() as c:
        return (await c.get(f"/api/rooms/{code}")).status_code


async def test_a_lobby_nobody_is_connected_to_is_deleted_after_thirty_minutes(
    make_server: Callable[..., ThreadServer],
) -> None:
    server = make_server()
    left, pid, token = await create_room(server, "Ana")
    ana = await Player.join(server, left, pid, token)
    await ana.close()  # its only seat left: the lobby is empty from now
    await server.advance(EMPTY_LOBBY_MS - 1000)
    assert await status(server, left) == 200
    await server.advance(1000)
    assert await status(server, left) == 404


async def test_the_empty_lobby_time_is_a_setting_a_return_restarts_it_and_games_stay(
    make_server: Callable[..., ThreadServer],
) -> None:
    server = make_server(empty_lobby_ttl_s=60)
    played, players = await table(server, 2)
    await start_game(players)
    await close_all(players)  # nobody there, but a game in play: the idle time holds
    kept, kpid, ktoken = await create_room(server, "Ben")
    ben = await Player.join(server, kept, kpid, ktoken)  # stays connected
    code, pid, token = await create_room(server, "Ana")
    ana = await Player.join(server, code, pid, token)
    await ana.close()
    await server.advance(50_000)
    ana = await Player.join(server, code, pid, token)  # back within the minute
    await ana.close()
    await server.advance(50_000)
    assert await status(server, code) == 200  # 100 s since the first leave, 50 since the last
    await server.advance(10_000)
    assert await status(server, code) == 404
    assert await status(server, played) == 200
    assert await status(server, kept) == 200
    await close_all([ben])


async def test_an_empty_lobby_of_another_game_is_deleted_too(
    make_server: Callable[..., ThreadServer],
) -> None:
    """A table room (wire/rules.py: every game but Crisp) follows the same rule."""
    server = make_server(empty_lobby_ttl_s=60)
    code, pid, token = await create_room(server, "Ana", game="cribbage")
    ana = await Player.join(server, code, pid, token)
    await ana.close()
    await server.advance(59_000)
    assert await status(server, code) == 200
    await server.advance(1_000)
    assert await status(server, code) == 404
