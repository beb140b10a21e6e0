"""Crisp, the default game (R1-R18), registered as `crisp` (crisp.games.registry).

`GAME` is the adapter of `game.py` over the rules engine (crisp/engine) and the
computer players (crisp/bots)."""

from crisp.engine import Action, State
from crisp.games.api import Game

from .game import GAME_ID, CrispBot, CrispGame

GAME: Game[State, Action] = CrispGame()

__all__ = ["GAME", "GAME_ID", "CrispBot", "CrispGame"]
