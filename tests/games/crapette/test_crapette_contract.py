"""The contract suite (tests/games/contract) runs over Crapette there, now that the
registry lists it: this module ran it a second time and only checks that it is
among that suite's games (docs/testing.md, "What was done: the games' and the
engine's tests")."""

from __future__ import annotations

from crisp.games.crapette import GAME
from tests.games.contract.conftest import contract_games


def test_the_contract_suite_runs_over_crapette() -> None:
    assert GAME in contract_games()
