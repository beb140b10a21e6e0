"""Measurements of the computer players (docs/bots.md, "Cribbage"), not tests:

- `timing`: CPU time per decision (`decide`), by level, at p50 / p99 / max, over
  the decisions of games of 2, 3 and 4 players;
- `selfplay A B`: 2-player games to the target between two levels on duplicate
  deals (each deal sequence played twice with the seats swapped), A's win rate
  with its 95 % interval, the first dealer's win rate, and the mean show points
  of each level's kept hands and cribs.

    python -m crisp.games.cribbage.measure timing --games 30
    python -m crisp.games.cribbage.measure selfplay normal easy --pairs 1000
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from math import sqrt
from typing import Any

from ..api import Ctx, Setup
from .bots.hard import SHORTLIST, HardBot
from .cards import DECK
from .game import Cribbage
from .state import State
from .vocabulary import CRIB, BotLevel

GAME = Cribbage()


class _HardLay(HardBot):
    """An experiment: hard's play with normal's give (exact, unweighted, no pegging)."""

    weighted = False
    shortlist = 1


class _HardPegGive(HardBot):
    """An experiment: hard, with the pegging of its 5 best choices in the give."""

    shortlist = SHORTLIST


class _Hard40(HardBot):
    """An experiment: hard with 40 deals per lay."""

    samples = 40


EXPERIMENTS: dict[str, Any] = {"hardlay": _HardLay(), "hardpeg": _HardPegGive(),
                               "hard40": _Hard40()}


def bot_of(level: str) -> Any:
    return EXPERIMENTS.get(level) or GAME.bot(level)
DECKS_PER_GAME = 40  # more hands than any game lasts


@dataclass
class Tally:
    games: int = 0
    wins: dict[str, int] = field(default_factory=dict)
    first_dealer_wins: int = 0
    hand_points: dict[str, list[int]] = field(default_factory=dict)
    crib_points: dict[str, list[int]] = field(default_factory=dict)
    pair_scores: list[float] = field(default_factory=list)


def play_game(levels: Sequence[str], decks: Sequence[Sequence[str]], dealer: int,
              rng: random.Random, tally: Tally | None = None,
              times: dict[str, list[int]] | None = None) -> State:
    """One game of computer players (seat i plays `levels[i]`); returns the end."""
    players = [f"p{i + 1}" for i in range(len(levels))]
    level_of = dict(zip(players, levels, strict=True))
    now = 0
    state, _ = GAME.start(players, {}, Setup(decks=tuple(tuple(d) for d in decks),
                                             dealer=dealer), Ctx(now, rng))
    counted, hand_no = 0, state.hand_no
    while GAME.outcome(state) is None:
        moved = False
        for p in GAME.to_act(state, now):
            bot = bot_of(level_of[p])
            view = GAME.view(state, p, now)
            t0 = time.process_time_ns()
            msg = bot.decide(bot.fresh(p), view, now, rng)
            if times is not None:
                times.setdefault(level_of[p], []).append(time.process_time_ns() - t0)
            if msg is not None:
                state, _ = GAME.apply(state, p, GAME.parse(msg), Ctx(now, rng))
                moved = True
                break
        if not moved:
            due = GAME.due(state)
            now = now + 1000 if due is None else max(now, due)
            state, _ = GAME.advance(state, Ctx(now, rng))
        if state.hand_no != hand_no:
            hand_no, counted = state.hand_no, 0
        if tally is not None:
            for entry in state.show[counted:]:
                if entry.points is None:
                    break
                counted += 1
                lv = level_of[players[state.dealer] if entry.whose == CRIB else entry.whose]
                into = tally.crib_points if entry.whose == CRIB else tally.hand_points
                into.setdefault(lv, []).append(entry.points)
    return state


def timing(games: int, seed: int) -> dict[str, dict[str, float]]:
    times: dict[str, list[int]] = {}
    rng = random.Random(seed)
    levels = tuple(BotLevel)
    for g in range(games):
        n = 2 + g % 3
        seat_levels = [levels[(g + i) % 3] for i in range(n)]
        decks = [rng.sample(DECK, 52) for _ in range(DECKS_PER_GAME)]
        play_game(seat_levels, decks, 0, rng, times=times)
    out = {}
    for lv, ts in sorted(times.items()):
        ts.sort()
        out[lv] = {"decisions": len(ts), "p50_ms": ts[len(ts) // 2] / 1e6,
                   "p99_ms": ts[min(len(ts) - 1, int(len(ts) * 0.99))] / 1e6,
                   "max_ms": ts[-1] / 1e6}
    return out


def selfplay(a: str, b: str, pairs: int, seed: int, out: str | None = None,
             every: int = 25) -> dict[str, Any]:
    """`pairs` duplicate pairs: each deal sequence with A in seat 0, then in seat 1;
    seat 0 always deals first. With `out`, the summary so far is written there
    every `every` pairs (a long run can be read before it ends)."""
    tally = Tally()
    for k in range(pairs):
        if out is not None and k and k % every == 0:
            with open(out, "w") as f:
                json.dump(summary(a, b, k, tally), f, indent=1)
        rng = random.Random(seed * 1_000_003 + k)
        decks = [rng.sample(DECK, 52) for _ in range(DECKS_PER_GAME)]
        pair = 0.0
        for seats in ((a, b), (b, a)):
            end = play_game(seats, decks, 0, random.Random(k), tally)
            winner = 0 if end.scores[0] >= end.options.target else 1
            tally.games += 1
            tally.first_dealer_wins += winner == 0
            won_by = seats[winner]
            tally.wins[won_by] = tally.wins.get(won_by, 0) + 1
            pair += 0.5 if (seats[winner] == a) and a != b else 0.0
            if a == b:
                pair += 0.5 if winner == 0 else 0.0
        tally.pair_scores.append(pair)
    result = summary(a, b, pairs, tally)
    if out is not None:
        with open(out, "w") as f:
            json.dump(result, f, indent=1)
    return result


def summary(a: str, b: str, pairs: int, tally: Tally) -> dict[str, Any]:
    """A's win rate over the pairs (a pair scores 0, 0.5 or 1) with its 95 %
    interval, the first dealer's win rate with its interval, the mean points."""
    m = sum(tally.pair_scores) / pairs
    var = sum((x - m) ** 2 for x in tally.pair_scores) / max(1, pairs - 1)
    half = 1.96 * sqrt(var / pairs)
    fd = tally.first_dealer_wins / tally.games
    fd_half = 1.96 * sqrt(fd * (1 - fd) / tally.games)
    label = "first_dealer" if a == b else a
    return {
        "a": a, "b": b, "games": tally.games, "pairs": pairs,
        "a_win_rate" if a != b else "first_dealer_win_rate_paired": round(m, 4),
        "interval_95": [round(m - half, 4), round(m + half, 4)],
        "first_dealer_win_rate": round(fd, 4),
        "first_dealer_interval_95": [round(fd - fd_half, 4), round(fd + fd_half, 4)],
        "mean_hand": {lv: round(sum(v) / len(v), 3) for lv, v in tally.hand_points.items()},
        "mean_crib": {lv: round(sum(v) / len(v), 3) for lv, v in tally.crib_points.items()},
        "label": label,
    }


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m crisp.games.cribbage.measure")
    sub = ap.add_subparsers(dest="what", required=True)
    t = sub.add_parser("timing")
    t.add_argument("--games", type=int, default=30)
    t.add_argument("--seed", type=int, default=1)
    s = sub.add_parser("selfplay")
    s.add_argument("a")
    s.add_argument("b")
    s.add_argument("--pairs", type=int, default=1000)
    s.add_argument("--seed", type=int, default=1)
    s.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    if args.what == "timing":
        print(json.dumps(timing(args.games, args.seed), indent=1))
    else:
        print(json.dumps(selfplay(args.a, args.b, args.pairs, args.seed, args.out), indent=1))


if __name__ == "__main__":
    main()
