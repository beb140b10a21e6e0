"""The websocket endpoint: hello, 4401, 4409, origins, and every kind of bad input."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from crisp.server.wire.frames import Update
from tests.support.player import Player, close_all
from tests.support.rooms import create_room, join_room, table
from tests.support.servers import ThreadServer


async def test_hello_gives_the_full_view_without_events(server: ThreadServer) -> None:
    code, pid, token = await create_room(server)
    p = await Player.join(server, code, pid, token)
    first = p.updates[0]
    assert first["seq"] == 1 and first["events"] == []
    assert isinstance(first["now"], int)
    Update.model_validate(first)  # the documented shape
    view = first["view"]
    assert view["code"] == code and view["you"] == "p1" and view["host"] == "p1"
    assert view["status"] == "lobby" and view["players"][0]["connected"] is True
    assert set(view["legal"]) >= {"options", "start", "kick"} - {"start", "kick"}
    await p.close()


async def test_codes_are_case_insensitive_on_the_socket(server: ThreadServer) -> None:
    code, pid, token = await create_room(server)
    p = await Player.join(server, code.lower(), pid, token)
    assert p.view["code"] == code
    await p.close()


async def test_seq_increases_by_one_per_update(server: ThreadServer) -> None:
    _code, players = await table(server, 3)
    host = players[0]
    await host.act("options", limit=50)
    await host.act("options", draw_seconds=30, discard_draw=True)
    for p in players:
        v = await p.wait_view(lambda v: v["options"]["discard_draw"] is True)
        assert v["options"] == {"limit": 50, "draw_seconds": 30, "discard_draw": True,
                                "watchers": True}  # R18.1: on by default
        seqs = [u["seq"] for u in p.updates]
        assert seqs == list(range(1, len(seqs) + 1))
    await close_all(players)


async def test_bad_token_closes_4401(server: ThreadServer) -> None:
    code, pid, _ = await create_room(server)
    p = await Player.join(server, code, pid, "not-the-token", hello=False)
    await p.send({"type": "hello", "token": "not-the-token"})
    assert await p.wait_closed() == 4401
    assert p.frames == []


async def test_unknown_room_closes_4401(server: ThreadServer) -> None:
    _, pid, token = await create_room(server)
    for code in ("ZZZZ", "0000", "x"):
        p = await Player.join(server, code, pid, token, hello=False)
        await p.send({"type": "hello", "token": token})
        assert await p.wait_closed() == 4401


async def test_token_of_another_room_closes_4401(server: ThreadServer) -> None:
    code, _, _ = await create_room(server)
    _, pid, token = await create_room(server)
    p = await Player.join(server, code, pid, token, hello=False)
    await p.send({"type": "hello", "token": token})
    assert await p.wait_closed() == 4401


async def test_first_message_must_be_hello(server: ThreadServer) -> None:
    code, pid, token = await create_room(server)
    for first in ('{"type": "start"}', "not json", '{"type": "hello"}', b"\x00\x01"):
        p = await Player.join(server, code, pid, token, hello=False)
        await p.send(first)
        assert await p.wait_closed() == 4401


async def test_no_hello_in_time_closes_4401(make_server: Callable[..., ThreadServer]) -> None:
    server = make_server(hello_timeout_s=0.3)
    code, pid, token = await create_room(server)
    p = await Player.join(server, code, pid, token, hello=False)
    assert await p.wait_closed(timeout=3) == 4401
    # a hello in time still works on the same server
    q = await Player.join(server, code, pid, token)
    assert q.view["you"] == pid
    await q.close()


async def test_second_connection_replaces_the_first_4409(server: ThreadServer) -> None:
    code, players = await table(server, 2)
    host, ben = players
    ben2 = await Player.join(server, code, ben.pid, ben.token)
    assert await ben.wait_closed() == 4409
    assert ben2.updates[0]["events"] == [] and ben2.updates[0]["seq"] == 1
    # the seat stays connected: the replaced socket does not mark it disconnected
    await host.act("options", limit=150)
    v = await ben2.wait_view(lambda v: v["options"]["limit"] == 150)
    assert all(p["connected"] for p in v["players"])
    hv = await host.wait_view(lambda v: v["options"]["limit"] == 150)
    assert all(p["connected"] for p in hv["players"])
    assert host.events("disconnected") == []
    await close_all([host, ben2])


async def test_disconnect_and_reconnect_events(server: ThreadServer) -> None:
    code, players = await table(server, 2)
    host, ben = players
    mark = len(host.updates)
    await ben.close()
    ev = await host.wait_event("disconnected", after=mark)
    assert ev == {"kind": "disconnected", "player": "p2"}
    assert host.view["players"][1]["connected"] is False
    mark = len(host.updates)
    ben = await Player.join(server, code, ben.pid, ben.token)
    assert (await host.wait_event("connected", after=mark)) == {"kind": "connected", "player": "p2"}
    await close_all([host, ben])


async def test_foreign_origin_is_refused_at_the_handshake(server: ThreadServer) -> None:
    code, _, _ = await create_room(server)
    with pytest.raises(InvalidStatus) as info:
        await connect(f"{server.ws_base}/ws/{code}", origin="https://evil.example", proxy=None)  # type: ignore[arg-type]
    assert info.value.response.status_code == 403
    with pytest.raises(InvalidStatus):
        await connect(f"{server.ws_base}/ws/{code}", origin="null", proxy=None)  # type: ignore[arg-type]


async def test_same_origin_and_allowed_origins_pass(
    make_server: Callable[..., ThreadServer],
) -> None:
    server = make_server()
    code, pid, token = await create_room(server)
    host = server.base.removeprefix("http://")
    p = await Player.join(server, code, pid, token, origin=f"http://{host}")
    await p.close()
    other = make_server(allowed_origins=["https://crisp.example"])
    code, pid, token = await create_room(other)
    p = await Player.join(other, code, pid, token, origin="https://crisp.example")
    await p.close()
    with pytest.raises(InvalidStatus):
        await connect(f"{other.ws_base}/ws/{code}", origin=f"http://{host}", proxy=None)  # type: ignore[arg-type]


async def test_bad_messages_get_errors_with_ref_and_keep_the_connection(
    make_server: Callable[..., ThreadServer],
) -> None:
    server = make_server(rate_burst=100)
    _code, players = await table(server, 2)
    host = players[0]
    cases: list[tuple[str | bytes, str, str | None]] = [
        ("{not json", "bad_message", None),
        ("[1, 2]", "bad_message", None),
        ('"hello"', "bad_message", None),
        ('{"type": "fly", "id": "a1"}', "bad_message", "a1"),
        ('{"id": "a2"}', "bad_message", "a2"),
        ('{"type": "draw", "source": "hat", "id": "a3"}', "bad_message", "a3"),
        ('{"type": "draw", "id": "a4"}', "bad_message", "a4"),
        ('{"type": "start", "extra": 1, "id": "a5"}', "bad_message", "a5"),
        ('{"type": "options", "limit": 70, "id": "a6"}', "bad_message", "a6"),
        ('{"type": "options", "limit": "50", "id": "a7"}', "bad_message", "a7"),
        ('{"type": "options", "discard_draw": 1, "id": "a8"}', "bad_message", "a8"),
        ('{"type": "swap", "slot": 1, "id": "a9"}', "bad_message", "a9"),
        ('{"type": "queen", "slot": "left", "id": "b1"}', "bad_message", "b1"),
        ('{"type": "start", "id": 7}', "bad_message", None),
        ('{"type": "hello", "token": "x", "id": "b2"}', "bad_message", "b2"),
        (b'{"type": "start"}', "bad_message", None),
        ('{"type": "kick", "player": "p9", "id": "b3"}', "unknown_player", "b3"),
        ('{"type": "next_round", "id": "b4"}', "wrong_phase", "b4"),
        ('{"type": "draw", "source": "stock", "id": "b5"}', "wrong_phase", "b5"),
        ('{"type": "crisp", "id": "b6"}', "wrong_phase", "b6"),
    ]
    for i, (raw, code_, ref) in enumerate(cases):
        await host.send(raw)
        err = await host.wait_error(after=i)
        assert err["code"] == code_, (raw, err)
        assert err.get("ref") == ref, (raw, err)
        assert err["message"]
    assert not host.closed
    # the room still works
    await host.act("options", limit=50)
    await players[1].wait_view(lambda v: v["options"]["limit"] == 50)
    await close_all(players)


async def test_non_host_gets_not_host(server: ThreadServer) -> None:
    _code, players = await table(server, 2)
    ben = players[1]
    for i, kind in enumerate(["start", "options", "kick"]):
        msg = {"type": kind, "id": f"n{i}"}
        if kind == "kick":
            msg["player"] = "p1"
        await ben.send(msg)
        err = await ben.wait_error(after=i)
        assert (err["code"], err["ref"]) == ("not_host", f"n{i}")
    await close_all(players)


async def test_too_large_and_far_too_large_frames(server: ThreadServer) -> None:
    _code, players = await table(server, 2)
    host = players[0]
    big = json.dumps({"type": "start", "id": "x" * 5000})
    await host.send(big)
    err = await host.wait_error()
    assert err["code"] == "too_large"
    assert not host.closed
    await host.send(json.dumps({"type": "options", "limit": 50}))
    await host.wait_view(lambda v: v["options"]["limit"] == 50)
    await host.send("x" * 70_000)
    assert await host.wait_closed() == 1009
    await close_all(players)


async def test_flood_is_rate_limited_then_closed_4429(
    make_server: Callable[..., ThreadServer],
) -> None:
    server = make_server(rate_per_s=10)  # the production rate (the kit's is 20x)
    code, players = await table(server, 2)
    ben = players[1]
    for _ in range(80):
        await ben.send('{"type": "ready"}')
    assert await ben.wait_closed() == 4429
    codes = [e["code"] for e in ben.errors]
    assert "rate_limited" in codes
    assert codes.count("wrong_phase") <= 21  # the burst was processed, then refused
    # the room survives and the seat may come back
    again = await Player.join(server, code, ben.pid, ben.token)
    assert again.view["you"] == ben.pid
    await close_all([players[0], again])


async def test_kick_closes_the_kicked_seat_4403_and_voids_its_token(server: ThreadServer) -> None:
    code, players = await table(server, 3)
    host, ben, cid = players
    await host.act("kick", player=ben.pid)
    assert await ben.wait_closed() == 4403
    v = await cid.wait_view(lambda v: len(v["players"]) == 2)
    assert [p["id"] for p in v["players"]] == ["p1", "p3"]
    assert cid.events("left") == [{"kind": "left", "player": "p2"}]
    again = await Player.join(server, code, ben.pid, ben.token, hello=False)
    await again.send({"type": "hello", "token": ben.token})
    assert await again.wait_closed() == 4401
    await host.act("kick", player="p1", id="k")
    assert (await host.wait_error())["code"] == "illegal"
    await close_all([host, cid])


async def test_many_sockets_do_not_disturb_each_other(server: ThreadServer) -> None:
    code, pid, token = await create_room(server)
    seats = [(pid, token)] + [await join_room(server, code, f"P{i}") for i in range(7)]
    players = await asyncio.gather(*(Player.join(server, code, p, t) for p, t in seats))
    for p in players:
        await p.wait_view(
            lambda v: all(x["connected"] for x in v["players"]) and len(v["players"]) == 8
        )
    await close_all(list(players))
