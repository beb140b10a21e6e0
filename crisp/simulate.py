"""`crisp simulate`: random legal games through the engine, with throughput figures.

A benchmark, not a test: it prints games/s, engine actions/s (time spent inside
`apply` and `advance` only) and the distribution of rounds per game.
"""

from __future__ import annotations

import random
import secrets
import time
from collections import Counter
from typing import Any

from .engine import State, advance, apply
from .engine.events import Event
from .engine.random_play import play_random_game, random_options


def simulate(players: int, games: int, seed: int | None = None) -> dict[str, Any]:
    """Play `games` random games of `players` seats; return the figures."""
    seed = secrets.randbits(32) if seed is None else seed
    rng = random.Random(seed)
    engine_time = 0.0

    def timed_apply(*args: Any) -> tuple[State, list[Event]]:
        nonlocal engine_time
        t = time.perf_counter()
        out = apply(*args)
        engine_time += time.perf_counter() - t
        return out

    def timed_advance(state: State, now: int) -> tuple[State, list[Event]]:
        nonlocal engine_time
        t = time.perf_counter()
        out = advance(state, now)
        engine_time += time.perf_counter() - t
        return out

    rounds: Counter[int] = Counter()
    calls = 0
    start = time.perf_counter()
    for _ in range(games):
        record = play_random_game(players, rng, options=random_options(rng),
                                  apply_fn=timed_apply, advance_fn=timed_advance)
        calls += record.actions + record.advances
        rounds[record.rounds] += 1
    wall = time.perf_counter() - start
    return {"seed": seed, "players": players, "games": games, "wall_s": wall,
            "games_per_s": games / wall, "engine_calls": calls,
            "engine_actions_per_s": calls / engine_time if engine_time else 0.0,
            "actions_per_s_with_driver": calls / wall, "rounds": dict(sorted(rounds.items()))}


def report(figures: dict[str, Any]) -> str:
    """The figures as the lines `crisp simulate` prints."""
    lines = [
        f"seed {figures['seed']}: {figures['games']} games of {figures['players']} players "
        f"in {figures['wall_s']:.2f} s",
        f"games/s: {figures['games_per_s']:.1f}",
        f"actions/s (engine apply+advance only): {figures['engine_actions_per_s']:.0f}",
        f"actions/s (including the random players): {figures['actions_per_s_with_driver']:.0f}",
        "rounds per game:",
    ]
    total = figures["games"]
    for n, count in figures["rounds"].items():
        lines.append(f"  {n:3d} {count:6d}  {'#' * max(1, round(40 * count / total))}")
    return "\n".join(lines)
