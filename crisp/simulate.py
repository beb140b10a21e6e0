"""`crisp simulate`: bot-only games through the engine.

Two benchmarks, not tests:
- `simulate(players, games)`: every seat plays the `random` policy, with random
  options; prints games/s, engine actions/s (time spent inside `apply` and
  `advance` only) and the distribution of rounds per game.
- `simulate_bots(levels, games)`: seats at the given levels ("hard,normal", ...)
  or `mixed` (2-8 seats of random levels, a few slow seats that time out);
  prints per level the share of games won (a tie splits the win, R12.6) with a
  95% confidence interval, win rates and mean round scores, how often a crisp
  caller ends lowest (R12.2), how many turns a round lasts before someone calls,
  and the moves the engine refused (always 0: a refusal is a bug, and the game
  that met it is reported with its seed).
"""

from __future__ import annotations

import math
import random
import secrets
import statistics
import time
from collections import Counter
from typing import Any

from .bots import LEVELS
from .bots.selfplay import ALL_OPTIONS, GameResult, play_game, random_options
from .engine import IllegalAction, Options, State, advance, apply
from .engine.events import Event

OPTION_SETS = ("default", "random", "all")
Z95 = 1.959964  # the normal quantile of a two-sided 95% interval
STALL_CHANCE = 0.03  # how often a seat is too slow for its draw timer (R14.2)


def simulate(players: int, games: int, seed: int | None = None) -> dict[str, Any]:
    """Play `games` random-policy games of `players` seats; return the figures."""
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
        record = play_game(["random"] * players, rng, options=random_options(rng),
                           stall_chance=STALL_CHANCE, apply_fn=timed_apply,
                           advance_fn=timed_advance)
        calls += record.actions + record.advances
        rounds[record.final.round] += 1
    wall = time.perf_counter() - start
    return {"seed": seed, "players": players, "games": games, "wall_s": wall,
            "games_per_s": games / wall, "engine_calls": calls,
            "engine_actions_per_s": calls / engine_time if engine_time else 0.0,
            "actions_per_s_with_driver": calls / wall, "rounds": dict(sorted(rounds.items()))}


def report(figures: dict[str, Any]) -> str:
    """The figures of `simulate` as the lines `crisp simulate` prints."""
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


def parse_levels(text: str) -> list[str] | None:
    """`normal,easy,...` -> the seats' levels; `mixed` -> None. ValueError otherwise."""
    if text == "mixed":
        return None
    levels = [part.strip() for part in text.split(",")]
    if not 2 <= len(levels) <= 8 or any(level not in LEVELS for level in levels):
        raise ValueError(f"--bots takes 2 to 8 of {', '.join(LEVELS)} (or 'mixed')")
    return levels


class _Tally:
    """Per-level results over many games."""

    def __init__(self) -> None:
        self.seats: Counter[str] = Counter()
        self.games: Counter[str] = Counter()  # games with a seat at this level
        self.share: dict[str, list[float]] = {}  # per game: the level's share of the win
        self.wins: Counter[str] = Counter()  # among the winners (R12.6: ties share)
        self.outright: Counter[str] = Counter()  # the only winner
        self.scores: dict[str, list[int]] = {}
        self.calls: Counter[str] = Counter()
        self.good_calls: Counter[str] = Counter()  # the caller scored total - 5 (R12.2)
        self.turns_to_call: list[int] = []
        self.rounds = 0

    def add(self, game: GameResult) -> None:
        winners = game.final.winners
        seats: Counter[str] = Counter(game.levels.values())
        won: Counter[str] = Counter()
        for pid, level in game.levels.items():
            self.seats[level] += 1
            self.wins[level] += pid in winners
            self.outright[level] += winners == [pid]
            if pid in winners:
                won[level] += 1
        for level, count in seats.items():  # R12.6: a tie splits the win
            self.games[level] += 1
            self.share.setdefault(level, []).append(won[level] / len(winners) / count)
        for r in game.rounds:
            if not r.scores:
                continue
            self.rounds += 1
            for pid, score in r.scores.items():
                self.scores.setdefault(game.levels[pid], []).append(score)
            if r.caller is not None:
                level = game.levels[r.caller]
                self.calls[level] += 1
                self.good_calls[level] += r.scores[r.caller] < r.sums[r.caller]
            if r.turns_to_call is not None:
                self.turns_to_call.append(r.turns_to_call)


def simulate_bots(levels: list[str] | None, games: int, seed: int | None = None,
                  option_set: str = "default", discard_draw: bool = False) -> dict[str, Any]:
    """Play `games` bot-only games; `levels` None means mixed tables. Return the figures."""
    seed = secrets.randbits(32) if seed is None else seed
    rng = random.Random(seed)
    tally = _Tally()
    refused: list[dict[str, Any]] = []
    unfinished: list[int] = []
    start = time.perf_counter()
    for g in range(games):
        game_seed = rng.getrandbits(32)
        game_rng = random.Random(game_seed)
        if levels is None:
            seats = [game_rng.choice(LEVELS) for _ in range(2 + g % 7)]
        else:
            shift = g % len(levels)  # every level sits in every seat as often
            seats = levels[shift:] + levels[:shift]
        if option_set == "all":
            options = ALL_OPTIONS[g % len(ALL_OPTIONS)]
        elif option_set == "random":
            options = random_options(game_rng)
        else:
            options = Options(discard_draw=discard_draw)
        try:
            game = play_game(seats, game_rng, options=options,
                             stall_chance=STALL_CHANCE if levels is None else 0.0)
        except IllegalAction as err:
            refused.append({"game": g, "seed": game_seed, "error": str(err)})
            continue
        except RuntimeError:
            unfinished.append(game_seed)
            continue
        tally.add(game)
    wall = time.perf_counter() - start
    per_level = {
        level: {
            "seats": tally.seats[level],
            "win_share": (share := mean_ci(tally.share[level]))[0],
            "win_share_ci": share[1:],
            "win_rate": tally.wins[level] / tally.seats[level],
            "outright_win_rate": tally.outright[level] / tally.seats[level],
            "mean_round_score": statistics.fmean(tally.scores.get(level) or [0]),
            "calls": tally.calls[level],
            "calls_lowest": tally.good_calls[level] / tally.calls[level]
            if tally.calls[level] else None,
        }
        for level in LEVELS if tally.seats[level]
    }
    calls = sum(tally.calls.values())
    lowest = sum(tally.good_calls.values())
    turns = tally.turns_to_call
    return {
        "seed": seed, "games": games, "bots": "mixed" if levels is None else ",".join(levels),
        "options": option_set + (" + discard draws" if discard_draw and option_set == "default"
                                 else ""),
        "wall_s": wall, "games_per_s": games / wall if wall else 0.0,
        "rounds": tally.rounds, "levels": per_level,
        "calls": calls, "calls_lowest": lowest / calls if calls else None,
        "calls_lowest_ci": wilson(lowest, calls),
        "median_turns_to_call": statistics.median(turns) if turns else None,
        "mean_turns_to_call": statistics.fmean(turns) if turns else None,
        "p90_turns_to_call": statistics.quantiles(turns, n=10)[-1] if len(turns) > 1 else None,
        "refusals": len(refused), "refused": refused[:10], "unfinished": unfinished[:10],
    }


def report_bots(figures: dict[str, Any]) -> str:
    """The figures of `simulate_bots` as the lines `crisp simulate --bots` prints."""
    lines = [
        f"seed {figures['seed']}: {figures['games']} games, bots {figures['bots']}, "
        f"options {figures['options']}, in {figures['wall_s']:.2f} s "
        f"({figures['games_per_s']:.1f} games/s)",
        f"rounds: {figures['rounds']}; turns until someone calls: median "
        f"{figures['median_turns_to_call']}, mean {_num(figures['mean_turns_to_call'])}, "
        f"90th percentile {_num(figures['p90_turns_to_call'])}",
        "level    seats  win share [95% CI]        win rate  outright  mean round score  "
        "crisp calls  lowest (R12.2)",
    ]
    for level, f in figures["levels"].items():
        low, high = f["win_share_ci"]
        lines.append(f"{level:8s} {f['seats']:5d}  {f['win_share']:6.1%} "
                     f"[{low:5.1%}, {high:5.1%}]  {f['win_rate']:7.1%}  "
                     f"{f['outright_win_rate']:7.1%}  {f['mean_round_score']:16.2f}  "
                     f"{f['calls']:11d}  {_pct(f['calls_lowest']):>14s}")
    if figures["calls"]:
        low, high = figures["calls_lowest_ci"]
        lines.append(f"crisp callers ending lowest (R12.2): {figures['calls_lowest']:.1%} "
                     f"[{low:.1%}, {high:.1%}] of {figures['calls']} calls")
    lines.append("win share: the games a level won, a tie split among its winners (R12.6), "
                 "per seat; the interval is over games")
    lines.append(f"refused moves: {figures['refusals']}")
    for r in figures["refused"]:
        lines.append(f"  game {r['game']} (seed {r['seed']}): {r['error']}")
    if figures["unfinished"]:
        lines.append(f"games that did not end (seeds): {figures['unfinished']}")
    return "\n".join(lines)


def mean_ci(values: list[float]) -> tuple[float, float, float]:
    """The mean of per-game values and its 95% confidence interval (normal approximation;
    games are independent, the seats of one level at one table are not)."""
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, 0.0, 1.0
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    half = Z95 * sd / math.sqrt(n)
    return mean, max(0.0, mean - half), min(1.0, mean + half)


def wilson(hits: int, n: int) -> tuple[float, float]:
    """The Wilson 95% interval of a proportion `hits`/`n`."""
    if n == 0:
        return 0.0, 1.0
    p = hits / n
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def _num(x: float | None) -> str:
    return "-" if x is None else f"{x:.1f}"


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{x:.1%}"
