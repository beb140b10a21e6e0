"""Watchers across processes (R18.1): two `crisp serve` on one Redis, the players on
one, the watchers on the other. The watcher's frames hold no hidden card (the truth:
a known deck, then the round's record), the count reaches the players of the other
process, turning watching off closes a watcher held by the other process, the
watchers of a process that was SIGKILLed stop counting once their presence leases
run out (R17.3's leases, rooms/leases.py), and after a graceful restart only the
watchers connected now are counted."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Callable

import pytest

from tests.support.audit import audit_against_replays, audit_watcher, deal_of
from tests.support.decks import deck
from tests.support.play import drive_all, finished, simple_policy
from tests.support.player import Player, close_all
from tests.support.rooms import create_room, join_room, start_game
from tests.support.servers import ProcServer, advance_all

pytestmark = pytest.mark.redis

SCRIPT = deck("AS", "TH", "2S", "9H", "3S", "8H", "JD", "QD", "KD", "4C", "5C", "7C")
LEASE_MS = 15_000  # R17.3: a presence lease (rooms/leases.py)


async def test_r18_1_a_watcher_on_another_process(
    spawn_crisp: Callable[..., ProcServer], redis_url: str
) -> None:
    a, b = spawn_crisp(CRISP_REDIS_URL=redis_url), spawn_crisp(CRISP_REDIS_URL=redis_url)
    await advance_all([a, b])
    code, pid, token = await create_room(a, "Ana", deck=SCRIPT, dealer=0)
    ana = await Player.join(a, code, pid, token)
    ben = await Player.join(a, code, *await join_room(a, code, "Ben"))
    eve = await Player.watch(b, code)
    sam = await Player.watch(b, code)
    assert sam.view["watchers"] == 2
    mark = ana.mark()
    await start_game([ana, ben])
    assert ana.updates[mark]["view"]["watchers"] == 2  # saved on b, told on a
    await drive_all([(p, simple_policy, finished(("round_over", "game_over")))
                     for p in (ana, ben)])
    await eve.wait(lambda q: q.version >= ana.version, what="the reveal")
    async with b.http() as c:
        replay = (await c.get(f"/api/rooms/{code}/rounds/1")).json()
    assert replay["deal"]["hands"] == deal_of(SCRIPT, ["p1", "p2"], "p1")
    tokens = {ana.token, ben.token}
    assert audit_watcher(eve.frames, tokens) > 5
    assert audit_against_replays(eve.frames, {1: replay}) > 5
    # b dies with its watchers: they stop counting once their leases run out
    b.kill()
    await advance_all([a], LEASE_MS + 5_000)
    mark = ana.mark()
    await ana.act("next_round")
    view = await ana.wait_view(lambda v: v["round"] == 2, after=mark)
    assert view["watchers"] == 0
    await close_all([ana, ben, eve, sam])


async def test_r18_1_watching_off_closes_a_watcher_on_another_process(
    spawn_crisp: Callable[..., ProcServer], redis_url: str
) -> None:
    a, b = spawn_crisp(CRISP_REDIS_URL=redis_url), spawn_crisp(CRISP_REDIS_URL=redis_url)
    await advance_all([a, b])
    code, pid, token = await create_room(a, "Ana")
    ana = await Player.join(a, code, pid, token)
    eve = await Player.watch(b, code)
    await ana.act("options", watchers=False)
    assert await eve.wait_closed() == 4403
    async with a.http() as c:
        assert (await c.get(f"/api/rooms/{code}")).json()["watchers"] == 0
    await close_all([ana])


async def test_r18_1_after_a_graceful_restart_only_the_watchers_there_now_count(
    spawn_crisp: Callable[..., ProcServer], redis_url: str
) -> None:
    """SIGTERM: the seats keep their presence for the restart (a lease grace), but the
    watchers are uncounted at once; each comes back as a new connection."""
    a = spawn_crisp(CRISP_REDIS_URL=redis_url)
    code, pid, token = await create_room(a, "Ana")
    ana = await Player.join(a, code, pid, token)
    eve, sam = await Player.watch(a, code), await Player.watch(a, code)
    assert sam.view["watchers"] == 2
    assert a.proc is not None
    a.proc.send_signal(signal.SIGTERM)
    assert await eve.wait_closed() == 1012 and await sam.wait_closed() == 1012
    await asyncio.to_thread(a.proc.wait, 10)
    b = spawn_crisp(CRISP_REDIS_URL=redis_url)
    async with b.http() as c:
        room = (await c.get(f"/api/rooms/{code}")).json()
    assert room["watchers"] == 0
    assert room["players"][0]["connected"] is True  # the seat's restart grace (R17.3)
    eve = await Player.watch(b, code)
    assert eve.view["watchers"] == 1
    await close_all([ana, eve, sam])
