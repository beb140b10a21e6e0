"""A round's record and its replay (R18.2), as pure data.

The record of a round is its header (the round, the dealer, the options and the
deal: every hand and the stock from its top, from the sealed fields of
`round_started`) and its moves: every game event of the round, unredacted
(`events.unredacted`: a stock draw's card, a Queen's two cards), each with its
index `i` and the time `at` it was played, in order, from the deal to the reveal.
The server appends the moves as the round is played (server/rooms/round_record.py)
and serves `replay(header, moves)` once the round is over: the shape of protocol.md
v1.2, `memory` (R18.3) computed from the record.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .events import Event, unredacted
from .memory_review import memory_review
from .rounds import DEAL_FIELDS

# Game events of a round (protocol.md "Events"); presence and lobby events are left
# out of the record (protocol v1.2 allows it): joined, left, connected, disconnected,
# options, away, back, host_changed, bot_added, rematch.
MOVE_KINDS = frozenset({
    "peek", "ready", "turn_started", "drew", "swapped", "discarded", "jack", "queen", "king",
    "stock_rebuilt", "crisp", "timeout", "took_over", "round_over", "game_over",
})
END_KINDS = frozenset({"round_over"})  # the move that closes a round's record


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
        if move["kind"] == "round_over":
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
