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
