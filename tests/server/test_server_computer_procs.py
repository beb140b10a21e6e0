"""Computer play across real server processes (`crisp serve`) on one Redis (R17.1,
R17.2, R17.5): a computer move is a deadline in the store, so it is made exactly
once whichever process's scheduler claims the room, and a SIGKILLed process's
computer seats play on, on the other process or on a process started later.

Each process counts the computer moves it made and saved
(`crisp_computer_moves_total`, GET /metrics); the players count the moves they saw."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from crisp.bench.client import legal_at
from crisp.bots import random_move
from tests.support.play import drive, drive_all, simple_policy
from tests.support.player import Player, close_all
from tests.support.rooms import (
    acts_of,
    add_bots,
    create_room,
    join_room,
    start_game,
    stored_state,
)
from tests.support.servers import ProcServer, advance_all

pytestmark = pytest.mark.redis

AWAY_MS = 20_000  # R17.2


async def computer_moves_made(server: ProcServer) -> int:
    """`crisp_computer_moves_total` of one process, all action types."""
    async with server.http() as client:
        r = await client.get("/metrics")
    assert r.status_code == 200, r.text
    return int(sum(s.value for f in text_string_to_metric_families(r.text) for s in f.samples
                   if s.name == "crisp_computer_moves_total"))


def no_crisp(seed: int) -> Callable[[Player, dict[str, Any], int], dict[str, Any] | None]:
    """Random moves that never call crisp (the computer seats end the round) and never
    confirm a round's end (so no next round starts, R16.5)."""
    rng = random.Random(seed)

    def policy(p: Player, v: dict[str, Any], now: int) -> dict[str, Any] | None:
        if v["status"] == "round_over":
            return None
        return random_move(legal_at(v, now), rng, crisp_chance=0.0)

    return policy


def refused_moves(*servers: ProcServer) -> list[str]:
    """The log lines of computer moves the engine refused (never expected)."""
    return [line for s in servers if s.log_path is not None
            for line in s.log_path.read_text().splitlines() if "computer move" in line]


async def two_processes(
    spawn_crisp: Callable[..., ProcServer], redis_url: str
) -> tuple[ProcServer, ProcServer, str, Player, Player]:
    """Processes a and b on one Redis, and a room with Ana (host) on a and Ben on b."""
    a, b = spawn_crisp(CRISP_REDIS_URL=redis_url), spawn_crisp(CRISP_REDIS_URL=redis_url)
    await advance_all([a, b])  # one game time on both
    code, pid, token = await create_room(a, "Ana")
    ana = await Player.join(a, code, pid, token)
    ben_pid, ben_token = await join_room(b, code, "Ben")
    return a, b, code, ana, await Player.join(b, code, ben_pid, ben_token)


def all_ready(seats: set[str]) -> Callable[[dict[str, Any]], bool]:
    """The round is over and every seat of `seats` confirmed it (R16.5)."""
    return lambda v: v["status"] == "round_over" and all(
        p["ready"] for p in v["players"] if p["id"] in seats)


async def test_r17_two_processes_make_each_computer_move_exactly_once(
    spawn_crisp: Callable[..., ProcServer], redis_url: str
) -> None:
    a, b, code, ana, ben = await two_processes(spawn_crisp, redis_url)
    cid_pid, cid_token = await join_room(b, code, "Cid")
    cid = await Player.join(b, code, cid_pid, cid_token)
    bots = await add_bots(ana, "normal", "easy")
    await start_game([ana, ben, cid])
    # Cid closes his phone: 20 s later his seat is away and the computer plays it (R17.2)
    mark = ana.mark()
    await cid.close()
    await ana.wait_event("disconnected", after=mark)
    await advance_all([a, b], AWAY_MS)
    await ana.wait_event("away", after=mark)
    played = {*bots, cid_pid}
    # Ana (on a) and Ben (on b) play without calling crisp; the computer seats end
    # the round and confirm it, whichever process claims the room each time
    await drive_all([(p, no_crisp(seed), lambda q: all_ready(played)(q.view))
                     for seed, p in enumerate((ana, ben))])

    def computer_moves_seen(p: Player) -> list[dict[str, Any]]:
        (away,) = [i for i, u in enumerate(p.updates)
                   if any(e["kind"] == "away" for e in u["events"])]
        return [e for s in bots for _t, e in acts_of(p, s)] + [
            e for _t, e in acts_of(p, cid_pid, after=away)]

    seen_by_ana, seen_by_ben = computer_moves_seen(ana), computer_moves_seen(ben)
    # three computer seats through a whole round: at least a draw and its end each
    # (a round a computer ends early by calling crisp may hold as few as ten moves)
    assert len(seen_by_ana) >= 6
    assert any(e["player"] == cid_pid for e in seen_by_ana)
    # every computer move reached both processes' sockets once
    assert sorted(map(json.dumps, seen_by_ana)) == sorted(map(json.dumps, seen_by_ben))
    # and each was made by one process only: the counts add up to the moves seen
    made = [await computer_moves_made(a), await computer_moves_made(b)]
    assert sum(made) == len(seen_by_ana), made
    assert min(made) > 0, made  # both processes made computer moves
    assert refused_moves(a, b) == []
    await close_all([ana, ben])


async def test_r17_a_killed_process_computer_seats_play_on_on_the_other(
    spawn_crisp: Callable[..., ProcServer], redis_url: str
) -> None:
    a, b, code, ana, ben = await two_processes(spawn_crisp, redis_url)
    bots = await add_bots(ana, "normal", "normal")
    await start_game([ana, ben])
    policy = no_crisp(2)

    def each_bot_drew(p: Player) -> bool:
        return all(any(e["kind"] == "drew" for _t, e in acts_of(p, s)) for s in bots)

    await drive_all([(ana, policy, each_bot_drew), (ben, no_crisp(3), each_bot_drew)])
    # a dies (SIGKILL) with the game going on; its scheduler may hold the room's claim
    a.kill()
    assert await ana.wait_closed() == 1006
    # b's count first: a move b saves between the two reads is then in b's count and
    # at or below `at_crash`, never counted as after the crash but not made after it
    before = await computer_moves_made(b)
    at_crash = (await stored_state(redis_url, code)).version
    ana = await Player.join(b, code, ana.pid, ana.token)

    def after_crash(p: Player) -> list[dict[str, Any]]:
        return [e for s in bots for _t, e in acts_of(p, s, after=next(
            (i for i, u in enumerate(p.updates) if u["view"]["version"] > at_crash),
            len(p.updates)))]

    # the computer seats play on, on b, to the round's end and confirm it (R16.5): at
    # least that confirmation from each is a move made after the crash
    def done(p: Player) -> bool:
        return all_ready(set(bots))(p.view)

    await drive_all([(ana, policy, done), (ben, no_crisp(4), done)])
    moved = after_crash(ben)
    assert {e["player"] for e in moved} == set(bots), moved
    assert await computer_moves_made(b) - before >= len(moved)
    assert refused_moves(b) == []
    await close_all([ana, ben])


async def test_r17_computer_moves_survive_a_restart(
    spawn_crisp: Callable[..., ProcServer], redis_url: str
) -> None:
    env = {"CRISP_REDIS_URL": redis_url}
    a = spawn_crisp(**env)
    code, pid, token = await create_room(a, "Ana")
    ana = await Player.join(a, code, pid, token)
    (bot,) = await add_bots(ana, "normal")
    await ana.act("start")
    await ana.act("ready")
    # kill the server while the bot waits to move (its pause, R17.1: the clock stands
    # still); a new process makes its move
    assert not next(p for p in ana.view["players"] if p["id"] == bot)["ready"]
    a.kill()
    await ana.wait_closed()
    b = spawn_crisp(**env)
    ana = await Player.join(b, code, ana.pid, ana.token)
    mark = ana.mark()
    await drive(ana, simple_policy, lambda p: len(acts_of(p, bot, after=mark)) >= 2)
    await close_all([ana])
