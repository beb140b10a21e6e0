"""When a computer player acts: a short human-like pause, never instantly (R17.1).

`choose`/`decide` never look at the clock; the caller (the server's scheduler,
a simulator) asks `act_at` when to call them. Every pause is scaled by the
table's time scale (`CRISP_TIME_SCALE` under test hooks), exactly as the
engine scales the R10.4 durations, so the bounds below hold at any scale.
"""

from __future__ import annotations

import random
from typing import Any

from crisp.engine import PLAYING, ActionType

THINK_MS = (1000, 2000)  # the pause before an ordinary move
# A crisp call comes well inside the caller's 3 s window (R10.4), and before the
# next player may even start (2 s), so a bot's call never makes a turn final late.
CRISP_THINK_MS = (300, 1200)
# What a computer player acts on; `legal` also lists the room actions (kick, add_bot,
# leave: protocol v1.1), which a bot never takes.
ACTS_ON = frozenset((ActionType.READY, ActionType.DRAW, ActionType.SWAP, ActionType.DISCARD,
                     ActionType.JACK, ActionType.QUEEN, ActionType.KING, ActionType.CRISP))


def think_ms(view: dict[str, Any], rng: random.Random, time_scale: float = 1.0) -> int:
    """How long the seat pauses before acting on this view, in ms."""
    low, high = CRISP_THINK_MS if ActionType.CRISP in (view.get("legal") or ()) else THINK_MS
    return max(0, round(rng.uniform(low, high) * time_scale))


def act_at(view: dict[str, Any], now: int, rng: random.Random,
           time_scale: float = 1.0) -> int | None:
    """When to ask the policy for this seat's next move, or None if it has nothing to do.

    A seat whose turn may not start yet (R10.4) acts a pause after the view
    arrived, but not before `turn.may_start_at`.
    """
    at = now + think_ms(view, rng, time_scale)
    if not ACTS_ON.isdisjoint(view.get("legal") or ()):
        return at
    turn = view.get("turn")
    if (view.get("status") == PLAYING and turn is not None and turn.get("player") ==
            view.get("you") and view.get("holding") is None and turn["may_start_at"] > now):
        return max(at, int(turn["may_start_at"]))
    return None
