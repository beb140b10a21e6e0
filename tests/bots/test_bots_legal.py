"""Bots only ever send legal moves, and games with bots always end (R17.1).

Bot-only games through the engine, 2-8 seats of mixed levels, every option
combination, some slow seats that run out of time (R14.2): the referee lets
any refusal propagate, so a finished game is a game with zero refusals. The
default suite plays GAMES of them; `crisp simulate --bots mixed --options all
--games 10000` plays the full 10,000 (docs/benchmarks.md).
"""

from __future__ import annotations

import itertools
import random

import pytest

from crisp.bots import LEVELS
from crisp.bots.selfplay import ALL_OPTIONS, play_game
from crisp.engine import Options
from crisp.simulate import simulate_bots

PLAYERS = range(2, 9)
TIME_SCALES = (1.0, 0.05)
GAMES = len(PLAYERS) * len(ALL_OPTIONS)  # 168: every player count with every option set


def _tables() -> list[tuple[int, Options, int]]:
    return [(n, options, i) for i, (n, options) in
            enumerate(itertools.product(PLAYERS, ALL_OPTIONS))]


@pytest.mark.parametrize("players", PLAYERS)
def test_r17_1_bots_send_only_legal_moves_with_every_option(players: int) -> None:
    for n, options, i in _tables():
        if n != players:
            continue
        rng = random.Random(9000 + i)
        levels = [rng.choice(LEVELS) for _ in range(n)]
        game = play_game(levels, rng, options=options, stall_chance=0.05,
                         time_scale=TIME_SCALES[i % 2], max_steps=100_000)
        final = game.final
        assert final.status == "game_over", levels
        assert final.winners and max(p.total for p in final.players) >= options.limit
        assert all(r.caller is not None for r in game.rounds)  # R11: a round ends by a call
        assert game.actions > 0


@pytest.mark.parametrize("level", ["easy", "normal"])
def test_a_table_of_one_level_always_ends_its_rounds(level: str) -> None:
    for seed in range(6):
        game = play_game([level] * (2 + seed), random.Random(seed), max_steps=100_000)
        assert game.final.status == "game_over"
        assert all(r.turns_to_call is not None for r in game.rounds)


def test_simulate_counts_zero_refusals_over_mixed_tables() -> None:
    figures = simulate_bots(None, 40, seed=3, option_set="all")
    assert figures["refusals"] == 0 and figures["unfinished"] == []
    assert set(figures["levels"]) == set(LEVELS)
