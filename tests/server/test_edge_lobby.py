"""Who may sit in a lobby (issue 12): room codes that resist guessing and are typed
loosely, names that cannot impersonate (docs/protocol-additions.md, "Names"), and
a kicked player who cannot come back, nor anyone in their seat, until the host
opens the room again ("Locked rooms"). Real sockets, memory and Redis."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from crisp.server.rooms.codes import CODE_LEN, display_code
from tests.support.player import Player, close_all
from tests.support.rooms import create_room, join_room, table
from tests.support.servers import ThreadServer

# ---- room codes ----


async def test_codes_are_long_and_typed_loosely(server: ThreadServer) -> None:
    code, pid, token = await create_room(server)
    assert len(code) == CODE_LEN
    shown = display_code(code)
    async with server.http() as c:
        for typed in (shown, shown.lower(), f" {code[:4]} {code[4:]} ", code.lower()):
            r = await c.get(f"/api/rooms/{typed}")
            assert r.status_code == 200 and r.json()["code"] == code, typed
        r = await c.post(f"/api/rooms/{shown.lower()}/players", json={"name": "Ben"})
        assert r.status_code == 201 and r.json()["code"] == code
        page = await c.get(f"/r/{shown}")  # the share link, with the dash people type
        assert page.status_code == 200
    host = await Player.join(server, shown.lower(), pid, token)  # the socket path too
    assert host.view["code"] == code
    await close_all([host])


# ---- names ----


@pytest.mark.parametrize(
    "name",
    [
        "Ana\u200b",  # zero-width space
        "\u202eanA",  # right-to-left override
        "Ana\u2066",  # an isolate
        "Z" + "\u0301" * 8,  # a tower of combining marks
        "\u0301Ana",  # a mark with nothing under it
        "\u3164",  # a Hangul filler: looks like nothing
        "Ana\tBen",
        "\u200d",
        " " * 5,
    ],
)
async def test_invisible_and_bidi_names_are_refused(server: ThreadServer, name: str) -> None:
    async with server.http() as c:
        r = await c.post("/api/rooms", json={"name": name})
        assert r.status_code == 422 and r.json()["error"]["code"] == "bad_name", repr(name)


async def test_names_are_normalised_and_unique_per_room(server: ThreadServer) -> None:
    code, _, _ = await create_room(server, "Ana")
    full_width = "".join(chr(ord(ch) + 0xFEE0) for ch in "ANA")
    async with server.http() as c:
        for same in ("ana", "ANA", " Ana ", full_width, "Ana\u200b"):
            r = await c.post(f"/api/rooms/{code}/players", json={"name": same})
            expected = ("bad_name", 422) if "\u200b" in same else ("name_taken", 409)
            assert (r.json()["error"]["code"], r.status_code) == expected, repr(same)
        r = await c.post(f"/api/rooms/{code}/players", json={"name": "Ｂｅｎ  Ｏ"})  # noqa: RUF001
        assert r.status_code == 201
        room = (await c.get(f"/api/rooms/{code}")).json()
    assert [p["name"] for p in room["players"]] == ["Ana", "Ben O"]
    accents = await join_room(server, code, "Zoë")  # one mark is a letter, not a tower
    assert accents[0] == "p3"
    with pytest.raises(AssertionError, match="name_taken"):
        await join_room(server, code, "ZOË")


# ---- kicked players ----


async def test_a_kick_locks_the_room_until_the_host_opens_it(server: ThreadServer) -> None:
    """The kicked-player refill: after a kick nobody takes the seat, not a stranger
    who knows the code, not the kicked player with their old token or a new one."""
    code, players = await table(server, 3)
    host, ben, cid = players
    await host.act("kick", player=cid.pid)
    assert await cid.wait_closed() == 4403
    view = await host.wait_view(lambda v: v["locked"])
    assert len(view["players"]) == 2
    assert (await ben.wait_view(lambda v: v["locked"]))["locked"]

    async def try_join(name: str) -> httpx.Response:
        async with server.http() as c:
            return await c.post(f"/api/rooms/{code}/players", json={"name": name})

    attempts = await asyncio.gather(*(try_join(n) for n in ("Cid", "Mallory", "Eve")))
    for r in attempts:  # the refill race of the issue: nothing gets in
        assert (r.status_code, r.json()["error"]["code"]) == (409, "room_locked")
    async with server.http() as c:
        assert (await c.get(f"/api/rooms/{code}")).json()["locked"] is True
    again = await Player.join(server, code, cid.pid, cid.token)  # the old token is void
    assert await again.wait_closed() == 4401

    refused = await ben.act("lock", locked=False)  # only the host opens it
    assert refused["type"] == "error" and refused["code"] == "not_host"
    mark = host.mark()
    await host.act("lock", locked=False)
    await host.wait_view(lambda v: not v["locked"], after=mark)
    new_pid, _ = await join_room(server, code, "Cid")  # with the host's consent
    assert new_pid not in (cid.pid,)
    await host.act("lock", locked=True)  # the host may also lock it without a kick
    await host.wait_view(lambda v: v["locked"])
    r = await try_join("Dee")
    assert r.json()["error"]["code"] == "room_locked"
    await close_all([host, ben])


async def test_locking_moves_the_version_and_reaches_every_seat(server: ThreadServer) -> None:
    _code, players = await table(server, 2)
    host, ben = players
    before = host.view
    mark = ben.mark()
    await host.act("lock", locked=True)
    after = await ben.wait_view(lambda v: v["locked"], after=mark)
    assert after["players"] == before["players"]
    assert host.updates[-1]["seq"] > 1
    # locking a locked room changes nothing: no update
    count = len(ben.updates)
    await host.send({"type": "lock", "locked": True})
    await host.send({"type": "lock", "locked": "yes"})  # not a boolean: bad_message
    err = await host.wait_error()
    assert err["code"] == "bad_message"
    # the next change reaches Ben as his very next update: nothing came between
    answer = await host.act("options", limit=50)
    await ben.wait_view(lambda v: v["version"] == answer["view"]["version"])
    assert len(ben.updates) == count + 1
    await close_all(players)
