"""One entry point for every computer player: added bots, away seats, removed seats
(R17.1, R17.2, R17.5) and the random players of simulators and load generators.

`choose(view, memory, now, rng)` returns the protocol message the seat sends now,
or None when it has nothing to do; `decide` returns the same as an engine action.
Both read the seat's view and memory only: never the table's state.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from crisp.engine import PLAYING, Action, ActionType, BotLevel, action_from_dict

from . import easy, hard, normal
from .memory import Memory
from .moves import Message, msg, random_move

Policy = Callable[[dict[str, Any], Memory, int, random.Random], Message | None]

POLICIES: dict[str, Policy] = {
    BotLevel.EASY: easy.play,
    BotLevel.NORMAL: normal.play,
    BotLevel.HARD: hard.play,
}


def choose(view: dict[str, Any], memory: Memory, now: int,
           rng: random.Random) -> Message | None:
    """The message this seat sends now, at `memory.level`; None when there is nothing to do.

    A bot confirms the peek phase and the end of a round (R16.2, R16.5) and plays
    its turns and crisp windows from the view's `legal` list. It never takes the
    host's decisions (options, start, kick, next round, rematch).
    """
    legal = view.get("legal") or []
    if not legal:
        return None
    if memory.level == "random":
        return random_move(view, rng)
    if ActionType.READY in legal:
        return msg(ActionType.READY)
    if view.get("status") != PLAYING:
        return None
    return POLICIES[memory.level](view, memory, now, rng)


def decide(view: dict[str, Any], memory: Memory, now: int, rng: random.Random) -> Action | None:
    """`choose`, as an engine action ready for `crisp.engine.apply`."""
    message = choose(view, memory, now, rng)
    return None if message is None else action_from_dict(message)
