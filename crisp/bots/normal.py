"""The `normal` level: remembers everything its seat was shown and plays on estimates.

- draws the discard pile's top when the option is on and it beats a card in hand
  by a clear margin (R13), or when the stock's top is known (R4.2) and poor;
- swaps a drawn card in for the worst card it knows of, or for an unknown card
  when the drawn one is low (R5.1); the Jack looks at an unknown middle (R7);
- the Queen hands its highest known card over for the lowest card it can expect
  at the table, chosen by value, ties broken at random (R8);
- calls crisp when the chance that its total is the lowest at the table is high
  (R10): that chance falls with every opponent and with what it does not know
  of their hands, and it settles for less as the round drags on;
- in the final turns (R11) it plays against the caller: it takes the caller's
  cards, which are likely low, and hands them its high ones.

Ties and the exact call threshold are drawn from the seat's own random source,
so no two games replay alike and no fixed pattern can be read.
"""

from __future__ import annotations

import random
from typing import Any

from crisp.engine import ActionType, Source

from . import moves
from .knowledge import Knowledge, is_face, value
from .memory import Memory
from .moves import Message

PILE_GAIN = 3.0  # a discard-pile card must beat the card it replaces by this much (R13)
UNKNOWN_GAIN = 1.0  # a drawn card replaces an unknown one when it is this much lower
FINAL_UNKNOWN_GAIN = 0.5  # ... in its final turn, when knowing the card is worth nothing
QUEEN_GAIN = 2.0  # a Queen swap is worth it when the card handed over is this much higher
CALLER_PULL = 1.0  # in its final turn a Queen takes a caller's card before one this much lower
CALL_CHANCE = 0.66  # call when the chance of being the lowest (R12.2) is at least this
CALL_JITTER = 0.04  # ... give or take this much, drawn at random
FINAL_GAIN = 1.5  # what the others are expected to gain in their final turns (R11.1)
PATIENCE = 4  # after this many of my turns, the threshold falls by STEP per turn
STEP = 0.04
LOWEST_CHANCE = 0.25  # ... never below this
LAST_CALL = 20  # after this many of my turns, call at the next window whatever the count
BLIND_UNTIL = 5  # from this many seats it never swaps blind with the caller (queen_plan)
TIE = 1e-9


def _pick(rng: random.Random, items: list[Any]) -> Any:
    return items[0] if len(items) == 1 else rng.choice(items)


def best_slot(k: Knowledge, card_value: float, unknown_gain: float,
              known_gain: float, rng: random.Random) -> int | None:
    """The position a card of `card_value` should replace, or None if none is worth it."""
    gains = {}
    for slot in range(3):
        known = k.hands[k.me][slot] is not None
        gain = k.slot_value(k.me, slot) - card_value
        if gain >= (known_gain if known else unknown_gain):
            gains[slot] = gain
    if not gains:
        return None
    top = max(gains.values())
    return int(_pick(rng, [s for s, g in gains.items() if g >= top - TIE]))


def worst_slot(k: Knowledge, rng: random.Random) -> int:
    """The position with the highest expected value (an unknown one on a tie)."""
    key = {s: (k.slot_value(k.me, s), k.hands[k.me][s] is None) for s in range(3)}
    top = max(key.values())
    return int(_pick(rng, [s for s in range(3) if key[s] == top]))


def choose_draw(view: dict[str, Any], k: Knowledge, memory: Memory,
                rng: random.Random) -> Message:
    """R13: the pile's top when it is clearly good, else the stock; a stock whose top
    this seat knows (R4.2) is drawn when that card is as good."""
    top = view.get("discard_top")
    if top is None or not moves.may_draw_from_pile(view):
        return moves.draw(Source.STOCK)
    current = view.get("round") == memory.round
    known = memory.stock[0] if current and memory.stock else None
    pile = best_slot(k, value(top), PILE_GAIN, PILE_GAIN, rng) is not None
    if known is not None and not is_face(known) and value(known) <= value(top):
        return moves.draw(Source.STOCK)
    return moves.draw(Source.DISCARD if pile else Source.STOCK)


def queen_plan(k: Knowledge, final: bool, rng: random.Random) -> Message | None:
    """R8: my highest known card for the lowest card I can expect at the table, by value
    (ties at random). In my final turn a caller's card I know comes first (R8.5); from
    BLIND_UNTIL seats on I never swap blind with the caller: its unknown cards are the
    ones it bet on, and if every final turn gambled on them nobody could call at a big
    table (R12.2)."""
    mine = [(value(c), s != 1) for s, c in enumerate(k.hands[k.me]) if c is not None]
    if not mine or not k.others:
        return None
    high = max(mine)
    slot = _pick(rng, [s for s, c in enumerate(k.hands[k.me])
                       if c is not None and (value(c), s != 1) == high])
    pull = CALLER_PULL if final else 0.0
    scored = [(k.slot_value(p, s, plain=True) - (pull if p == k.caller else 0.0), p, s)
              for p in k.others for s in range(3)
              if not (final and p == k.caller and k.hands[p][s] is None
                      and len(k.others) + 1 >= BLIND_UNTIL)]
    if not scored:
        return None
    low = min(scored)[0]
    _, target, target_slot = _pick(rng, [t for t in scored if t[0] <= low + TIE])
    if high[0] - k.slot_value(target, target_slot, plain=True) < QUEEN_GAIN:
        return None
    return moves.queen(slot, target, target_slot)


def resolve(view: dict[str, Any], k: Knowledge, final: bool,
            rng: random.Random) -> Message | None:
    """R5: what to do with the card in hand (`final`: this is my last turn of the round)."""
    legal = view["legal"]
    held = view.get("holding")
    if ActionType.KING in legal:
        return moves.msg(ActionType.KING)  # R6.3: a King from the stock must be used
    if ActionType.JACK in legal:
        look = k.hands[k.me][1] is None and not final
        return moves.msg(ActionType.JACK if look else ActionType.DISCARD)
    if ActionType.QUEEN in legal:
        return queen_plan(k, final, rng) or moves.msg(ActionType.DISCARD)
    if held is None or ActionType.SWAP not in legal:
        return moves.msg(ActionType.DISCARD) if ActionType.DISCARD in legal else None
    if ActionType.DISCARD not in legal:  # R13.2: a card from the pile must go into the hand
        slot = best_slot(k, value(held), -99.0, -99.0, rng)
        return moves.swap(worst_slot(k, rng) if slot is None else slot)
    gain = FINAL_UNKNOWN_GAIN if final else UNKNOWN_GAIN
    slot = best_slot(k, value(held), gain, 1.0, rng)
    return moves.msg(ActionType.DISCARD) if slot is None else moves.swap(slot)


def should_call(k: Knowledge, memory: Memory, rng: random.Random) -> bool:
    """R10: is my total likely the lowest at the table, after the others' final turns?"""
    if memory.my_turns >= LAST_CALL:
        return True
    threshold = CALL_CHANCE + rng.uniform(-CALL_JITTER, CALL_JITTER)
    threshold -= STEP * max(0, memory.my_turns - PATIENCE)
    return k.lowest_chance(FINAL_GAIN) >= max(LOWEST_CHANCE, threshold)


def play(view: dict[str, Any], memory: Memory, now: int, rng: random.Random) -> Message | None:
    """The `normal` policy for a view in play."""
    legal = view["legal"]
    k = Knowledge.of(view, memory)
    if ActionType.CRISP in legal and should_call(k, memory, rng):
        return moves.msg(ActionType.CRISP)
    if ActionType.DRAW in legal:
        return choose_draw(view, k, memory, rng)
    final = k.caller is not None and k.caller != k.me
    return resolve(view, k, final, rng)
