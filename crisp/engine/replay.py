"""A round's record, its replay (R18.2) and the memory review (R18.3), as pure data.

The record of a round is its header (the round, the dealer, the options and the
deal: every hand and the stock from its top, from the sealed fields of
`round_started`) and its moves: every game event of the round, unredacted
(`events.unredacted`: a stock draw's card, a Queen's two cards), each with its
index `i` and the time `at` it was played, in order, from the deal to the reveal.
The server appends the moves as the round is played (server/rooms/round_record.py)
and serves `replay(header, moves)` once the round is over: the shape of protocol.md
v1.2, `memory` (R18.3) computed from the record (`memory_review`), never stored:
the record is the one source (design.md, "Round records are events").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .events import Event, unredacted
from .rounds import DEAL_FIELDS
from .vocabulary import EventKind, Slot

# Game events of a round (protocol.md "Events"); presence and lobby events are left
# out of the record (protocol v1.2 allows it): joined, left, connected, disconnected,
# options, away, back, host_changed, bot_added, rematch.
K = EventKind
MOVE_KINDS = frozenset({
    K.PEEK, K.READY, K.TURN_STARTED, K.DREW, K.SWAPPED, K.DISCARDED, K.JACK, K.QUEEN, K.KING,
    K.STOCK_REBUILT, K.CRISP, K.TIMEOUT, K.TOOK_OVER, K.ROUND_OVER, K.GAME_OVER,
})
END_KINDS = frozenset({K.ROUND_OVER})  # the move that closes a round's record


def header_of(event: Event, options: Mapping[str, Any]) -> dict[str, Any]:
    """The record's header from a round's `round_started` event (its sealed deal) and
    the options the round is played with."""
    data = event.data
    return {"round": data["round"], "dealer": data["dealer"], "options": dict(options),
            "deal": {key: data[key] for key in DEAL_FIELDS}}


def move_of(event: Event, i: int, at: int) -> dict[str, Any] | None:
    """The record's move for a game event (None for the kinds left out): the whole
    event, every card filled in, with its index and time."""
    if event.kind not in MOVE_KINDS:
        return None
    return {"i": i, "at": at, **unredacted(event)}


def replay(header: Mapping[str, Any], moves: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The replay of protocol.md v1.2 from a finished round's record: the deal, the
    moves, the reveal (from `round_over`) and every player's `memory` (R18.3)."""
    reveal = None
    for move in moves:
        if move["kind"] == K.ROUND_OVER:
            reveal = {key: move[key] for key in ("caller", "hands", "sums", "scores")}
    deal = header["deal"]
    return {
        "round": header["round"],
        "dealer": header["dealer"],
        "options": dict(header["options"]),
        "deal": {"hands": deal["hands"], "stock": deal["stock"], "discard": deal["discard"]},
        "moves": [dict(m) for m in moves],
        "reveal": reveal,
        "memory": memory_review(deal["hands"], moves),
    }


# ---- memory review (R18.3)

SLOT_LABELS = tuple(slot.label for slot in Slot)

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
        if kind == K.PEEK:
            seen[(move["player"], _slot(move["slot"]))] = (move["card"], i)
        elif kind == K.DREW:
            held[move["player"]] = move["card"]
        elif kind == K.SWAPPED:
            pos = (move["player"], _slot(move["slot"]))
            card = held.pop(move["player"], None)
            where[pos] = card
            replaced.setdefault(pos, []).append(i)
            if card is not None:  # R4.1, R13: the card swapped in was seen when drawn
                seen[pos] = (card, i)
        elif kind == K.QUEEN:
            own = (move["player"], _slot(move["slot"]))
            other = (move["target"], _slot(move["target_slot"]))
            where[own], where[other] = move["target_card"], move["own_card"]
            replaced.setdefault(own, []).append(i)
            replaced.setdefault(other, []).append(i)
        elif kind in (K.DISCARDED, K.JACK, K.KING):
            held.pop(move["player"], None)
        elif kind == K.ROUND_OVER:
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
