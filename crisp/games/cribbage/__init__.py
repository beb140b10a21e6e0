"""Cribbage, the game `cribbage` (cribbage-rules.md C1-C10; protocol.md "v2
additions" / "Cribbage"): a pure game package behind the table's `Game`
interface. `GAME` is what the registry hosts."""

from __future__ import annotations

from ..api import Game
from .actions import Action
from .game import Cribbage, rematch_dealer
from .state import State

GAME: Game[State, Action] = Cribbage()

__all__ = ["GAME", "Cribbage", "State", "rematch_dealer"]
