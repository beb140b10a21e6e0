"""The registry of games by id. Built-in games are imported on first use."""

from __future__ import annotations

import importlib
from typing import Any

from .api import Game

DEFAULT = "crisp"

# The built-in games' packages, in the order GET /api/games lists them; each
# package exposes its `Game` as `GAME`. The server hosts every registered game
# (crisp/server/wire/rules.py; docs/architecture.md "The seam").
BUILTIN: tuple[str, ...] = (DEFAULT, "cribbage", "crapette")

_games: dict[str, Game[Any, Any]] = {}


class UnknownGame(KeyError):
    """No game is registered under this id (protocol: 422 `unknown_game`)."""


def _load_builtins(only: str | None = None) -> None:
    """Import the built-in games not registered yet (`only`: that one alone, if it is
    one): a process imports only the games it asks for."""
    for game_id in BUILTIN if only is None else [g for g in BUILTIN if g == only]:
        if game_id not in _games:
            module = importlib.import_module(f"crisp.games.{game_id}")
            register(module.GAME)


def register(game: Game[Any, Any]) -> None:
    """Host `game` under `game.id` (replacing one of the same id)."""
    _games[game.id] = game


def unregister(game_id: str) -> None:
    """Host no game under `game_id` any more (a test's own game, after the test)."""
    _games.pop(game_id, None)


def get(game_id: str) -> Game[Any, Any]:
    """The game registered as `game_id` (a built-in is imported on first use);
    raises UnknownGame."""
    if game_id not in _games:
        _load_builtins(game_id)
    try:
        return _games[game_id]
    except KeyError:
        raise UnknownGame(game_id) from None


def all_games() -> list[Game[Any, Any]]:
    """Every registered game: the built-ins in order, then the others."""
    _load_builtins()
    builtins = [_games[g] for g in BUILTIN if g in _games]
    return [*builtins, *(game for game_id, game in _games.items() if game_id not in BUILTIN)]
