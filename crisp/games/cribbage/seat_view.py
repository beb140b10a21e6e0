"""The view as a seat receives it from the table: the game's view with the shared
fields a bot reads (`you`, `players[].id`, `players[].seat`, `legal`). The table
merges these itself; this is for the game's own use (time-outs played by the
computer, C8.3) and for simulations and tests."""

from __future__ import annotations

from typing import Any

from .state import State
from .turns import legal
from .view import seat_or_none, view


def seat_view(state: State, player: str | None, now: int) -> dict[str, Any]:
    out = view(state, player)
    out["you"] = player
    out["legal"] = legal(state, seat_or_none(state, player), now)
    for s, entry in enumerate(out["players"]):
        entry["id"] = state.players[s]
        entry["seat"] = s
    return out
