"""Outcomes the server could not learn at once, settled later (issue 23): a save of
computer moves whose answer never came is counted in `crisp_computer_moves_total`
once the store says it landed (its id is among the room's last saves), never
before and never twice. A real redis-server of the test's own, frozen (SIGSTOP)
at the exact moment: right after the load that precedes the save."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Awaitable, Callable, Iterator

import pytest
from prometheus_client.parser import text_string_to_metric_families

from crisp.bench.procs import RedisServer, start_redis
from crisp.server.ops.metrics import PrometheusHooks
from crisp.server.rooms import doccache
from tests.support.player import Player, close_all
from tests.support.rooms import acts_of, add_bots, create_room, stored_state
from tests.support.servers import ThreadServer

pytestmark = pytest.mark.redis

FAST_FAIL = "?op_timeout=1"  # a store call is given up after 1 s


@pytest.fixture
def own_redis() -> Iterator[RedisServer]:
    proc = start_redis()
    yield proc
    with contextlib.suppress(ProcessLookupError):
        os.kill(proc.pid, signal.SIGCONT)  # never leave it stopped
    proc.stop()


class FreezeAfterLoad(PrometheusHooks):
    """Metrics, and once armed, Redis frozen the moment a room load returns: the save
    that follows is sent to a Redis that cannot answer, and applied when it runs."""

    def __init__(self) -> None:
        super().__init__()
        self.redis_pid: int | None = None

    def store_op(self, op: str, seconds: float, ok: bool) -> None:
        super().store_op(op, seconds, ok)
        if op == "load" and ok and self.redis_pid is not None:
            os.kill(self.redis_pid, signal.SIGSTOP)
            self.redis_pid = None


async def computer_moves_counted(server: ThreadServer) -> int:
    async with server.http() as client:
        text = (await client.get("/metrics")).text
    return int(sum(s.value for f in text_string_to_metric_families(text) for s in f.samples
                   if s.name == "crisp_computer_moves_total"))


async def test_computer_moves_saved_with_an_unknown_outcome_are_counted_once_known(
    own_redis: RedisServer, spawn_server: Callable[..., ThreadServer],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(doccache, "RECENT_S", -1.0)  # every change loads first
    hooks = FreezeAfterLoad()
    server = spawn_server(hooks, redis_url=own_redis.url + FAST_FAIL)
    code, pid, token = await create_room(server, "Ana", dealer=0)  # the bot plays first
    ana = await Player.join(server, code, pid, token)
    (bot,) = await add_bots(ana, "normal")
    await ana.act("start")
    await ana.act("ready")
    # the bot's first draw is its plan's time away (R17.1): that save is frozen
    await ana.wait_view(lambda v: v["turn"] is not None and v["turn"]["player"] == bot)
    before = ana.version
    due = (await server.clock())["due"]
    assert due is not None
    hooks.redis_pid = own_redis.pid
    async with server.http() as client:  # the store stops answering in the middle
        await client.post("/api/test/clock", json={"to_ms": due}, timeout=30)
    assert await computer_moves_counted(server) == 0  # not known yet: not counted
    os.kill(own_redis.pid, signal.SIGCONT)  # the save is applied now, its answer lost

    async def until(check: Callable[[], Awaitable[bool]]) -> None:
        async with asyncio.timeout(15):
            while not await check():
                await asyncio.sleep(0.05)  # poll interval of the store and /metrics

    async def landed() -> bool:
        return (await stored_state(own_redis.url, code)).version > before

    async def counted(n: int) -> Callable[[], Awaitable[bool]]:
        async def check() -> bool:
            return await computer_moves_counted(server) >= n
        return check

    await until(landed)  # it landed: the bot drew
    assert (await stored_state(own_redis.url, code)).holding is not None
    await until(await counted(1))  # counted once its outcome was known
    # the bot's next move, saved as usual, counts once: 2 in all, never 3
    mark = ana.mark()
    await server.advance(to=(await server.clock())["due"])
    await ana.wait(lambda p: len(acts_of(p, bot, after=mark)) >= 1, what="the bot's move")
    assert await computer_moves_counted(server) == 2
    await close_all([ana])
