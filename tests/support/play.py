"""Playing for the tests' players: policies built on the bots (crisp.bots) and a
driver that lets a policy play a seat until a condition holds, round after round to
game over."""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import Callable
from typing import Any

from crisp.bench.client import legal_at
from crisp.bots import Memory, choose, random_move
from crisp.server.clock import now_ms

from .player import Player

Policy = Callable[[Player, dict[str, Any], int], dict[str, Any] | None]


KIT_RNG = random.Random(20261201)  # the kit's moves are reproducible run to run


def simple_policy(p: Player, v: dict[str, Any], now: int) -> dict[str, Any] | None:
    """The bots' random policy (crisp.bots.random_move) on the view as of `now`, calling
    crisp in every window so that rounds stay short: ready when asked, any legal
    move (a draw from either pile, a swap, a special) otherwise."""
    return random_move(legal_at(v, now), KIT_RNG, crisp_chance=1.0)


class BotPolicy:
    """A computer player of `level` for a test's seat (crisp.bots): its memory sees
    every update the seat received, in order, and it moves on the view as of `now`."""

    def __init__(self, pid: str, level: str = "normal", seed: int = 0) -> None:
        self.memory = Memory(pid, level=level)
        self.rng = random.Random(seed)
        self.seen = 0

    def __call__(self, p: Player, v: dict[str, Any], now: int) -> dict[str, Any] | None:
        for update in p.updates[self.seen:]:
            self.memory.observe(update["view"], update["events"])
        self.seen = len(p.updates)
        return choose(legal_at(v, now), self.memory, now, self.rng)


async def play_action(p: Player, action: dict[str, Any], settle: float) -> dict[str, Any]:
    """Send `action` (a client message) and return its answer. After a refusal (e.g. a
    window that just closed), wait up to `settle` seconds for news instead of deciding
    again on the same view."""
    fields = dict(action)
    answer = await p.act(fields.pop("type"), **fields)
    if answer["type"] == "error":
        ups = len(p.updates)
        with contextlib.suppress(AssertionError):
            await p.wait(lambda q: len(q.updates) > ups or q.closed, settle)
    return answer


async def drive(
    p: Player,
    policy: Policy,
    until: Callable[[Player], bool],
    timeout: float = 60.0,
) -> None:
    """Let `policy` play for `p` until `until(p)`. Each action is awaited until its
    answer came (`Player.act`), so the next decision sees a view at least that new."""
    deadline = time.monotonic() + timeout
    while not until(p):
        if p.closed:
            raise AssertionError(f"{p.pid} closed {p.close_code} while driving")
        if time.monotonic() > deadline:
            raise AssertionError(f"{p.pid}: driving timed out; last view {p.view}")
        seen = len(p.frames)
        v = p.view
        now = now_ms()
        action = policy(p, v, now)
        if action is not None:
            await play_action(p, action, settle=0.1)
            continue
        wait = 0.2
        turn = v["turn"]
        if turn is not None and turn["player"] == p.pid and turn["may_start_at"] > now:
            wait = min(wait, (turn["may_start_at"] - now) / 1000 + 0.002)
        with contextlib.suppress(AssertionError):
            await p.wait(lambda q, n=seen: len(q.frames) > n or q.closed or until(q), wait)


def finished(statuses: tuple[str, ...]) -> Callable[[Player], bool]:
    return lambda p: bool(p.updates) and p.view["status"] in statuses


async def play_rounds_to_game_over(players: list[Player], policy: Policy = simple_policy) -> None:
    """Play rounds with `policy`, the host (`players[0]`) dealing each next round, to
    game over (at most 15 rounds)."""
    host = players[0]
    for _ in range(15):
        await asyncio.gather(
            *(drive(p, policy, finished(("round_over", "game_over"))) for p in players)
        )
        if host.view["status"] == "game_over":
            return
        await host.act("next_round")
        for p in players:
            await p.wait_view(lambda v: v["status"] == "peek")
    raise AssertionError("the game did not end")
