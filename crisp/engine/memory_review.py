"""Memory review (R18.3): for each player and each of their three positions, the
card they were last shown there, the card there at the reveal, and the first move
after that look that replaced it.

Computed from a round's record (`replay.py`: the deal and the unredacted moves),
never stored: the record is the one source (design.md, "Round records are events").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

SLOT_LABELS = ("left", "middle", "right")

Position = tuple[str, int]  # (player id, slot index)


def memory_review(
    hands: Mapping[str, Sequence[str | None]], moves: Sequence[Mapping[str, Any]]
) -> dict[str, list[dict[str, Any]]]:
    """`memory` of protocol.md v1.2 from the deal's `hands` and the round's `moves`
    (each with its index `i`), per player, left to right.

    A look is a `peek` (R2.4 at the deal, R7.1 a Jack, R8.2/R8.3 a Queen) or a card
    the player drew and swapped in (R4.1, R13: they saw it when they drew it). A
    position's card is replaced by a `swapped` (R5.1) or a `queen` (R8.1, both of
    its positions). `changed_by` is the `i` of the first replacement after the look
    when the card seen differs from the card at the reveal, else null.
    """
    where: dict[Position, str | None] = {
        (pid, s): cards[s] for pid, cards in hands.items() for s in range(3)
    }
    seen: dict[Position, tuple[str, int]] = {}
    replaced: dict[Position, list[int]] = {}
    held: dict[str, str | None] = {}
    revealed: Mapping[str, Sequence[str | None]] | None = None
    for move in moves:
        kind, i = move["kind"], int(move["i"])
        if kind == "peek":
            seen[(move["player"], _slot(move["slot"]))] = (move["card"], i)
        elif kind == "drew":
            held[move["player"]] = move["card"]
        elif kind == "swapped":
            pos = (move["player"], _slot(move["slot"]))
            card = held.pop(move["player"], None)
            where[pos] = card
            replaced.setdefault(pos, []).append(i)
            if card is not None:  # R4.1, R13: the card swapped in was seen when drawn
                seen[pos] = (card, i)
        elif kind == "queen":
            own = (move["player"], _slot(move["slot"]))
            other = (move["target"], _slot(move["target_slot"]))
            where[own], where[other] = move["target_card"], move["own_card"]
            replaced.setdefault(own, []).append(i)
            replaced.setdefault(other, []).append(i)
        elif kind in ("discarded", "jack", "king"):
            held.pop(move["player"], None)
        elif kind == "round_over":
            revealed = move["hands"]
    out: dict[str, list[dict[str, Any]]] = {}
    for pid in hands:
        entries = []
        for s, label in enumerate(SLOT_LABELS):
            pos = (pid, s)
            actual = revealed[pid][s] if revealed is not None and pid in revealed else where[pos]
            look = seen.get(pos)
            changed_by = None
            if look is not None and look[0] != actual:
                changed_by = next((k for k in replaced.get(pos, ()) if k > look[1]), None)
            entries.append({"slot": label, "seen": None if look is None else look[0],
                            "actual": actual, "changed_by": changed_by})
        out[pid] = entries
    return out


def _slot(label: str) -> int:
    return SLOT_LABELS.index(label)
