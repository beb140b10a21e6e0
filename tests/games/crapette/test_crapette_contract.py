"""The contract suite (tests/games/contract) run over Crapette before the registry
lists it: every check there that takes a game, with `GAME`."""

from __future__ import annotations

import pytest

from crisp.games.crapette import GAME
from tests.games.contract import test_contract as contract


def test_contract_every_seat_count_plays_to_the_end_audited() -> None:
    contract.test_every_seat_count_plays_to_the_end_audited(GAME, 2)


@pytest.mark.parametrize("level", GAME.bot_levels)
def test_contract_every_level_plays_to_the_end(level: str) -> None:
    contract.test_every_level_plays_to_the_end(GAME, level)


def test_contract_the_same_seed_plays_the_same_game() -> None:
    contract.test_the_same_seed_plays_the_same_game(GAME)


def test_contract_the_game_describes_itself() -> None:
    contract.test_the_game_describes_itself(GAME)


def test_contract_options_are_the_games_own() -> None:
    contract.test_options_are_the_games_own(GAME)


def test_contract_a_refused_message_changes_nothing() -> None:
    contract.test_a_refused_message_changes_nothing(GAME)
