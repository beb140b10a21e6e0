"""The contract suite's games: every registered game, and the test-only game
(highcard.py), registered for these tests only."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from crisp.games import registry
from crisp.games.api import Game
from tests.games.contract import highcard


def contract_games() -> list[Game[Any, Any]]:
    """Every game the suite runs over: the registry's, then the test-only game."""
    games = [g for g in registry.all_games() if g.id != highcard.GAME_ID]
    return [*games, highcard.GAME]


@pytest.fixture
def hosted_highcard() -> Iterator[Game[Any, Any]]:
    """The test-only game, registered while the test runs."""
    registry.register(highcard.GAME)
    try:
        yield highcard.GAME
    finally:
        registry.unregister(highcard.GAME_ID)
