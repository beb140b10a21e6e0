"""Round replays (R18.2) and memory review (R18.3) over HTTP, on the memory store and
on Redis: `GET /api/rooms/{code}/rounds/{n}` once the round is over (409 while it is
played, 404 `no_round` / `no_room`, 401 for a token that is not a seat's, 403 for a
stranger while watching is off), the shape of protocol.md v1.2, the record true to
what every seat was shown, the history's links, a rematch's new game with no
rounds, and the log on Redis expiring with its room."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import redis.asyncio as aioredis

from tests.support.decks import deck
from tests.support.play import drive_all, finished, simple_policy
from tests.support.player import Player, close_all
from tests.support.rooms import start_game, table
from tests.support.servers import ThreadServer

# p1 deals (dealer 0): p2 gets AS 2S 3S, p1 TH 9H 8H (R2.2). p2 draws the Queen and
# swaps its middle (2S, never seen) for p1's left (TH, seen by p1 at the deal): p1 is
# shown the card it got (R8.3), p2 nothing (a middle slot, R8.2). p1 draws the King,
# then 4C and 5C, discarded. Then p2 draws the Jack: a look at its middle (TH).
SCRIPT = deck("AS", "TH", "2S", "9H", "3S", "8H", "QD", "KD", "4C", "5C", "JD", "7C")
REPLAY_KEYS = {"round", "dealer", "options", "deal", "moves", "reveal", "memory"}


async def _get(server: ThreadServer, path: str, token: str | None = None) -> tuple[int, Any]:
    headers = {} if token is None else {"Authorization": f"Bearer {token}"}
    async with server.http() as c:
        r = await c.get(path, headers=headers)
    return r.status_code, r.json()


async def _scripted_round(server: ThreadServer) -> tuple[str, Player, Player]:
    code, (ana, ben) = await table(server, 2, deck=SCRIPT, dealer=0)
    await start_game([ana, ben])
    await ben.wait_legal("draw")
    await ben.act("draw", source="stock")
    await ben.act("queen", slot="middle", target="p1", target_slot="left")
    await ana.wait_legal("draw")
    await ana.act("draw", source="stock")
    await ana.act("king")
    for _ in range(2):
        await ana.act("draw", source="stock")
        await ana.act("discard")
    status, body = await _get(server, f"/api/rooms/{code}/rounds/1", ana.token)
    assert (status, body["error"]["code"]) == (409, "round_in_play")  # R18.2
    await ben.wait_legal("draw")
    await ben.act("draw", source="stock")
    await ben.act("jack")
    await ben.wait_legal("crisp")
    await ben.act("crisp")
    await _final_turn(ana)  # R11: Ana's final turn, then the reveal
    return code, ana, ben


async def _final_turn(p: Player) -> None:
    """`p` plays its final turn by discarding what it draws (R11.1), and sees the reveal."""
    await p.wait_legal("draw")
    await p.act("draw", source="stock")
    await p.act("discard")
    await p.wait_view(lambda v: v["status"] in ("round_over", "game_over"))


async def test_r18_2_the_replay_of_a_finished_round(
    make_server: Callable[..., ThreadServer],
) -> None:
    server = make_server()
    code, ana, ben = await _scripted_round(server)
    status, rep = await _get(server, f"/api/rooms/{code}/rounds/1", ana.token)
    assert status == 200 and set(rep) == REPLAY_KEYS
    assert (rep["round"], rep["dealer"]) == (1, "p1")
    assert rep["options"] == {"limit": 100, "draw_seconds": None, "discard_draw": False,
                              "watchers": True}
    assert rep["deal"]["hands"] == {"p1": ["TH", "9H", "8H"], "p2": ["AS", "2S", "3S"]}
    assert rep["deal"]["stock"][:6] == ["QD", "KD", "4C", "5C", "JD", "7C"]
    assert len(rep["deal"]["stock"]) == 46 and rep["deal"]["discard"] == []
    moves = rep["moves"]
    assert [m["i"] for m in moves] == list(range(len(moves)))
    assert all(isinstance(m["at"], int) for m in moves)
    kinds = [m["kind"] for m in moves]
    assert {"connected", "joined", "round_started"}.isdisjoint(kinds)
    queen = moves[kinds.index("queen")]
    assert (queen["own_card"], queen["target_card"], queen["card"]) == ("2S", "TH", "QD")
    drew = [m for m in moves if m["kind"] == "drew"]
    assert [d["card"] for d in drew[:5]] == ["QD", "KD", "4C", "5C", "JD"]  # unredacted
    # every look, and who got it: what each seat's own peek events said (R16.3)
    for p in (ana, ben):
        shown = [(e["slot"], e["card"]) for e in p.events("peek")]
        recorded = [(m["slot"], m["card"]) for m in moves
                    if m["kind"] == "peek" and m["player"] == p.pid]
        assert recorded == shown, p.pid
    over = ana.events("round_over")[0]
    assert rep["reveal"] == {k: over[k] for k in ("caller", "hands", "sums", "scores")}
    # R18.3: Ben never saw his middle 2S, then the Queen gave it TH, which his Jack
    # showed him; Ana saw TH at her left at the deal, then was shown 2S there (R8.3)
    p1, p2 = rep["memory"]["p1"], rep["memory"]["p2"]
    assert [e["slot"] for e in p1] == ["left", "middle", "right"]
    assert p1[0]["seen"] == "2S" and p1[1]["seen"] is None and p1[2]["seen"] == "8H"
    assert p2[1]["seen"] == "TH"
    for entries in (p1, p2):
        for e in entries:
            assert set(e) == {"slot", "seen", "actual", "changed_by"}
    # the same for everyone allowed: the other player, and anyone while watching is on
    assert await _get(server, f"/api/rooms/{code}/rounds/1", ben.token) == (200, rep)
    assert await _get(server, f"/api/rooms/{code}/rounds/1") == (200, rep)
    # the history links it (R18.2)
    (entry,) = ana.view["history"]
    assert entry["replay"] == f"/api/rooms/{code}/rounds/1"
    assert (await _get(server, entry["replay"]))[0] == 200
    await close_all([ana, ben])


async def test_r18_3_the_queen_that_changed_a_card_is_named(
    make_server: Callable[..., ThreadServer],
) -> None:
    """Ben looks at his middle with a Jack (R7.1: 2S); Ana's Queen swaps her left (TH)
    with Ben's middle, which Ben is not shown (R8.4: a middle slot): his review says
    he saw 2S, TH is there, and Ana's Queen changed it."""
    server = make_server()
    script = deck("AS", "TH", "2S", "9H", "3S", "8H", "JD", "QD", "4C", "5C", "7C", "6C")
    code, (ana, ben) = await table(server, 2, deck=script, dealer=0)
    await start_game([ana, ben])
    await ben.wait_legal("draw")
    await ben.act("draw", source="stock")
    await ben.act("jack")
    await ana.wait_legal("draw")
    await ana.act("draw", source="stock")
    await ana.act("queen", slot="left", target="p2", target_slot="middle")
    await ana.wait_legal("crisp")
    await ana.act("crisp")  # R10
    await _final_turn(ben)
    await ana.wait_view(lambda v: v["status"] == "round_over")
    status, rep = await _get(server, f"/api/rooms/{code}/rounds/1", ben.token)
    assert status == 200
    queen = next(m for m in rep["moves"] if m["kind"] == "queen")
    assert (queen["player"], queen["own_card"], queen["target_card"]) == ("p1", "TH", "2S")
    assert rep["memory"]["p2"][1] == {"slot": "middle", "seen": "2S", "actual": "TH",
                                      "changed_by": queen["i"]}
    assert rep["memory"]["p1"][0] == {"slot": "left", "seen": "2S", "actual": "2S",
                                      "changed_by": None}  # R8.2: Ana was shown it
    assert rep["memory"]["p2"][0]["seen"] == "AS"  # R2.4
    await close_all([ana, ben])


async def test_r18_2_who_may_read_a_replay(make_server: Callable[..., ThreadServer]) -> None:
    server = make_server()
    code, (ana, ben) = await table(server, 2)
    assert (await _get(server, f"/api/rooms/{code}/rounds/1"))[1]["error"]["code"] == "no_round"
    await ana.act("options", watchers=False)
    await start_game([ana, ben])
    await drive_all([(p, simple_policy, finished(("round_over", "game_over")))
                     for p in (ana, ben)])
    path = f"/api/rooms/{code}/rounds/1"
    status, body = await _get(server, path)
    assert (status, body["error"]["code"]) == (403, "not_allowed")
    for bad in ("not-a-seat", ben.token[:-2]):
        status, body = await _get(server, path, bad)
        assert (status, body["error"]["code"]) == (401, "bad_token")
    assert (await _get(server, path, ben.token))[0] == 200
    for n, code_ in (("2", "no_round"), ("0", "no_round")):
        status, body = await _get(server, f"/api/rooms/{code}/rounds/{n}", ana.token)
        assert (status, body["error"]["code"]) == (404, code_)
    status, body = await _get(server, "/api/rooms/ZZZZZZZZ/rounds/1", ana.token)
    assert (status, body["error"]["code"]) == (404, "no_room")
    assert (await _get(server, f"/api/rooms/{code}/rounds/x", ana.token))[0] == 422
    await close_all([ana, ben])


async def test_r18_2_a_rematch_starts_a_game_with_no_rounds(
    make_server: Callable[..., ThreadServer],
) -> None:
    server = make_server()
    code, (ana, ben) = await table(server, 2)
    await start_game([ana, ben], limit=50)
    for _ in range(15):
        await drive_all([(p, simple_policy, finished(("round_over", "game_over")))
                         for p in (ana, ben)])
        if ana.view["status"] == "game_over":
            break
        await ana.act("next_round")
    rounds = ana.view["round"]
    for n in range(1, rounds + 1):  # every round of the game was kept
        status, rep = await _get(server, f"/api/rooms/{code}/rounds/{n}", ana.token)
        assert status == 200 and rep["round"] == n
    await ana.act("rematch")
    status, body = await _get(server, f"/api/rooms/{code}/rounds/1", ana.token)
    assert (status, body["error"]["code"]) == (404, "no_round")
    await start_game([ana, ben])
    status, body = await _get(server, f"/api/rooms/{code}/rounds/1", ana.token)
    assert (status, body["error"]["code"]) == (409, "round_in_play")
    await close_all([ana, ben])


async def test_r18_2_the_log_expires_with_its_room(
    spawn_server: Callable[..., ThreadServer], redis_url: str
) -> None:
    server = spawn_server(redis_url=redis_url)
    code, ana, ben = await _scripted_round(server)
    r = aioredis.from_url(redis_url)
    try:
        room_ttl = await r.pttl(f"crisp:room:{code}")
        log_ttl = await r.pttl(f"crisp:room:{code}:log")
        assert room_ttl > 0 and abs(room_ttl - log_ttl) < 2_000, (room_ttl, log_ttl)
        assert await r.llen(f"crisp:room:{code}:log") > 0
    finally:
        await r.aclose()
    await close_all([ana, ben])


async def test_r18_2_replay_reads_spend_a_budget_of_their_own(
    make_server: Callable[..., ThreadServer],
) -> None:
    """Every read of a replay, found or not, spends one of the client's replay reads
    (CRISP_LIMIT_REPLAYS); once they are spent: 429 `rate_limited`, Retry-After."""
    server = make_server(http_limits="on", limit_replays="3/1h")
    code, players = await table(server, 2)
    await start_game(players)
    async with server.http() as c:
        statuses = [(await c.get(f"/api/rooms/{code}/rounds/{n}")).status_code
                    for n in (1, 2, 1)]
        assert statuses == [409, 404, 409]  # round 1 in play; no round 2
        r = await c.get(f"/api/rooms/{code}/rounds/1")
        assert r.status_code == 429 and r.json()["error"]["code"] == "rate_limited"
        assert int(r.headers["retry-after"]) > 0
        r = await c.get("/api/rooms/ZZZZZZZZ/rounds/1")  # a code of no room: spent as well
        assert r.status_code == 429
        assert (await c.get(f"/api/rooms/{code}")).status_code == 200  # other reads go on
    await close_all(players)
