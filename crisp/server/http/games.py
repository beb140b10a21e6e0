"""The games this server hosts (protocol.md "v2 additions"): `GET /api/games`, and
the game a `POST /api/rooms` names.

A game is listed with its seats, whether partners play as teams, every option
with its default and its choices, and its computer players' levels; display
names are the client's (i18n). The registry (crisp.games.registry) holds the
games; the server hosts every one of them (wire/rules.py: Crisp's rooms on its
engine, every other game's on the generic table; docs/architecture.md "The seam").
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from crisp.games import registry
from crisp.games.api import Game
from crisp.games.registry import DEFAULT, UnknownGame
from crisp.server.wire.failures import ApiError
from crisp.server.wire.vocabulary import ServerErrorCode

router = APIRouter()


def describe(game: Game[Any, Any]) -> dict[str, Any]:
    """One game as `GET /api/games` lists it."""
    return {
        "id": game.id,
        "seats": {"min": game.seats.min, "max": game.seats.max},
        "teams": game.seats.teams,
        "options": {name: {"default": option.default, "choices": list(option.choices)}
                    for name, option in game.options.items()},
        "bot_levels": list(game.bot_levels),
    }


def hosted_games() -> list[Game[Any, Any]]:
    """The games this server hosts: every registered game (the built-ins in order,
    then any other registered, such as a test's own game)."""
    return registry.all_games()


def game_named(body: dict[str, Any]) -> str:
    """The game a room-creating body names (`"game"`, default Crisp); 422
    `unknown_game` for anything this server does not host."""
    game_id = body.get("game", DEFAULT)
    if not isinstance(game_id, str):
        raise ApiError(422, ServerErrorCode.UNKNOWN_GAME,
                       f"no game {game_id!r} here: GET /api/games lists the games")
    try:
        return registry.get(game_id).id
    except UnknownGame:
        raise ApiError(422, ServerErrorCode.UNKNOWN_GAME,
                       f"no game {game_id!r} here: GET /api/games lists the games") from None


@router.get("/api/games")
async def list_games() -> dict[str, Any]:
    """Every game this server hosts (protocol.md "v2 additions")."""
    return {"games": [describe(game) for game in hosted_games()]}
