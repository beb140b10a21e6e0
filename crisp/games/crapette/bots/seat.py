"""What a computer player knows: the table rebuilt from its seat's view alone (K8),
face-down cards as `UNKNOWN` (they fit nowhere, so no search ever uses one)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..board import BY_NAME, Board, Cards, Move
from ..cards import UNKNOWN, parse
from ..vocabulary import Calls


def _pile(raw: Mapping[str, Any]) -> Cards:
    count = int(raw["count"])
    top = raw.get("top")
    if count == 0:
        return ()
    return (UNKNOWN,) * (count - 1) + ((parse(top),) if top is not None else (UNKNOWN,))


def seat_of(view: Mapping[str, Any], player: str) -> int:
    """The seat of `player` in the view's `players` (seat order)."""
    ids = [p.get("id") for p in view["players"]]
    return ids.index(player) if player in ids else 0


def board_of(view: Mapping[str, Any]) -> Board | None:
    """The table as the view shows it, None once the game is over."""
    turn = view.get("turn")
    if not turn:
        return None
    players = view["players"]
    mover = seat_of(view, turn["player"])
    crapette = (_pile(players[0]["crapette"]), _pile(players[1]["crapette"]))
    stock = ((UNKNOWN,) * players[0]["stock"]["count"],
             (UNKNOWN,) * players[1]["stock"]["count"])
    waste = (_pile(players[0]["waste"]), _pile(players[1]["waste"]))
    tableau = tuple(tuple(parse(c) for c in pile) for pile in view["tableau"])
    found = tuple(-1 if t is None else parse(t) for t in view["foundations"])
    turned = turn.get("turned")
    return Board(crapette, stock, waste, tableau, found, mover,
                 -1 if turned is None else parse(turned))


def move_of(raw: Mapping[str, Any]) -> Move:
    return BY_NAME[raw["from"]], BY_NAME[raw["to"]]


def mode_of(view: Mapping[str, Any]) -> Calls:
    """The room's `calls` when the view carries the options (the table's view does),
    else the default."""
    options = view.get("options")
    if isinstance(options, Mapping):
        value = options.get("calls")
        if value in tuple(Calls):
            return Calls(value)
    return Calls.OBVIOUS
