"""Protocol messages a seat can send, and the `random` policy (uniform over legal moves).

Messages are the client-to-server dicts of protocol.md; `crisp.engine.action_from_dict`
turns one into an engine action. Everything here reads the seat's view only.
"""

from __future__ import annotations

import random
from typing import Any

from crisp.engine import ActionType as A
from crisp.engine import Source

from .memory import SLOT_NAMES

Message = dict[str, Any]

TURN_KINDS = (A.DRAW, A.SWAP, A.DISCARD, A.JACK, A.QUEEN, A.KING)
SIMPLE_KINDS = (A.START, A.READY, A.DISCARD, A.JACK, A.KING, A.CRISP, A.NEXT_ROUND,
                A.REMATCH)
RANDOM_CRISP_CHANCE = 0.15  # a random seat calls in about one window out of seven (R10)


def msg(kind: str, **fields: Any) -> Message:
    """A protocol message of type `kind`."""
    return {"type": kind, **fields}


def draw(source: str = Source.STOCK) -> Message:
    """R4.1 / R13.1."""
    return msg(A.DRAW, source=source)


def swap(slot: int) -> Message:
    """R5.1: the held card takes `slot` (0 left, 1 middle, 2 right)."""
    return msg(A.SWAP, slot=SLOT_NAMES[slot])


def queen(slot: int, target: str, target_slot: int) -> Message:
    """R8.1: my `slot` for `target`'s `target_slot`."""
    return msg(A.QUEEN, slot=SLOT_NAMES[slot], target=target,
               target_slot=SLOT_NAMES[target_slot])


def may_draw_from_pile(view: dict[str, Any]) -> bool:
    """R13.1 / R13.4: the option is on and the discard pile is not empty."""
    options = view.get("options") or {}
    return bool(options.get("discard_draw")) and (view.get("discard_count") or 0) > 0


def opponents(view: dict[str, Any]) -> list[str]:
    """Every other seat's player id, in seat order."""
    return [p["id"] for p in view.get("players", []) if p["id"] != view.get("you")]


def random_message(view: dict[str, Any], kind: str, rng: random.Random) -> Message:
    """A uniformly random well-formed message of type `kind` (which `legal` lists)."""
    if kind == A.DRAW:
        sources = [Source.STOCK, Source.DISCARD] if may_draw_from_pile(view) else [Source.STOCK]
        return draw(rng.choice(sources))
    if kind == A.SWAP:
        return swap(rng.randrange(3))
    if kind == A.QUEEN:
        return queen(rng.randrange(3), rng.choice(opponents(view)), rng.randrange(3))
    if kind in SIMPLE_KINDS:
        return msg(kind)
    raise ValueError(f"no random message of type {kind!r}")


def random_move(view: dict[str, Any], rng: random.Random,
                crisp_chance: float = RANDOM_CRISP_CHANCE) -> Message | None:
    """The `random` policy: a move drawn uniformly from the legal turn moves.

    It confirms the peek phase and a round's end (`ready`), and in its own crisp
    window calls with probability `crisp_chance`. It never takes the host's
    decisions (options, start, kick, next round, rematch): None then, and None
    when nothing is legal.
    """
    legal = view.get("legal") or []
    if A.READY in legal:
        return msg(A.READY)
    if A.CRISP in legal and rng.random() < crisp_chance:
        return msg(A.CRISP)
    kinds = [k for k in legal if k in TURN_KINDS]
    return random_message(view, rng.choice(kinds), rng) if kinds else None
