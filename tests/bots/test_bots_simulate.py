"""`crisp simulate --bots`: win rates and round scores per level, refusals counted."""

from __future__ import annotations

import pytest

from crisp.cli import main
from crisp.simulate import parse_levels, simulate_bots


def test_simulate_bots_prints_every_level(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--bots", "normal,easy", "--games", "6", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "6 games, bots normal,easy, options default" in out
    assert "turns until someone calls: median" in out
    for level in ("normal", "easy"):
        assert any(line.startswith(level) for line in out.splitlines())
    assert "refused moves: 0" in out


def test_simulate_bots_with_discard_draws(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--bots", "normal,normal,random", "--games", "3", "--seed", "2",
                 "--discard-draw"]) == 0
    assert "options default + discard draws" in capsys.readouterr().out


def test_simulate_bots_refuses_unknown_levels(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--bots", "normal,expert", "--games", "1"]) == 2
    assert "--bots takes 2 to 8" in capsys.readouterr().err
    with pytest.raises(ValueError):
        parse_levels("normal")
    with pytest.raises(ValueError):
        parse_levels(",".join(["easy"] * 9))
    assert parse_levels("mixed") is None


def test_simulate_bots_is_reproducible_with_a_seed() -> None:
    a = simulate_bots(["normal", "easy", "easy"], 4, seed=5)
    b = simulate_bots(["normal", "easy", "easy"], 4, seed=5)
    assert a["levels"] == b["levels"] and a["rounds"] == b["rounds"]
    assert a["levels"]["easy"]["seats"] == 8 and a["levels"]["normal"]["seats"] == 4
