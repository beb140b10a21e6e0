"""Watchers (R18.1, protocol.md v1.2 "Watching") over real websockets, on the memory
store and on Redis: nobody's seat's view and events, audited against the round's
record with a known deck; the count in every view and in GET /api/rooms/{code}
(no new version for it); refusals of everything a watcher sends; the host's
option (4403, also for the watchers already there); at most 50 (4413); the
per-client connection cap and message rates. Two `crisp serve` processes on
Redis: tests/server/test_server_watch_procs.py."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from websockets.exceptions import InvalidMessage, InvalidStatus

from crisp.server.rooms.leases import LeaseTimes
from crisp.server.rooms.watch_count import unwatch
from tests.support.audit import audit_against_replays, audit_watcher, deal_of
from tests.support.decks import deck
from tests.support.play import drive_all, finished, simple_policy
from tests.support.player import Player, close_all
from tests.support.rooms import start_game, table
from tests.support.servers import ThreadServer

# p1 deals (dealer 0): p2 gets AS 2S 3S, p1 TH 9H 8H (R2.2); the stock starts JD QD KD
SCRIPT = deck("AS", "TH", "2S", "9H", "3S", "8H", "JD", "QD", "KD", "4C", "5C", "7C")


async def _round(server: ThreadServer, code: str) -> dict[str, Any]:
    async with server.http() as c:
        r = await c.get(f"/api/rooms/{code}/rounds/1")
    assert r.status_code == 200, r.text
    return dict(r.json())


async def _summary(server: ThreadServer, code: str) -> dict[str, Any]:
    async with server.http() as c:
        return dict((await c.get(f"/api/rooms/{code}")).json())


async def test_r18_1_a_watcher_sees_the_table_of_nobody(
    make_server: Callable[..., ThreadServer],
) -> None:
    server = make_server()
    code, (ana, ben) = await table(server, 2, deck=SCRIPT, dealer=0)
    version = ana.version
    eve = await Player.watch(server, code)
    first = eve.updates[0]
    assert first["events"] == [] and first["view"]["you"] is None
    assert first["view"]["watching"] is True and first["view"]["watchers"] == 1
    assert first["view"]["version"] == version  # not a change of the table
    assert (await _summary(server, code))["watchers"] == 1
    mark = ana.mark()
    await start_game([ana, ben], ready=False)
    # the players' next update has the count; a watcher arriving sent them nothing
    told = ana.updates[mark]["view"]
    assert told["watchers"] == 1 and told["watching"] is False
    await eve.wait_event("round_started")
    await ana.act("ready")
    await ben.act("ready")
    await ben.wait_legal("draw")
    await ben.act("draw", source="stock")  # the Jack
    drew = await eve.wait_event("drew")
    assert drew == {"kind": "drew", "player": "p2", "source": "stock", "card": None}  # R4.1
    await ben.act("jack")  # R7.1: Ben's look at his middle reaches Ben alone
    await eve.wait_event("jack")
    assert eve.view["holding"] is None and eve.view["legal"] == []
    await drive_all([(p, simple_policy, finished(("round_over", "game_over")))
                     for p in (ana, ben)])
    await in_version(eve, ana.version)
    replay = await _round(server, code)  # watching is on: anyone may read it (R18.2)
    assert replay["deal"]["hands"] == deal_of(SCRIPT, ["p1", "p2"], "p1")
    assert audit_watcher(eve.frames, {ana.token, ben.token}) > 5
    assert audit_against_replays(eve.frames, {1: replay}) > 5
    # a second watcher leaves: the players' next update says so
    sam = await Player.watch(server, code)
    assert sam.view["watchers"] == 2
    await sam.close()
    await _until(lambda: _summary(server, code), lambda s: s["watchers"] == 1)
    mark = ana.mark()
    await ana.act("next_round")
    assert (await ana.wait_view(lambda v: v["round"] == 2, after=mark))["watchers"] == 1
    await close_all([ana, ben, eve])


async def in_version(p: Player, version: int) -> None:
    await p.wait(lambda q: q.version >= version, what=f"version {version}")


async def _until(read: Callable[[], Any], ok: Callable[[Any], bool], tries: int = 200) -> Any:
    """Read a state until `ok` (a watcher's leaving is saved after its socket closed;
    each read is a request to the server, not a wait on the clock)."""
    for _ in range(tries):
        got = await read()
        if ok(got):
            return got
        await asyncio.sleep(0.02)  # polls the server for a state, as the suite allows
    raise AssertionError(f"never reached: {got}")


async def test_r18_1_a_watcher_cannot_act(make_server: Callable[..., ThreadServer]) -> None:
    server = make_server()
    code, (ana, ben) = await table(server, 2, deck=SCRIPT, dealer=0)
    await start_game([ana, ben])
    eve = await Player.watch(server, code)
    version = (await server.clock(code))["version"]
    for kind, fields in (("draw", {"source": "stock"}), ("ready", {}), ("crisp", {}),
                         ("options", {"limit": 50}), ("start", {}), ("leave", {}),
                         ("kick", {"player": "p2"}), ("lock", {"locked": True}),
                         ("next_round", {}), ("add_bot", {"level": "easy"})):
        answer = await eve.act(kind, **fields)
        assert answer["type"] == "error" and answer["code"] == "not_a_player", (kind, answer)
    answer = await eve.act("hello", token=ana.token)  # a second hello
    assert answer["code"] == "bad_message"
    answer = await eve.act("hello", watch=True)
    assert answer["code"] == "bad_message"
    assert (await server.clock(code))["version"] == version  # nothing changed
    assert not eve.closed and len(eve.updates) == 1
    await close_all([ana, ben, eve])


@pytest.mark.parametrize("hello", [{"type": "hello", "watch": True, "token": "x" * 32},
                                   {"type": "hello"}, {"type": "hello", "watch": False}])
async def test_r18_1_a_hello_is_a_token_or_watch_true(
    make_server: Callable[..., ThreadServer], hello: dict[str, Any]
) -> None:
    server = make_server()
    code, (ana,) = await table(server, 1)
    p = await Player.join(server, code, "x", "", hello=False)
    await p.send(hello)
    assert await p.wait_closed() == 4401
    if "token" in hello:  # both: answered bad_message first (protocol v1.2)
        assert [f["code"] for f in p.frames] == ["bad_message"]
    lost = await Player.join(server, "ZZZZZZZZ", "x", "", hello=False)
    await lost.send({"type": "hello", "watch": True})  # no such room
    assert await lost.wait_closed() == 4401
    await close_all([ana])


async def test_r18_1_the_host_turns_watching_off_and_on(
    make_server: Callable[..., ThreadServer],
) -> None:
    server = make_server()
    code, (ana, ben) = await table(server, 2)
    eve = await Player.watch(server, code)
    mark = ben.mark()
    await ana.act("options", watchers=False)
    assert await eve.wait_closed() == 4403  # the watchers already there go too
    v = await ben.wait_view(lambda v: v["options"]["watchers"] is False, after=mark)
    assert v["watchers"] == 0
    assert (await _summary(server, code))["watchers"] == 0
    late = await Player.watch(server, code)
    assert late.closed and late.close_code == 4403 and late.updates == []
    assert (await ben.act("options", watchers=True))["code"] == "not_host"
    await ana.act("options", watchers=True)
    back = await Player.watch(server, code)
    assert back.view["watching"] is True and back.view["watchers"] == 1
    await close_all([ana, ben, back])


async def test_r18_1_fifty_watchers_at_most(make_server: Callable[..., ThreadServer]) -> None:
    server = make_server(max_connections_per_client=0)
    code, (ana,) = await table(server, 1)
    crowd = await asyncio.gather(*(Player.watch(server, code) for _ in range(50)))
    assert all(not w.closed for w in crowd)
    assert (await _summary(server, code))["watchers"] == 50
    extra = await Player.watch(server, code)
    assert extra.close_code == 4413 and extra.updates == []
    await crowd[0].close()
    await _until(lambda: _summary(server, code), lambda s: s["watchers"] == 49)
    again = await Player.watch(server, code)
    assert not again.closed and again.view["watchers"] == 50
    await close_all([ana, again, *crowd[1:]])


async def test_r18_1_watchers_count_against_the_connection_cap(
    make_server: Callable[..., ThreadServer],
) -> None:
    server = make_server(max_connections_per_client=3)
    code, (ana, ben) = await table(server, 2)
    eve = await Player.watch(server, code)
    assert not eve.closed
    # a fourth socket from this address is closed at once (HTTP 429 behind a proxy)
    with pytest.raises((InvalidStatus, InvalidMessage, OSError)):
        await Player.watch(server, code)
    await eve.close()  # the watcher's place is free again
    again = await _until(lambda: _try_watch(server, code), lambda w: w is not None)
    assert again.view["watchers"] == 1
    await close_all([ana, ben, again])


async def _try_watch(server: ThreadServer, code: str) -> Player | None:
    try:
        return await Player.watch(server, code)
    except (InvalidStatus, InvalidMessage, OSError):
        return None


async def test_r18_1_a_watcher_s_messages_are_rate_limited(
    make_server: Callable[..., ThreadServer],
) -> None:
    server = make_server(rate_per_s=1, rate_burst=2, rate_strikes=3)
    code, (ana,) = await table(server, 1)
    eve = await Player.watch(server, code)
    for i in range(8):  # paced by nothing: a flood
        await eve.send({"type": "ready", "id": f"m{i}"})
    assert await eve.wait_closed() == 4429
    codes = [f["code"] for f in eve.frames if f["type"] == "error"]
    assert codes[:2] == ["not_a_player", "not_a_player"] and "rate_limited" in codes
    await close_all([ana])


async def test_r18_1_a_watcher_of_a_room_that_goes_away_is_closed_4404(
    make_server: Callable[..., ThreadServer],
) -> None:
    """The last human leaves (R17.5): the room is deleted, and its watchers told so."""
    server = make_server()
    code, (ana,) = await table(server, 1)
    eve = await Player.watch(server, code)
    await ana.send({"type": "leave"})
    assert await ana.wait_closed() == 4403
    assert await eve.wait_closed() == 4404
    async with server.http() as c:
        assert (await c.get(f"/api/rooms/{code}")).status_code == 404


async def test_r18_1_a_watcher_whose_lease_was_lost_is_counted_again(
    make_server: Callable[..., ThreadServer],
) -> None:
    """Its lease ran out while the process stalled and another process uncounted it
    (leases.py): the next renewal counts the live watcher again."""
    server = make_server()
    code, (ana,) = await table(server, 1)
    eve = await Player.watch(server, code)
    ctx = server.ctx
    (conn,) = [c for c in ctx.hub.rooms[code].conns if c.viewer is None]
    await server.call(ctx.store.drop_lease(conn.lease))
    await server.call(unwatch(ctx.rooms, code, conn.id))
    assert (await _summary(server, code))["watchers"] == 0
    await server.advance(LeaseTimes.for_scale(1.0).renew_ms)
    await _until(lambda: _summary(server, code), lambda s: s["watchers"] == 1)
    assert not eve.closed
    await close_all([ana, eve])
