"""The contract suite of every game (tests/games/contract) runs over Cribbage there,
now that the registry hosts it: this module ran it a second time and only checks
that it is among that suite's games (docs/testing.md, "What was done: the games'
and the engine's tests")."""

from __future__ import annotations

from crisp.games.cribbage import GAME
from tests.games.contract.conftest import contract_games


def test_the_contract_suite_runs_over_cribbage() -> None:
    assert GAME in contract_games()
