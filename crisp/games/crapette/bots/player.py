"""Crapette's computer player, one class for the three levels (easy, normal, hard):
the `Bot` of crisp/games/api.py. It sees its seat's view and events only; its
memory (JSON) is its id, the table as last seen and the calls it means to make."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...api import JSON, Rng
from ..board import move_name
from ..vocabulary import ActionType, BotLevel, Calls
from .calling import call_message, follow
from .plans import easy, normal
from .search import plan
from .seat import board_of, mode_of, move_of

EASY_CALL_CHANCE = 0.4  # easy: each time it is asked, the chance it calls now (a delay)


class CrapetteBot:
    """A computer player of one level."""

    def __init__(self, level: BotLevel) -> None:
        self.level = level

    def fresh(self, player: str) -> JSON:
        return {"me": player, "board": None, "calls": []}

    def observe(self, memory: JSON, view: Mapping[str, JSON],
                events: Sequence[Mapping[str, JSON]]) -> JSON:
        out: dict[str, Any] = dict(memory)
        room = mode_of(view)
        eye = Calls.COMBINATION if self.level == BotLevel.HARD else Calls.OBVIOUS
        notice = 7 if self.level == BotLevel.EASY else 10  # easy misses some
        follow(out, view, events, eye, room, notice)
        return out

    def decide(self, memory: JSON, view: Mapping[str, JSON], now: int,
               rng: Rng) -> Mapping[str, JSON] | None:
        turn = view.get("turn")
        if not isinstance(turn, Mapping):
            return None
        if turn.get("player") != memory["me"]:
            if self.level == BotLevel.EASY and rng.random() >= EASY_CALL_CHANCE:
                return None
            return call_message(memory, view)
        board = board_of(view)
        raw = view.get("moves")
        moves = [move_of(m) for m in raw] if isinstance(raw, list) else []
        if board is None:
            return None
        if self.level == BotLevel.HARD:
            move = plan(board, moves, mode_of(view))
        elif self.level == BotLevel.NORMAL:
            move = normal(board, moves)
        else:
            move = easy(board, moves, rng)
        if move is None and ActionType.END not in (view.get("legal") or []):
            move = moves[0] if moves else None
        if move is None:
            return {"type": ActionType.END}
        return {"type": ActionType.MOVE, **move_name(move)}
