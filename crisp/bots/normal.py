"""The `normal` level: remembers everything its seat was shown and plays on estimates.

- draws the discard pile's top when the option is on and it beats a card in hand
  by a clear margin (R13);
- swaps a drawn card in for the worst card it knows of, or for an unknown card
  when the drawn one is low (R5.1); the Jack looks at an unknown middle (R7);
- the Queen hands its highest known card to the opponent it thinks is leading,
  for a card it expects to be lower (R8);
- calls crisp when its expected total is clearly the lowest at the table (R10),
  and more readily as the round drags on.
"""

from __future__ import annotations

import random
from typing import Any

from . import moves
from .knowledge import Knowledge, value
from .memory import Memory
from .moves import Message

PILE_GAIN = 3.0  # a discard-pile card must beat the card it replaces by this much (R13)
UNKNOWN_GAIN = 1.0  # a drawn card replaces an unknown one when it is this much lower
QUEEN_GAIN = 2.0  # a Queen swap is worth it when the card handed over is this much higher
CALL_MARGIN = 6.0  # call when my total is this much under the lowest other estimate
UNKNOWN_RISK = 3.0  # ... plus this for each of my own cards I do not know
PATIENCE = 4  # after this many of my turns, the margin shrinks by one per turn
LAST_CALL = 12  # after this many of my turns, call at the next window whatever the count


def best_slot(k: Knowledge, card_value: float, unknown_gain: float,
              known_gain: float) -> int | None:
    """The position a card of `card_value` should replace, or None if none is worth it."""
    best, best_gain = None, 0.0
    for slot in range(3):
        known = k.hands[k.me][slot] is not None
        gain = k.slot_value(k.me, slot) - card_value
        if gain >= (known_gain if known else unknown_gain) and gain > best_gain:
            best, best_gain = slot, gain
    return best


def worst_slot(k: Knowledge) -> int:
    """The position with the highest expected value (an unknown one on a tie)."""
    return max(range(3), key=lambda s: (k.slot_value(k.me, s), k.hands[k.me][s] is None))


def choose_draw(view: dict[str, Any], k: Knowledge) -> Message:
    """R13: the pile's top when it is clearly good, else the stock."""
    top = view.get("discard_top")
    if top is not None and moves.may_draw_from_pile(view) and \
            best_slot(k, value(top), PILE_GAIN, PILE_GAIN) is not None:
        return moves.draw("discard")
    return moves.draw("stock")


def queen_plan(k: Knowledge) -> Message | None:
    """R8: my highest known card for the lowest card I can expect from a leading opponent."""
    mine = [(value(c), s != 1, s) for s, c in enumerate(k.hands[k.me]) if c is not None]
    if not mine or not k.others:
        return None
    high, _, slot = max(mine)
    leader_order = {p: k.total(p) for p in k.others}
    target, target_slot = min(
        ((p, s) for p in k.others for s in range(3)),
        key=lambda ps: (k.slot_value(*ps), leader_order[ps[0]], ps[1] == 1),
    )
    if high - k.slot_value(target, target_slot) < QUEEN_GAIN:
        return None
    return moves.queen(slot, target, target_slot)


def resolve(view: dict[str, Any], k: Knowledge) -> Message | None:
    """R5: what to do with the card in hand."""
    legal = view["legal"]
    held = view.get("holding")
    if "king" in legal:
        return moves.msg("king")  # R6.3: a King from the stock must be used
    if "jack" in legal:
        return moves.msg("jack" if k.hands[k.me][1] is None else "discard")
    if "queen" in legal:
        return queen_plan(k) or moves.msg("discard")
    if held is None or "swap" not in legal:
        return moves.msg("discard") if "discard" in legal else None
    if "discard" not in legal:  # R13.2: a card from the pile must go into the hand
        slot = best_slot(k, value(held), -99.0, -99.0)
        return moves.swap(worst_slot(k) if slot is None else slot)
    slot = best_slot(k, value(held), UNKNOWN_GAIN, 1.0)
    return moves.msg("discard") if slot is None else moves.swap(slot)


def should_call(k: Knowledge, memory: Memory) -> bool:
    """R10: is my expected total likely the lowest at the table?"""
    if memory.my_turns >= LAST_CALL:
        return True
    lowest_other = min((k.total(p) for p in k.others), default=99.0)
    margin = CALL_MARGIN + UNKNOWN_RISK * len(k.unknown_slots(k.me))
    margin -= max(0, memory.my_turns - PATIENCE)
    return k.total(k.me) + margin < lowest_other


def play(view: dict[str, Any], memory: Memory, now: int, rng: random.Random) -> Message | None:
    """The `normal` policy for a view in play."""
    legal = view["legal"]
    k = Knowledge.of(view, memory)
    if "crisp" in legal and should_call(k, memory):
        return moves.msg("crisp")
    if "draw" in legal:
        return choose_draw(view, k)
    return resolve(view, k)

