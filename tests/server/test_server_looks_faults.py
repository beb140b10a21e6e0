"""Owed looks (R16.3 revised) at the two moments the delivery work left open
(issue 23): a process that dies between claiming a seat's owed looks and writing
them does not count them as shown, and a claim whose outcome was unknown, shown
anyway, is not shown again to a later connection. Real Redis; `crisp serve`
processes for the crash (a test hook kills the process at that exact point)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator

import pytest
import redis

from crisp.bench.procs import RedisServer, start_redis
from crisp.server.ops.hooks import ServerHooks
from crisp.server.rooms.look_ledger import STALE_MS
from crisp.store import RedisStore
from tests.support.decks import deck_for
from tests.support.player import Player, close_all
from tests.support.rooms import create_room, join_room
from tests.support.servers import ProcServer, ThreadServer, advance_all

pytestmark = pytest.mark.redis

HANDS = {"p1": ["2C", "3C", "4C"], "p2": ["5D", "6D", "7D"]}
DECK = deck_for(HANDS, stock=["QD", "JD", "8C"], dealer=1)
BEN_DEALT = [("left", "5D"), ("right", "7D")]  # R2.4


def peeks(p: Player) -> list[tuple[str, str]]:
    return [(e["slot"], e["card"]) for e in p.events("peek")]


async def test_r16_3_a_process_dying_between_the_claim_and_the_write_owes_the_looks_still(
    spawn_crisp: Callable[..., ProcServer], redis_url: str
) -> None:
    """Ben, away at the deal, connects to process a, which claims his looks and dies
    before writing them (SIGKILL at that point). A connection right after, while the
    claim could still be a live one, is not shown them twice; once the claim is
    stale, his next connection is shown both, once."""
    b = spawn_crisp(CRISP_REDIS_URL=redis_url)
    a = spawn_crisp(CRISP_REDIS_URL=redis_url, CRISP_TEST_FAULT="after_look_claim")
    await advance_all([a, b])
    code, pid, token = await create_room(b, "Ana", deck=DECK, dealer=1)
    ben_pid, ben_token = await join_room(b, code, "Ben")
    ana = await Player.join(b, code, pid, token)
    await ana.act("start")
    await ana.wait_view(lambda v: v["status"] == "peek")
    ben = await Player.join(a, code, ben_pid, ben_token, hello=False)
    await ben.send({"type": "hello", "token": ben_token})
    assert await ben.wait_closed() == 1006  # a died right after claiming
    assert peeks(ben) == []
    soon = await Player.join(b, code, ben_pid, ben_token)
    assert peeks(soon) == []  # a claim of moments ago may still be written
    await soon.close()
    await b.advance(STALE_MS)
    late = await Player.join(b, code, ben_pid, ben_token)
    assert peeks(late) == BEN_DEALT  # owed, not forfeited
    await late.close()
    again = await Player.join(b, code, ben_pid, ben_token)
    assert peeks(again) == []  # and shown once
    await close_all([ana, again])


@pytest.fixture
def own_redis() -> Iterator[RedisServer]:
    proc = start_redis()
    yield proc
    proc.stop()


class PauseWritesAfterSave(ServerHooks):
    """Once armed, the moment a save returns, Redis stops taking writes for `ms`
    (CLIENT PAUSE WRITE): the next write, the claim of Ben's looks, waits past the
    store's time-out and is dropped with its connection: its outcome unknown."""

    def __init__(self, url: str, ms: int) -> None:
        self.client = redis.Redis.from_url(url)
        self.ms = ms
        self.armed = False

    def store_op(self, op: str, seconds: float, ok: bool) -> None:
        if op == "save" and ok and self.armed:
            self.armed = False
            self.client.client_pause(self.ms, all=False)


async def test_r16_3_looks_shown_after_an_unknown_claim_are_not_shown_again(
    own_redis: RedisServer, spawn_server: Callable[..., ThreadServer]
) -> None:
    hooks = PauseWritesAfterSave(own_redis.url, 2500)
    server = spawn_server(hooks, redis_url=own_redis.url + "?op_timeout=1")
    code, pid, token = await create_room(server, "Ana", deck=DECK, dealer=1)
    ben_pid, ben_token = await join_room(server, code, "Ben")
    ana = await Player.join(server, code, pid, token)
    await ana.act("start")
    await ana.wait_view(lambda v: v["status"] == "peek")
    hooks.armed = True  # Ben's seat is saved connected; then his claim meets the pause
    ben = await Player.join(server, code, ben_pid, ben_token)
    assert peeks(ben) == BEN_DEALT  # the claim's outcome unknown: shown anyway
    # the confirm is tried again until the pause is over: wait for it in the store
    store = RedisStore(own_redis.url)
    await store.start()
    try:
        async with asyncio.timeout(15):
            while (await store.claim_mark(code, "shown:" + ben_pid, 0) or 0) < 2:
                await asyncio.sleep(0.05)  # poll interval of the store
    finally:
        await store.close()
    await ben.close()
    again = await Player.join(server, code, ben_pid, ben_token)
    assert peeks(again) == []  # never shown a second time
    hooks.client.close()
    await close_all([ana, again])
