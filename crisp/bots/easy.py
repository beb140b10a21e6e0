"""The `easy` level: legal, sensible, forgetful.

It remembers only its own cards (its looks and what it swapped in), counts an
unknown card as an average one, never tracks the other hands or the pile,
never plays the Queen, and calls crisp on a fixed threshold.
"""

from __future__ import annotations

import random
from typing import Any

from crisp.engine import ActionType, Source

from . import moves
from .knowledge import value
from .memory import Memory
from .moves import Message

UNKNOWN = 6.5  # an unknown card, without counting what has been seen
CALL_AT = 11.0  # calls when its own estimate is at most this
LAST_CALL = 10  # ... or after this many of its turns


def _own(memory: Memory, view: dict[str, Any]) -> list[float]:
    hand = memory.hand(memory.me) if view.get("round") == memory.round else [None] * 3
    return [UNKNOWN if c is None else float(value(c)) for c in hand]


def _slot_for(own: list[float], card: float, known: list[bool]) -> int | None:
    """The highest card it knows when `card` is clearly lower, or an unknown one for a low card."""
    known_slots = [s for s in range(3) if known[s]]
    if known_slots:
        top = max(known_slots, key=lambda s: own[s])
        if own[top] - card >= 2:
            return top
    unknown = [s for s in range(3) if not known[s]]
    if card <= 3 and unknown:
        return unknown[0]
    return None


def play(view: dict[str, Any], memory: Memory, now: int, rng: random.Random) -> Message | None:
    """The `easy` policy for a view in play."""
    legal = view["legal"]
    own = _own(memory, view)
    known = [c is not None for c in memory.hand(memory.me)] if view.get("round") == memory.round \
        else [False, False, False]
    if ActionType.CRISP in legal and (sum(own) <= CALL_AT or memory.my_turns >= LAST_CALL):
        return moves.msg(ActionType.CRISP)
    if ActionType.DRAW in legal:
        top = view.get("discard_top")
        if top is not None and moves.may_draw_from_pile(view) and value(top) <= 2 \
                and _slot_for(own, value(top), known) is not None:
            return moves.draw(Source.DISCARD)
        return moves.draw(Source.STOCK)
    held = view.get("holding")
    if ActionType.KING in legal:
        return moves.msg(ActionType.KING)
    if ActionType.JACK in legal and not known[1]:
        return moves.msg(ActionType.JACK)
    if held is None or ActionType.SWAP not in legal:
        return moves.msg(ActionType.DISCARD) if ActionType.DISCARD in legal else None
    slot = _slot_for(own, value(held), known)
    if slot is None and ActionType.DISCARD not in legal:  # R13.2: a pile card must go in
        slot = max(range(3), key=lambda s: own[s])
    return moves.msg(ActionType.DISCARD) if slot is None else moves.swap(slot)
