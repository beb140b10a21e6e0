"""Owed looks (R16.3 revised, issue 10): a look a seat may see is shown on one of
its live connections exactly once, however its connections come and go: away at
the deal, away at a Queen's swap, an update lost in transit, a server restart,
two connections racing for the seat. Real redis-server, real websockets; one
test drives a `Connection` directly, to make the socket write itself fail.

Seats: Ana (p1) hosts and plays first (Ben, p2, deals); Ben is the one who is away.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from typing import Any, cast

import pytest
from redis.asyncio import Redis
from starlette.websockets import WebSocket

from crisp import engine
from crisp.bench.procs import free_port, start_redis
from crisp.server.rooms.document import Change
from crisp.server.rooms.look_ledger import LookLedger
from crisp.server.rooms.service import Rooms
from crisp.server.sockets.connection import Connection
from crisp.server.wire.vocabulary import CloseCode
from crisp.store import MemoryStore, RedisStore
from tests.engine.helpers import start
from tests.support.decks import deck_for
from tests.support.player import Player, close_all
from tests.support.rooms import table
from tests.support.servers import ThreadServer

# The servers' clocks are manual: nobody goes away, and no phase ends, by accident.
HANDS = {"p1": ["2C", "3C", "4C"], "p2": ["5D", "6D", "7D"]}
DECK = deck_for(HANDS, stock=["QD", "JD", "8C"], dealer=1)
BEN_DEALT = [("left", "5D"), ("right", "7D")]  # R2.4


def peeks(update: dict[str, object]) -> list[tuple[str, str]]:
    events = update["events"]
    assert isinstance(events, list)
    return [(e["slot"], e["card"]) for e in events if e["kind"] == "peek"]


def all_peeks(p: Player) -> list[tuple[str, str]]:
    return [(e["slot"], e["card"]) for e in p.events("peek")]


async def away(ben: Player, ana: Player) -> None:
    """Ben's socket closes; Ana's table shows him disconnected."""
    mark = ana.mark()
    await ben.close()
    await ana.wait_view(lambda v: not v["players"][1]["connected"], after=mark)


async def back(server: ThreadServer, p: Player) -> Player:
    """`p`'s seat connects again; its first update is checked for protocol basics."""
    again = await Player.join(server, p.code, p.pid, p.token)
    assert again.updates[0]["seq"] == 1
    assert all(e["kind"] == "peek" and e["player"] == p.pid for e in again.updates[0]["events"])
    return again


async def dealt_with_ben_away(server: ThreadServer) -> tuple[Player, Player]:
    """A two-seat room (the stacked DECK) started while Ben's socket is closed."""
    _code, (ana, ben) = await table(server, 2, deck=DECK, dealer=1)
    await away(ben, ana)
    await ana.act("start")
    await ana.wait_view(lambda v: v["status"] == "peek")
    assert all_peeks(ana) == [("left", "2C"), ("right", "4C")]
    return ana, ben


@pytest.fixture
def server(spawn_server: Callable[..., ThreadServer], redis_url: str) -> ThreadServer:
    """A server on the test Redis."""
    return spawn_server(redis_url=redis_url)


@pytest.mark.redis
async def test_r16_3_away_at_the_deal_and_back_in_the_peek_phase(server: ThreadServer) -> None:
    ana, ben = await dealt_with_ben_away(server)
    ben2 = await back(server, ben)
    assert ben2.view["status"] == "peek"
    assert peeks(ben2.updates[0]) == BEN_DEALT  # owed, in the order they arose
    await ben2.close()
    ben3 = await back(server, ben)
    assert ben3.updates[0]["events"] == []  # delivered: never again
    await close_all([ana, ben3])


@pytest.mark.redis
async def test_r16_3_away_at_the_deal_and_back_during_play(server: ThreadServer) -> None:
    ana, ben = await dealt_with_ben_away(server)
    await ana.act("ready")  # the only connected player: play starts (R16.2)
    await ana.wait_legal("draw")
    await ana.act("draw", source="stock")
    await ana.act("discard")  # QD onto the pile, not played
    ben2 = await back(server, ben)
    assert ben2.view["status"] == "playing" and ben2.view["discard_top"] == "QD"
    assert peeks(ben2.updates[0]) == BEN_DEALT
    # every later update of this socket is free of old looks
    await ben2.wait_legal("draw")
    await ben2.act("draw", source="stock")
    await ben2.act("discard")
    await ana.wait_view(lambda v: v["discard_top"] == "JD")
    assert all_peeks(ben2) == BEN_DEALT
    await close_all([ana, ben2])


@pytest.mark.redis
async def test_r16_3_a_queens_other_player_away_at_the_swap(server: ThreadServer) -> None:
    """Ben saw his deal; away when Ana's Queen swaps his left: on his return he is
    owed only the card he received (R8.3); the deal's left look left with its card,
    the right one was delivered."""
    _code, (ana, ben) = await table(server, 2, deck=DECK, dealer=1)
    await ana.act("start")
    await ben.wait_view(lambda v: v["status"] == "peek")
    assert all_peeks(ben) == BEN_DEALT
    await ana.act("ready")
    await ben.act("ready")
    await away(ben, ana)
    await ana.wait_legal("draw")
    await ana.act("draw", source="stock")
    await ana.wait_view(lambda v: v["holding"] == "QD")
    await ana.act("queen", slot="left", target="p2", target_slot="left")
    await ana.wait_view(lambda v: v["holding"] is None)
    assert ("left", "5D") in all_peeks(ana)  # R8.2: the card Ana received
    ben2 = await back(server, ben)
    assert peeks(ben2.updates[0]) == [("left", "2C")]  # R8.3, once
    await ben2.close()
    ben3 = await back(server, ben)
    assert ben3.updates[0]["events"] == []
    await close_all([ana, ben3])


@pytest.mark.redis
async def test_r16_3_owed_looks_survive_a_server_restart_and_are_not_repeated_after_one(
    spawn_server: Callable[..., ThreadServer], redis_url: str
) -> None:
    """Ben away at the deal, the server restarts (same Redis): the new process owes
    Ben his looks and owes Ana nothing (hers reached her before the restart)."""
    first = spawn_server(redis_url=redis_url)
    ana, ben = await dealt_with_ben_away(first)
    await ana.close()
    first.stop()
    second = spawn_server(redis_url=redis_url)
    ana2 = await back(second, ana)
    assert ana2.updates[0]["events"] == []
    ben2 = await back(second, ben)
    assert ben2.view["status"] == "peek"
    assert peeks(ben2.updates[0]) == BEN_DEALT
    await close_all([ana2, ben2])
    second.stop()
    third = spawn_server(redis_url=redis_url)
    ben3 = await back(third, ben)
    assert ben3.updates[0]["events"] == []
    await ben3.close()


@pytest.mark.redis
async def test_r16_3_a_look_in_an_update_lost_in_transit_still_arrives(
    server: ThreadServer, redis_url: str
) -> None:
    """Ana's Jack is saved by another process while this server's subscriber
    connection is cut (CLIENT KILL TYPE pubsub, the server busy for 0.3 s so it
    notices late): the change with her peek never reaches this server, which
    reloads the room once subscribed again; the reloaded update carries the look."""
    code, (ana, ben) = await table(server, 2, deck=deck_for(HANDS, stock=["JD"], dealer=1),
                                   dealer=1)
    await ana.act("start")
    for p in (ana, ben):
        await p.act("ready")
    await ana.wait_legal("draw")
    await ana.act("draw", source="stock")
    before = (await ana.wait_view(lambda v: v["holding"] == "JD"))["version"]
    other = RedisStore(redis_url)  # another server process on the same Redis
    await other.start()
    raw = Redis.from_url(redis_url)
    try:
        server.loop.call_soon_threadsafe(time.sleep, 0.3)  # the server is busy
        await asyncio.sleep(0.02)  # pacing: the server's loop is held from now on
        assert await raw.client_kill_filter(_type="pubsub") >= 1
        assert await Rooms(other).act(code, ana.pid, engine.action_from_dict({"type": "jack"}))
        up = await ana.wait(
            lambda p: next((u for u in p.updates if u["view"]["version"] > before), None),
            what="the lost change")
    finally:
        await other.close()
        await raw.aclose()
    assert up["view"]["version"] == before + 1
    # the change itself was lost (its public `jack` event is not here): the reload
    # brought the look
    assert [e["kind"] for e in up["events"]] == ["peek"]
    assert peeks(up) == [("middle", "3C")]
    await ben.wait_view(lambda v: v["version"] == before + 1)
    assert all_peeks(ana).count(("middle", "3C")) == 1
    await close_all([ana, ben])


@pytest.mark.parametrize("processes", [1, 2])
@pytest.mark.redis
async def test_r16_3_connections_racing_for_one_seat_show_each_look_once(
    spawn_server: Callable[..., ThreadServer], redis_url: str, processes: int
) -> None:
    """Ben away at the deal; three of his connections say hello at once, on one
    server or spread over two (one Redis): his two looks are shown exactly once in
    all, and not to a connection after them."""
    servers = [spawn_server(redis_url=redis_url) for _ in range(processes)]
    ana, ben = await dealt_with_ben_away(servers[0])
    racers = await asyncio.gather(
        *(Player.join(servers[i % processes], ben.code, ben.pid, ben.token) for i in range(3)))
    # every update of the racers is in: each has the stored room, or was replaced
    stored = (await servers[0].clock(ben.code))["version"]
    for r in racers:
        await r.wait(lambda q: q.closed or q.version >= stored, what=f"version {stored}")
    shown = sorted(look for r in racers for look in all_peeks(r))
    assert shown == sorted(BEN_DEALT), [r.updates for r in racers]
    late = await back(servers[-1], ben)
    assert late.updates[0]["events"] == []
    await close_all([ana, late, *racers])


class _Socket:
    """The server side of a websocket: records what is written, or (`dead`) fails
    every write, as a socket whose peer vanished does."""

    def __init__(self, dead: bool = False) -> None:
        self.dead = dead
        self.sent: list[dict[str, Any]] = []
        self.written = asyncio.Condition()

    async def send_text(self, text: str) -> None:
        if self.dead:
            raise ConnectionResetError("the peer is gone")
        async with self.written:
            self.sent.append(json.loads(text))
            self.written.notify_all()

    async def close(self, code: int, reason: str) -> None:
        pass


async def sent(socket: _Socket, n: int) -> dict[str, Any]:
    """The `n`th update written to `socket` (1-based), once it is there."""
    async with socket.written:
        try:
            await asyncio.wait_for(socket.written.wait_for(lambda: len(socket.sent) >= n), 10)
        except TimeoutError:
            raise AssertionError(f"no update {n}: {socket.sent}") from None
    return socket.sent[n - 1]


def connect(socket: _Socket, ledger: LookLedger) -> Connection:
    """Ben's connection on `socket`, its writer running and its first update queued."""
    conn = Connection(cast(WebSocket, socket), "ABCD", "p2", ledger=ledger)
    conn.start_writer()
    conn.snapshot(start(HANDS, dealer=1, ready=False).state)
    return conn


async def test_r16_3_a_look_whose_write_failed_is_still_owed() -> None:
    """A look counts as delivered only once written: the claim of a write that failed
    is given back, and the seat's next connection shows the look (then nobody)."""
    store = MemoryStore()
    await store.start()
    await store.create("ABCD", "{}")
    ledger = LookLedger(store, "ABCD")

    async def first_update(socket: _Socket) -> list[tuple[str, str]]:
        conn = connect(socket, ledger)
        conn.close(CloseCode.NORMAL, "done")
        await conn.wait_closed()
        return [] if socket.dead else peeks(socket.sent[0])

    assert await first_update(_Socket(dead=True)) == []
    assert await store.claim_mark("ABCD", "looks:p2", 0) == 0  # given back
    assert await first_update(_Socket()) == BEN_DEALT
    assert await first_update(_Socket()) == []
    await store.close()


@pytest.mark.redis
async def test_r16_3_looks_that_could_not_be_claimed_come_once_the_store_answers() -> None:
    """Redis is down when Ben's first update would claim his looks: it goes out
    without them (nothing marked) and asks for the table again; once Redis answers,
    that update shows them."""
    port = free_port()
    store = RedisStore(f"redis://127.0.0.1:{port}?op_timeout=1")
    asked: list[Connection] = []

    def refresh(conn: Connection) -> None:  # as Hub.refresh does, once the store answers
        conn.expect_refresh()
        asked.append(conn)

    socket = _Socket()
    conn = connect(socket, LookLedger(store, "ABCD"))
    conn.on_looks_unsent = refresh
    first = await sent(socket, 1)
    assert first["events"] == [] and asked == [conn]
    redis = start_redis(port=port)
    try:
        assert await store.create("ABCD", "{}")
        state = start(HANDS, dealer=1, ready=False).state
        conn.deliver(Change(state, [], {}, frozenset({"p1", "p2"}), 1), refresh=True)
        again = await sent(socket, 2)
        assert again["view"]["version"] == first["view"]["version"]
        assert peeks(again) == BEN_DEALT
        newest = max(look.seq for look in engine.looks_for(state, "p2"))
        assert await store.claim_mark("ABCD", "looks:p2", 0) == newest  # marked now
    finally:
        conn.stop()
        await store.close()
        redis.stop()
