"""The contract suite of every game (tests/games/contract), run over Cribbage
before the registry hosts it (registry.BUILTIN is the table's to change)."""

from __future__ import annotations

import pytest

from crisp.games.cribbage import GAME
from tests.games.contract import test_contract as contract

BY_GAME = ["test_the_same_seed_plays_the_same_game", "test_the_game_describes_itself",
           "test_options_are_the_games_own", "test_a_refused_message_changes_nothing"]


@pytest.mark.parametrize("name", BY_GAME)
def test_the_contract(name: str) -> None:
    getattr(contract, name)(GAME)


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_the_contract_every_seat_count(seats: int) -> None:
    contract.test_every_seat_count_plays_to_the_end_audited(GAME, seats)


@pytest.mark.parametrize("level", ["easy", "normal", "hard"])
def test_the_contract_every_level(level: str) -> None:
    contract.test_every_level_plays_to_the_end(GAME, level)
