"""`crisp simulate --bots`: win rates and round scores per level, refusals counted."""

from __future__ import annotations

import pytest

from crisp.cli import main
from crisp.simulate import mean_ci, parse_levels, simulate_bots, wilson


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


def test_simulate_hard_against_normal_prints_win_shares_with_an_interval(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--bots", "hard,normal", "--games", "4", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "win share [95% CI]" in out
    rows = [line.split() for line in out.splitlines() if line.startswith(("hard ", "normal "))]
    assert {r[0] for r in rows} == {"hard", "normal"}
    shares = [float(r[2].rstrip("%")) for r in rows]
    assert abs(sum(shares) - 100.0) < 0.2  # a tie splits the win (R12.6)
    assert "crisp callers ending lowest (R12.2):" in out
    assert "refused moves: 0" in out


def test_simulate_figures_have_intervals_and_the_callers_record() -> None:
    figures = simulate_bots(["hard", "normal", "normal"], 6, seed=4)
    for f in figures["levels"].values():
        low, high = f["win_share_ci"]
        assert 0.0 <= low <= f["win_share"] <= high <= 1.0
    calls = sum(f["calls"] for f in figures["levels"].values())
    assert figures["calls"] == calls == figures["rounds"]  # a round ends by a call (R11)
    low, high = figures["calls_lowest_ci"]
    assert low <= figures["calls_lowest"] <= high


def test_wilson_interval() -> None:
    assert wilson(0, 0) == (0.0, 1.0)
    low, high = wilson(60, 100)
    assert 0.50 < low < 0.51 and 0.69 < high < 0.70
    assert mean_ci([1.0, 0.0] * 50)[1:] == pytest.approx((0.4015, 0.5985), abs=1e-3)
