"""The events a change makes (protocol "Crapette" / Events); all public (K8.1)."""

from __future__ import annotations

from ..api import JSON, Event
from .board import CRAPETTE, OPP_CRAPETTE, TURNED, Board, Move, move_name
from .cards import text
from .vocabulary import EventKind


def event(kind: EventKind, **data: JSON) -> Event:
    return Event(kind, data)


def turned(board: Board, players: tuple[str, str], before: Board | None) -> list[Event]:
    """K3.1, K3.3, K3.5: the stock rebuilt from the waste (when it was) and the card
    turned, for the mover of `board` (`before`: the table before, same mover or not)."""
    m = board.mover
    out: list[Event] = []
    waste_before = before.waste[m] if before is not None else ()
    stock_before = before.stock[m] if before is not None else board.stock[m]
    if not stock_before and waste_before and not board.waste[m]:
        out.append(event(EventKind.RESTOCKED, player=players[m], count=len(waste_before)))
    if board.turned >= 0:
        out.append(event(EventKind.TURNED, player=players[m], card=text(board.turned)))
    return out


def moved(before: Board, after: Board, move: Move, card: int, players: tuple[str, str],
          version: int) -> list[Event]:
    """A move (K4), then what it revealed: a crapette top (K2.4), the next turned card."""
    m = before.mover
    out = [event(EventKind.MOVED, player=players[m], **move_name(move), card=text(card),
                 version=version)]
    for src, seat in ((CRAPETTE, m), (OPP_CRAPETTE, 1 - m)):
        if move[0] == src and after.crapette[seat]:
            out.append(event(EventKind.CRAPETTE_TOP, player=players[seat],
                             card=text(after.crapette[seat][-1])))
    if move[0] == TURNED:
        out.extend(turned(after, players, before))
    return out
