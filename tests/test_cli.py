"""The `crisp` command line: simulate prints its figures; the parser knows every command."""

from __future__ import annotations

import subprocess
import sys

from crisp.cli import main
from crisp.simulate import simulate


def test_simulate_plays_whole_games_and_reports(capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["simulate", "--players", "3", "--games", "5", "--seed", "7"]) == 0
    out = capsys.readouterr().out
    assert "5 games of 3 players" in out
    assert "games/s:" in out
    assert "actions/s (engine apply+advance only):" in out
    assert "rounds per game:" in out


def test_simulate_is_reproducible_with_a_seed() -> None:
    a = simulate(4, 4, seed=11)
    b = simulate(4, 4, seed=11)
    assert a["rounds"] == b["rounds"]
    assert a["engine_calls"] == b["engine_calls"]
    assert sum(a["rounds"].values()) == 4


def test_python_dash_m_crisp_help() -> None:
    out = subprocess.run([sys.executable, "-m", "crisp", "--help"], capture_output=True,
                         text=True, check=True).stdout
    for command in ("serve", "simulate", "bench"):
        assert command in out


def test_crisp_bench_takes_its_own_options() -> None:
    out = subprocess.run([sys.executable, "-m", "crisp", "bench", "--help"], capture_output=True,
                         text=True, check=True).stdout
    for option in ("--rooms", "--store", "--url", "--duration"):
        assert option in out


def test_simulate_any_registered_game(capsys) -> None:  # type: ignore[no-untyped-def]
    """`--game ID`: the registry's game, its seats and levels asked of the registry."""
    from crisp.games import registry
    from tests.games.contract import highcard

    registry.register(highcard.GAME)
    try:
        assert main(["simulate", "--game", "highcard", "--games", "6", "--seed", "3"]) == 0
        out = capsys.readouterr().out
        assert "highcard: 6 games of 4 seats" in out and "0 unfinished" in out  # min(4, max)
        assert main(["simulate", "--game", "highcard", "--bots", "easy,easy,easy",
                     "--games", "2"]) == 0
        assert main(["simulate", "--game", "highcard", "--players", "5"]) == 2  # 2-4 seats
        assert main(["simulate", "--game", "highcard", "--bots", "hard,easy"]) == 2
    finally:
        registry.unregister(highcard.GAME_ID)
    assert main(["simulate", "--game", "no_such_game"]) == 2
    assert main(["simulate", "--players", "9"]) == 2  # Crisp takes 2 to 8
