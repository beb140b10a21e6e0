"""Playing for the tests' players: policies built on the bots (crisp.bots) and a
driver that lets a policy play a seat until a condition holds, round after round to
game over."""

from __future__ import annotations

import contextlib
import random
import time
from collections.abc import Callable
from typing import Any

from crisp.bench.client import legal_at
from crisp.bots import Memory, choose, random_move

from .player import Player
from .servers import LiveServer, advance_all

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


async def play_action(p: Player, action: dict[str, Any]) -> dict[str, Any]:
    """Send `action` (a client message) and return its answer."""
    fields = dict(action)
    return await p.act(fields.pop("type"), **fields)


Until = Callable[[Player], bool]
Seat = tuple[Player, Policy, Until]


async def in_step(players: list[Player], version: int | None) -> None:
    """Wait until every open player has received the room at `version` or later (each
    change goes to every seat)."""
    if version is None:
        return
    for p in players:
        if not p.closed:
            await p.wait(lambda q: q.closed or q.version >= version,
                         what=f"room version {version}")


async def drive_all(seats: list[Seat], timeout: float = 60.0) -> None:
    """Let each seat's policy play for its player until every `until` holds, all in one
    loop: a player whose policy has a move sends it and waits for its answer, and the
    table waits until every player has seen that change. When nobody has a move, game
    time moves on: a manual clock (servers.py) is moved to the next moment something
    can happen (the room's next deadline, or a turn's `may_start_at`), so a game plays
    out the same every run; on real time the players wait for the server's next
    update."""
    players = [p for p, _, _ in seats]
    servers = list({id(p.server): p.server for p in players}.values())
    manual = all(s.manual_clock for s in servers)
    deadline = time.monotonic() + timeout
    while not all(until(p) for p, _, until in seats):
        for p in players:
            if p.closed:
                raise AssertionError(f"{p.pid} closed {p.close_code} while driving")
        if time.monotonic() > deadline:
            raise AssertionError("driving timed out; last views: "
                                 + "; ".join(f"{p.pid} {p.view}" for p in players))
        clocks = [await s.clock(players[0].code) for s in servers]
        now = max(c["now"] for c in clocks)
        acted = False
        for p, policy, until in seats:
            if until(p):
                continue
            action = policy(p, p.view, now)
            if action is not None:
                answer = await play_action(p, action)
                if answer["type"] == "update":
                    await in_step(players, answer["view"]["version"])
                acted = True
        if acted:
            continue
        if manual:
            await _next_moment(players, servers, clocks, now)
        else:
            # real time: look again at the next frame of the first seat, or in 0.2 s
            seen = len(players[0].frames)
            with contextlib.suppress(AssertionError):
                await players[0].wait(lambda q, n=seen: len(q.frames) > n or q.closed, 0.2)


async def _next_moment(
    players: list[Player], servers: list[LiveServer], clocks: list[dict[str, Any]], now: int
) -> None:
    """Move every server's manual clock to the next moment something can happen, and
    wait until the players have seen what it changed."""
    times = [c["due"] for c in clocks if c["due"] is not None]
    for p in players:
        turn = p.view["turn"]
        if turn is not None and turn["may_start_at"] > now:
            times.append(turn["may_start_at"])
    if not times:
        raise AssertionError("nobody can move and nothing is due: the table is stuck; "
                             + "; ".join(f"{p.pid} {p.view}" for p in players))
    target = max(min(times), now + 1)
    answers = await advance_all(servers, to=target, room=players[0].code)
    await in_step(players, answers[-1].get("version"))


async def drive(p: Player, policy: Policy, until: Until, timeout: float = 60.0) -> None:
    """`drive_all` for one seat (the other seats, if any, are left alone)."""
    await drive_all([(p, policy, until)], timeout)


def finished(statuses: tuple[str, ...]) -> Callable[[Player], bool]:
    return lambda p: bool(p.updates) and p.view["status"] in statuses


async def play_rounds_to_game_over(players: list[Player], policy: Policy = simple_policy) -> None:
    """Play rounds with `policy`, the host (`players[0]`) dealing each next round, to
    game over (at most 15 rounds)."""
    host = players[0]
    for _ in range(15):
        await drive_all([(p, policy, finished(("round_over", "game_over"))) for p in players])
        if host.view["status"] == "game_over":
            return
        await host.act("next_round")
        for p in players:
            await p.wait_view(lambda v: v["status"] == "peek")
    raise AssertionError("the game did not end")
