"""Self-play measurement of Crapette's computer players (docs/bots.md, "Crapette").

`python -m crisp.games.crapette.bots.selfplay --games 1000` plays each pairing
(normal-easy, hard-normal, hard-easy) that many games, seats alternating, seeds
0..n-1, under `--calls` (default obvious), and prints per pairing the first
level's wins, the draws (K5.2), the win share with its 95 % Wilson interval, and
per level: the share of its moves that were faults a call could catch, its calls
(right / made) and the CPU time of a decision (p50, p99, max). A measuring tool:
it reads the process clock, which the game itself never does.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import time
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from ...api import Ctx, Setup
from ..game import GAME
from ..vocabulary import ActionType, BotLevel, Calls

MAX_MESSAGES = 20_000  # a game still going then is counted a draw ("stuck")
PAIRINGS = ((BotLevel.NORMAL, BotLevel.EASY), (BotLevel.HARD, BotLevel.NORMAL),
            (BotLevel.HARD, BotLevel.EASY))  # fmt: skip


@dataclass
class Tally:
    """One level's numbers over many games."""

    moves: int = 0
    faults: int = 0
    calls: int = 0
    right: int = 0
    times: list[float] = field(default_factory=list)


def play(levels: tuple[str, str], seed: int, calls: Calls,
         tallies: dict[str, Tally]) -> int | None:
    """One game; the winning seat, None for a blocked game."""
    rng = random.Random(seed)
    players = ["p1", "p2"]
    state, events = GAME.start(players, {"calls": calls.value}, Setup(), Ctx(0, rng))
    bots = [GAME.bot(level) for level in levels]
    memory: list[Any] = [b.fresh(p) for b, p in zip(bots, players, strict=True)]

    def seen(p: str) -> dict[str, Any]:
        return {**GAME.view(state, p, 0), "options": {"calls": calls}}

    def follow() -> None:
        for i, p in enumerate(players):
            mine = [r for r in (GAME.redact(e, p) for e in events) if r is not None]
            memory[i] = bots[i].observe(memory[i], seen(p), mine)

    follow()
    now = 0
    while GAME.outcome(state) is None and now < MAX_MESSAGES:
        acting = list(GAME.to_act(state, now))
        rng.shuffle(acting)
        for p in acting:
            i = players.index(p)
            t = time.process_time()
            message = bots[i].decide(memory[i], seen(p), now, rng)
            tallies[levels[i]].times.append(time.process_time() - t)
            if message is None:
                continue
            message = json.loads(json.dumps(message))
            state, events = GAME.apply(state, p, GAME.parse(message), Ctx(now, rng))
            tally = tallies[levels[i]]
            if message["type"] == ActionType.MOVE:
                tally.moves += 1
                if state.record and state.record[-1].faults.any:
                    tally.faults += 1
            elif message["type"] == ActionType.CRAPETTE:
                tally.calls += 1
                tally.right += bool(events[0].data["right"])
            follow()
            break
        now += 1
    won: int | None = state.winner
    if GAME.outcome(state) is None:
        tallies["stuck"].moves += 1
    return won


def wilson(wins: int, n: int) -> tuple[float, float]:
    """The 95 % Wilson score interval of a share."""
    if n == 0:
        return 0.0, 1.0
    z = 1.96
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def match(a: str, b: str, games: int, calls: Calls) -> dict[str, Any]:
    """`games` games of level `a` against `b`, seats alternating."""
    tallies: dict[str, Tally] = defaultdict(Tally)
    wins = draws = 0
    for seed in range(games):
        levels = (a, b) if seed % 2 == 0 else (b, a)
        won = play(levels, seed, calls, tallies)
        if won is None:
            draws += 1
        elif levels[won] == a:
            wins += 1
    low, high = wilson(wins, games)
    out: dict[str, Any] = {"pairing": f"{a}-{b}", "calls": calls, "games": games,
                           "wins": wins, "draws": draws, "share": wins / games,
                           "ci95": [round(low, 3), round(high, 3)], "levels": {}}
    out["stuck"] = tallies.pop("stuck", Tally()).moves
    for level, t in tallies.items():
        times = sorted(t.times) or [0.0]
        out["levels"][level] = {
            "moves": t.moves, "fault_share": round(t.faults / max(t.moves, 1), 4),
            "calls": t.calls, "right": t.right, "decisions": len(times),
            "p50_ms": round(1000 * times[len(times) // 2], 3),
            "p99_ms": round(1000 * times[int(len(times) * 0.99)], 3),
            "max_ms": round(1000 * times[-1], 3)}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--calls", default=Calls.OBVIOUS, choices=list(Calls))
    parser.add_argument("--pairing", default=None, help="a-b, e.g. hard-normal")
    args = parser.parse_args()
    pairings = PAIRINGS if args.pairing is None else (tuple(args.pairing.split("-")),)
    for a, b in pairings:
        print(json.dumps(match(a, b, args.games, Calls(args.calls))), flush=True)


if __name__ == "__main__":
    main()
