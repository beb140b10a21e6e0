"""The HTTP API (protocol.md "HTTP"): every route and every error shape."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from crisp.bench.procs import start_redis
from crisp.server.rooms.codes import ALPHABET, CODE_LEN
from tests.support.decks import deck
from tests.support.player import Player
from tests.support.rooms import create_room, join_room, start_game
from tests.support.servers import ThreadServer


def assert_error(r: httpx.Response, status: int, code: str) -> None:
    assert r.status_code == status, r.text
    body = r.json()
    assert set(body) == {"error"}
    assert set(body["error"]) == {"code", "message"}
    assert body["error"]["code"] == code
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]


async def test_create_room_gives_code_player_and_token(server: ThreadServer) -> None:
    async with server.http() as c:
        r = await c.post("/api/rooms", json={"name": "  Ana  "})
        assert r.status_code == 201
        assert r.headers["cache-control"] == "no-store"
        body = r.json()
        assert set(body) == {"code", "player_id", "token"}
        assert len(body["code"]) == CODE_LEN and set(body["code"]) <= set(ALPHABET)
        assert body["player_id"] == "p1"
        assert len(body["token"]) >= 22  # >= 128 bits, urlsafe base64
        room = (await c.get(f"/api/rooms/{body['code']}")).json()
    assert room == {
        "code": body["code"],
        "game": "crisp",  # v2
        "status": "lobby",
        "options": {"limit": 100, "draw_seconds": None, "discard_draw": False,
                    "watchers": True},  # R18.1
        "players": [{"id": "p1", "name": "Ana", "connected": False, "is_host": True}],
        "locked": False,
        "watchers": 0,  # R18.1
    }


async def test_tokens_are_stored_hashed_only(server: ThreadServer) -> None:
    code, _, token = await create_room(server)
    _, token2 = await join_room(server, code, "Ben")
    stored = await server.call(server.ctx.store.load(code))
    assert token not in stored.doc and token2 not in stored.doc
    doc = json.loads(stored.doc)
    assert set(doc["seats"]) == {"p1", "p2"}
    assert all(len(h) == 64 for h in doc["seats"].values())


BAD_NAMES = ["", "   ", "x" * 21, "a\x00b", "a\nb", "tab\there", "a\u2028b", 5, None, ["Ana"]]


async def test_bad_names_are_refused(server: ThreadServer) -> None:
    code, _, _ = await create_room(server)
    async with server.http() as c:
        for name in BAD_NAMES:
            assert_error(await c.post("/api/rooms", json={"name": name}), 422, "bad_name")
            r = await c.post(f"/api/rooms/{code}/players", json={"name": name})
            assert_error(r, 422, "bad_name")


async def test_names_up_to_20_characters_any_script(server: ThreadServer) -> None:
    for name in ["x" * 20, "سارة", "Putri 🃏", "  Ñandú  "]:
        code, _, _ = await create_room(server, name)
        async with server.http() as c:
            room = (await c.get(f"/api/rooms/{code}")).json()
        assert room["players"][0]["name"] == name.strip()


async def test_missing_or_malformed_bodies(server: ThreadServer) -> None:
    async with server.http() as c:
        assert_error(await c.post("/api/rooms", json={}), 422, "bad_name")
        assert_error(await c.post("/api/rooms", content=b"{not json"), 422, "bad_request")
        assert_error(await c.post("/api/rooms", json=["Ana"]), 422, "bad_request")
        assert_error(await c.post("/api/rooms"), 422, "bad_request")
        big = {"name": "Ana", "padding": "x" * 100_000}
        assert_error(await c.post("/api/rooms", json=big), 413, "too_large")


async def test_join_room(server: ThreadServer) -> None:
    code, _, token = await create_room(server)
    pid, token2 = await join_room(server, code.lower(), " Ben ")  # codes: case-insensitive
    assert pid == "p2" and token2 != token
    async with server.http() as c:
        room = (await c.get(f"/api/rooms/{code.lower()}")).json()
    assert room["code"] == code
    assert [(p["id"], p["name"], p["is_host"]) for p in room["players"]] == [
        ("p1", "Ana", True),
        ("p2", "Ben", False),
    ]


async def test_unknown_rooms_are_404(server: ThreadServer) -> None:
    async with server.http() as c:
        assert_error(await c.get("/api/rooms/ZZZZ"), 404, "not_found")
        assert_error(await c.get("/api/rooms/0O1I"), 404, "not_found")  # not in the alphabet
        assert_error(await c.get("/api/rooms/TOOLONGCODE"), 404, "not_found")
        r = await c.post("/api/rooms/ZZZZ/players", json={"name": "Ben"})
        assert_error(r, 404, "not_found")


async def test_room_full_at_eight(server: ThreadServer) -> None:
    code, _, _ = await create_room(server)
    for i in range(7):
        await join_room(server, code, f"P{i}")
    async with server.http() as c:
        r = await c.post(f"/api/rooms/{code}/players", json={"name": "Nine"})
        assert_error(r, 409, "room_full")


async def test_game_started_refuses_joins(server: ThreadServer) -> None:
    code, pid, token = await create_room(server)
    _pid2, _token2 = await join_room(server, code, "Ben")
    host = await Player.join(server, code, pid, token)
    await start_game([host], ready=False)
    async with server.http() as c:
        r = await c.post(f"/api/rooms/{code}/players", json={"name": "Late"})
        assert_error(r, 409, "game_started")
        room = (await c.get(f"/api/rooms/{code}")).json()
    assert room["status"] == "peek"
    assert [p["connected"] for p in room["players"]] == [True, False]
    await host.close()


async def test_test_hooks_off_refuses_deck_and_dealer(
    make_server: Callable[..., ThreadServer],
) -> None:
    server = make_server(test_hooks=False)
    async with server.http() as c:
        for extra in ({"deck": deck()}, {"dealer": 0}, {"deck": None}):
            r = await c.post("/api/rooms", json={"name": "Ana", **extra})
            assert_error(r, 422, "test_hooks_off")
        assert (await c.post("/api/rooms", json={"name": "Ana"})).status_code == 201


async def test_bad_test_decks(server: ThreadServer) -> None:
    good = deck()
    async with server.http() as c:
        for bad in (good[:51], [*good[:51], good[0]], [*good[:51], "1X"], "AS", [1] * 52):
            r = await c.post("/api/rooms", json={"name": "A", "deck": bad})
            assert_error(r, 422, "bad_deck")
        for dealer in (-1, 8, "0", True, 1.5):
            r = await c.post("/api/rooms", json={"name": "A", "dealer": dealer})
            assert_error(r, 422, "bad_dealer")
        r = await c.post("/api/rooms", json={"name": "A", "deck": good, "dealer": 1})
        assert r.status_code == 201


async def test_health_and_readiness(server: ThreadServer) -> None:
    async with server.http() as c:
        assert (await c.get("/healthz")).status_code == 200
        r = await c.get("/readyz")
        assert r.status_code == 200 and r.json() == {"status": "ready"}


@pytest.mark.redis
async def test_readyz_is_503_when_redis_is_gone(spawn_server: Callable[..., ThreadServer]) -> None:
    redis = start_redis()
    try:
        server = spawn_server(redis_url=redis.url)
        code, pid, token = await create_room(server)
        host = await Player.join(server, code, pid, token)
        async with server.http() as c:
            assert (await c.get("/readyz")).status_code == 200
            redis.kill()
            await host.act("options", limit=50, id="o")
            err = await host.wait_error()
            assert (err["code"], err["ref"]) == ("store_unavailable", "o")
            assert not host.closed
            assert_error(await c.get("/readyz"), 503, "store_unavailable")
            assert (await c.get("/healthz")).status_code == 200
            r = await c.post("/api/rooms", json={"name": "Ana"})
            assert_error(r, 503, "store_unavailable")
            assert_error(await c.get(f"/api/rooms/{code}"), 503, "store_unavailable")
        p = await Player.join(server, code, pid, token, hello=False)
        await p.send({"type": "hello", "token": token})
        assert await p.wait_closed() == 1013  # try again later
    finally:
        redis.stop()


async def test_protocol_schema(server: ThreadServer) -> None:
    async with server.http() as c:
        schema = (await c.get("/api/protocol.json")).json()
    client = json.dumps(schema["client"])
    for kind in ("hello", "options", "start", "kick", "ready", "draw", "swap", "discard",
                 "jack", "queen", "king", "crisp", "next_round", "rematch"):
        assert f'"{kind}"' in client
    assert "discriminator" in client
    assert "update" in json.dumps(schema["server"]) and "error" in json.dumps(schema["server"])


async def test_unknown_routes_and_methods_use_the_error_shape(server: ThreadServer) -> None:
    async with server.http() as c:
        assert_error(await c.get("/api/nothing-here"), 404, "not_found")
        assert_error(await c.delete("/api/rooms"), 405, "method_not_allowed")


async def test_foreign_origin_cannot_post(make_server: Callable[..., ThreadServer]) -> None:
    server = make_server()
    host = server.base.removeprefix("http://")
    async with server.http() as c:
        r = await c.post("/api/rooms", json={"name": "A"}, headers={"Origin": "https://evil.example"})
        assert_error(r, 403, "origin_refused")
        r = await c.post("/api/rooms", json={"name": "A"}, headers={"Origin": f"http://{host}"})
        assert r.status_code == 201
    other = make_server(allowed_origins=["https://crisp.example"])
    async with other.http() as c:
        r = await c.post("/api/rooms", json={"name": "A"}, headers={"Origin": "https://crisp.example"})
        assert r.status_code == 201
        assert r.headers["access-control-allow-origin"] == "https://crisp.example"
        r = await c.post("/api/rooms", json={"name": "A"}, headers={"Origin": "https://evil.example"})
        assert_error(r, 403, "origin_refused")


async def test_static_client(make_server: Callable[..., ThreadServer], tmp_path: Path) -> None:
    (tmp_path / "js").mkdir()
    (tmp_path / "index.html").write_text("<!doctype html><title>Crisp</title>")
    (tmp_path / "js" / "app.js").write_text("export const x = 1;")
    (tmp_path / "manifest.webmanifest").write_text("{}")
    server = make_server(web_dir=tmp_path)
    async with server.http() as c:
        for path in ("/", "/r/K7QX", "/r/anything"):
            r = await c.get(path)
            assert r.status_code == 200 and "<title>Crisp</title>" in r.text
        r = await c.get("/js/app.js")
        assert r.status_code == 200 and "export" in r.text
        assert (await c.get("/manifest.webmanifest")).status_code == 200
        assert_error(await c.get("/js/missing.js"), 404, "not_found")
        assert (await c.get("/healthz")).status_code == 200  # API routes win over files


async def test_starts_without_a_web_client(
    make_server: Callable[..., ThreadServer], tmp_path: Path
) -> None:
    server = make_server(web_dir=tmp_path / "absent")
    async with server.http() as c:
        assert_error(await c.get("/"), 404, "not_found")
        assert (await c.get("/healthz")).status_code == 200
        assert (await c.post("/api/rooms", json={"name": "A"})).status_code == 201
