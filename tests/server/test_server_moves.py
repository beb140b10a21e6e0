"""R18.5: moving a seat to another device with a one-time code (protocol.md v1.2,
"Moving a seat"), on the memory store and on Redis, and across two processes.

Seats: Ana (p1) hosts and plays first (Ben, p2, deals); Ben is the one who moves.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from crisp.server.rooms.seat_moves import MOVE_CODE_LEN, MOVE_TTL_MS
from tests.support.decks import deck_for
from tests.support.player import Player, close_all
from tests.support.rooms import add_bots, start_game, table
from tests.support.servers import LiveServer, ProcServer, ThreadServer, advance_all

HANDS = {"p1": ["2C", "3C", "4C"], "p2": ["5D", "6D", "7D"]}
DECK = deck_for(HANDS, stock=["8C", "9C"], dealer=1)
BEN_DEALT = [("left", "5D"), ("right", "7D")]  # R2.4
AWAY_MS = 20_000  # R17.2


async def ask(server: LiveServer, code: str, token: str | None,
              body: dict[str, Any] | None = None) -> httpx.Response:  # fmt: skip
    """POST /api/rooms/{code}/move with the token as a Bearer token."""
    headers = {} if token is None else {"Authorization": f"Bearer {token}"}
    async with server.http() as c:
        return await c.post(f"/api/rooms/{code}/move", json=body or {}, headers=headers)


async def move_code(server: LiveServer, code: str, token: str,
                    body: dict[str, Any] | None = None) -> str:  # fmt: skip
    r = await ask(server, code, token, body)
    assert r.status_code == 201, r.text
    return str(r.json()["move_code"])


async def take(server: LiveServer, code: str, move: str) -> httpx.Response:
    async with server.http() as c:
        return await c.post(f"/api/rooms/{code}/move/{move}")


def no_move(r: httpx.Response) -> None:
    assert r.status_code == 404, r.text
    assert r.json()["error"]["code"] == "no_move"


def peeks(update: dict[str, Any]) -> list[tuple[str, str]]:
    return [(e["slot"], e["card"]) for e in update["events"] if e["kind"] == "peek"]


async def test_r18_5_a_seat_moves_to_another_device(
    make_server: Callable[..., ThreadServer],
) -> None:
    server = make_server()
    code, (ana, ben) = await table(server, 2, deck=DECK, dealer=1)
    await start_game([ana, ben])
    assert [(e["slot"], e["card"]) for e in ben.events("peek")] == BEN_DEALT
    r = await ask(server, code, ben.token)
    assert r.status_code == 201, r.text
    assert r.headers["cache-control"] == "no-store"
    made = r.json()
    assert set(made) == {"move_code", "expires_at"}
    assert MOVE_TTL_MS == 120_000
    assert made["expires_at"] == await server.now_ms() + MOVE_TTL_MS  # the clock stood still
    assert len(made["move_code"]) == MOVE_CODE_LEN  # 31^10: about 49.5 bits (>= 40)
    mark = ana.mark()
    r = await take(server, code, made["move_code"].lower())  # typed loosely: the same code
    assert r.status_code == 201, r.text
    assert r.headers["cache-control"] == "no-store"
    seat = r.json()
    assert seat["code"] == code and seat["player_id"] == "p2" and seat["token"] != ben.token
    # the old token's connection is closed with 4403 and its token is refused from now on
    assert await ben.wait_closed() == 4403 and "moved" in ben.close_reason
    old = await Player.join(server, code, "p2", ben.token)
    assert await old.wait_closed() == 4401
    no_move(await take(server, code, made["move_code"]))  # single use
    # the new device gets the table as a reconnection would: nothing shown twice (R16.3)
    tablet = await Player.join(server, code, "p2", seat["token"])
    first = tablet.updates[0]
    assert first["seq"] == 1 and first["events"] == []
    assert first["view"]["you"] == "p2" and first["view"]["status"] == "playing"
    await ana.wait_view(lambda v: v["players"][1]["connected"], after=mark)
    # and it plays the seat: Ana's turn, then Ben's on the tablet
    await play_a_turn(ana)
    await play_a_turn(tablet)
    await close_all([ana, tablet, old])


async def play_a_turn(p: Player) -> None:
    await p.wait_legal("draw")
    assert (await p.act("draw", source="stock"))["type"] == "update"
    assert (await p.act("discard"))["type"] == "update"


async def test_r18_5_the_host_moves_an_away_seat_and_its_owed_looks_come_once(
    make_server: Callable[..., ThreadServer],
) -> None:
    server = make_server()
    code, (ana, ben) = await table(server, 2, deck=DECK, dealer=1)
    mark = ana.mark()
    await ben.close()  # Ben's phone dies in the lobby: his deal looks will be owed
    await ana.wait_view(lambda v: not v["players"][1]["connected"], after=mark)
    await ana.act("start")
    r = await ask(server, code, ana.token, {"player": "p2"})
    assert r.status_code == 403 and r.json()["error"]["code"] == "not_away", r.text  # not yet
    await server.advance(AWAY_MS)  # R17.2
    await ana.wait_view(lambda v: v["players"][1]["away"], after=mark)
    move = await move_code(server, code, ana.token, {"player": "p2"})
    r = await take(server, code, move)
    assert r.status_code == 201, r.text
    assert r.json()["player_id"] == "p2"
    tablet = await Player.join(server, code, "p2", r.json()["token"])
    assert peeks(tablet.updates[0]) == BEN_DEALT  # owed, in the order they arose (R16.3)
    await tablet.close()
    again = await Player.join(server, code, "p2", r.json()["token"])
    assert peeks(again.updates[0]) == []  # delivered once, never again
    await close_all([ana, again])


async def test_r18_5_who_may_ask_for_a_move_code(
    make_server: Callable[..., ThreadServer],
) -> None:
    server = make_server()
    code, (ana, ben, cid) = await table(server, 3)
    # 401: no token, a token that is not a seat's
    for token in (None, "not-a-token"):
        r = await ask(server, code, token)
        assert r.status_code == 401 and r.json()["error"]["code"] == "bad_token", r.text
    # 403 not_host: a player other than the host asks for another seat
    r = await ask(server, code, ben.token, {"player": "p3"})
    assert r.status_code == 403 and r.json()["error"]["code"] == "not_host", r.text
    # a player names their own seat: that is their own move
    assert (await ask(server, code, ben.token, {"player": "p2"})).status_code == 201
    # 403 not_away: the host asks for a connected seat, or a computer player's
    (bot,) = await add_bots(ana, "easy")
    for seat in ("p3", bot):
        r = await ask(server, code, ana.token, {"player": seat})
        assert r.status_code == 403 and r.json()["error"]["code"] == "not_away", r.text
    # no such seat, or not a player id at all
    for body in ({"player": "p9"}, {"player": 3}):
        r = await ask(server, code, ana.token, body)
        assert r.status_code == 422 and r.json()["error"]["code"] == "bad_request", r.text
    # a room that does not exist
    r = await ask(server, code[:-1] + ("A" if code[-1] != "A" else "B"), ana.token)
    assert r.status_code == 404 and r.json()["error"]["code"] == "not_found", r.text
    await close_all([ana, ben, cid])


async def test_r18_5_used_expired_and_void_codes_are_no_move_and_spend_lookups(
    make_server: Callable[..., ThreadServer],
) -> None:
    server = make_server(http_limits="on", limit_lookups="4/1h")
    code, (ana, ben) = await table(server, 2)
    first = await move_code(server, code, ben.token)
    second = await move_code(server, code, ben.token)  # made before the seat moves
    hers = await move_code(server, code, ana.token)
    r = await take(server, code, first)
    assert r.status_code == 201, r.text
    tablet = await Player.join(server, code, "p2", r.json()["token"])
    no_move(await take(server, code, first))  # 1: used
    no_move(await take(server, code, second))  # 2: void, the seat moved since it was made
    # R18.5: 2 minutes on the server's clock (real time in production, never scaled)
    his = await move_code(server, code, tablet.token)
    await server.advance(MOVE_TTL_MS - 1)
    r = await take(server, code, hers)
    assert r.status_code == 201, r.text  # still valid: a look-up that found, not spent
    late = await move_code(server, code, r.json()["token"])  # for Ana's new device
    await server.advance(1)
    no_move(await take(server, code, his))  # 3: expired
    no_move(await take(server, code, "A" * MOVE_CODE_LEN))  # 4: never made
    # the client's look-ups are spent: every take is refused now, even a good one
    r = await take(server, code, late)
    assert r.status_code == 429 and r.json()["error"]["code"] == "rate_limited", r.text
    assert int(r.headers["retry-after"]) >= 1
    await close_all([ana, ben, tablet])


@pytest.mark.redis
async def test_r18_5_a_code_made_on_one_process_is_taken_on_another(
    spawn_crisp: Callable[..., ProcServer], redis_url: str
) -> None:
    """Two `crisp serve` processes on one Redis: the phones on process a, the code taken
    on process b (the store's ticket), the old socket closed on a (the change)."""
    a = spawn_crisp(CRISP_REDIS_URL=redis_url)
    b = spawn_crisp(CRISP_REDIS_URL=redis_url)
    code, (ana, ben) = await table(a, 2, deck=DECK, dealer=1)  # both phones on process a
    await start_game([ana, ben])
    await advance_all([a, b])  # one game time on both processes
    move = await move_code(a, code, ben.token)
    r = await take(b, code, move)
    assert r.status_code == 201, r.text
    assert await ben.wait_closed() == 4403  # closed on a by the change saved on b
    no_move(await take(a, code, move))
    tablet = await Player.join(b, code, "p2", r.json()["token"])
    first = tablet.updates[0]
    assert first["view"]["you"] == "p2" and first["events"] == []  # no look twice (R16.3)
    old = await Player.join(b, code, "p2", ben.token)
    assert await old.wait_closed() == 4401
    await play_a_turn(ana)
    await play_a_turn(tablet)
    await close_all([ana, tablet, old])
