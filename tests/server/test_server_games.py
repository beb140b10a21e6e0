"""Protocol v2 (protocol.md "v2 additions", docs/protocol-additions.md "Games"):
the games listed, the game of a room, in its look-up and in every view; a room
stored before games were named is Crisp's; test decks as `decks`."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import orjson

from crisp.engine.actions import DRAW_SECONDS, LIMITS
from crisp.games import registry
from crisp.server.rooms.document import RoomDoc
from tests.support.decks import deck
from tests.support.player import Player, close_all
from tests.support.rooms import create_room, start_game, table
from tests.support.servers import ThreadServer


def assert_error(r: httpx.Response, status: int, code: str) -> None:
    assert r.status_code == status, r.text
    assert r.json()["error"]["code"] == code


async def test_the_games_are_listed_with_seats_options_and_levels(server: ThreadServer) -> None:
    async with server.http() as c:
        r = await c.get("/api/games")
    assert r.status_code == 200
    games = r.json()["games"]
    assert [g["id"] for g in games] == ["crisp", "cribbage", "crapette"]  # every game hosted
    assert games[0] == {
        "id": "crisp",
        "seats": {"min": 2, "max": 8},  # R1.1
        "teams": False,
        "options": {
            "limit": {"default": 100, "choices": list(LIMITS)},  # R15.1
            "draw_seconds": {"default": None,
                             "choices": [None, *(s for s in DRAW_SECONDS if s)]},  # R14.1
            "discard_draw": {"default": False, "choices": [False, True]},  # R13
            "watchers": {"default": True, "choices": [True, False]},  # R18.1
        },
        "bot_levels": ["easy", "normal", "hard"],  # R17.1
    }
    crisp = registry.get("crisp")
    for name, option in games[0]["options"].items():  # every option's default is a choice
        assert option["default"] in option["choices"] and name in crisp.options


async def test_a_room_is_crisp_unless_it_names_its_game(server: ThreadServer) -> None:
    async with server.http() as c:
        for body in ({"name": "Ana"}, {"name": "Ana", "game": "crisp"}):
            r = await c.post("/api/rooms", json=body)
            assert r.status_code == 201, r.text
            room = (await c.get(f"/api/rooms/{r.json()['code']}")).json()
            assert room["game"] == "crisp"
        for game in ("chess", "", "CRISP", 7, None, ["crisp"], {"id": "crisp"}):
            r = await c.post("/api/rooms", json={"name": "Ana", "game": game})
            assert_error(r, 422, "unknown_game")
        # every registered game is hosted (wire/rules.py: the table holds it)
        for game in ("cribbage", "crapette"):
            r = await c.post("/api/rooms", json={"name": "Ana", "game": game})
            assert r.status_code == 201, r.text
            room = (await c.get(f"/api/rooms/{r.json()['code']}")).json()
            assert room["game"] == game and room["status"] == "lobby"


async def test_every_view_names_the_game(server: ThreadServer) -> None:
    """Seats and a watcher, in the lobby and in play (memory and Redis)."""
    code, players = await table(server, 2, game="crisp")
    watcher = await Player.watch(server, code)
    try:
        await start_game(players)
        await watcher.wait_view(lambda v: v["status"] != "lobby")
        for p in [*players, watcher]:
            assert p.updates and all(u["view"]["game"] == "crisp" for u in p.updates)
    finally:
        await close_all([*players, watcher])


async def test_a_room_stored_before_games_were_named_is_crisp(server: ThreadServer) -> None:
    code, pid, token = await create_room(server)
    stored = await server.call(server.ctx.store.load(code))
    assert stored is not None
    data = orjson.loads(stored.doc)
    assert data["game"] == "crisp"
    del data["game"]  # as an older server wrote it
    assert RoomDoc.loads(orjson.dumps(data).decode()).game == "crisp"
    saved = await server.call(server.ctx.store.save(code, stored.version,
                                                    orjson.dumps(data).decode()))
    assert saved
    server.ctx.rooms.docs.forget(code)
    async with server.http() as c:
        assert (await c.get(f"/api/rooms/{code}")).json()["game"] == "crisp"
    host = await Player.join(server, code, pid, token)
    try:
        assert host.view["game"] == "crisp"
        again = await server.call(server.ctx.store.load(code))
        assert again is not None and orjson.loads(again.doc)["game"] == "crisp"  # written now
    finally:
        await host.close()


async def test_test_decks_as_decks(server: ThreadServer,
                                   make_server: Callable[..., ThreadServer]) -> None:
    """`decks` (v2, test hooks): one deck per hand, in order (Crisp: per round)."""
    stacked, other = deck("AS", "2S", "3S"), deck("KH", "QH", "JH")
    async with server.http() as c:
        r = await c.post("/api/rooms", json={"name": "Ana", "decks": [stacked, other]})
        assert r.status_code == 201, r.text
        doc = await server.call(server.ctx.rooms.load(r.json()["code"]))
        assert doc is not None and doc.state.test_deck is not None
        assert [card.text for card in doc.state.test_deck] == [*stacked, *other]
        for bad in ([stacked, stacked[:51]], [], [stacked[:51]], stacked, "AS", [stacked, 7]):
            r = await c.post("/api/rooms", json={"name": "Ana", "decks": bad})
            assert_error(r, 422, "bad_deck")
        r = await c.post("/api/rooms", json={"name": "Ana", "decks": [stacked], "deck": stacked})
        assert_error(r, 422, "bad_deck")
    off = make_server(test_hooks=False)
    async with off.http() as c:
        r = await c.post("/api/rooms", json={"name": "Ana", "decks": [stacked]})
        assert_error(r, 422, "test_hooks_off")


def test_crisps_listing_is_what_its_rooms_enforce() -> None:
    """GET /api/games's seats and levels for Crisp are the ones its rooms hold to: the
    engine's seat range (R1.1) and the levels `add_bot` takes on the wire (R17.1)."""
    from typing import get_args

    from crisp.engine.state import MAX_PLAYERS, MIN_PLAYERS
    from crisp.server.wire.client import Level

    crisp = registry.get("crisp")
    assert (crisp.seats.min, crisp.seats.max) == (MIN_PLAYERS, MAX_PLAYERS)
    assert list(crisp.bot_levels) == [str(level) for level in get_args(Level)]
