from __future__ import annotations

from tests.server.kit import Player, ThreadServer, close_all, table


async def test_smoke(server: ThreadServer) -> None:
    code, players = await table(server, 2)
    host, ben = players
    assert host.view["you"] == "p1" and ben.view["you"] == "p2"
    await host.act("start")
    await ben.wait_view(lambda v: v["status"] == "peek")
    await host.act("ready")
    await ben.act("ready")
    await ben.wait_view(lambda v: v["status"] == "playing")
    await close_all(players)
    _ = Player
