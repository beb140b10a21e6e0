"""What a seat or a watcher sees (K8; protocol "Crapette": the view). Every card on
the table is public, so all viewers see the same table; only `legal`, `moves`
and `turn.can_call` depend on the viewer."""

from __future__ import annotations

from ..api import JSON
from .board import Board, move_name
from .cards import TEXT, text
from .moves import legal_moves, obliged
from .state import State
from .vocabulary import ActionType, Status


def _pile(cards: tuple[int, ...]) -> dict[str, JSON]:
    return {"count": len(cards), "top": text(cards[-1]) if cards else None}


def players(board: Board, ids: tuple[str, str]) -> list[dict[str, JSON]]:
    """Per seat: id, crapette (count, top), stock (count), waste (count, top), `left`."""
    return [{"id": ids[s], "crapette": _pile(board.crapette[s]),
             "stock": {"count": len(board.stock[s])}, "waste": _pile(board.waste[s]),
             "left": board.left(s)} for s in (0, 1)]


def legal(state: State, player: str | None) -> list[str]:
    """The message types `player` may send now (the view's `legal`)."""
    if state.status != Status.PLAYING:
        return []
    seat = state.seat(player)
    if seat is not None and seat == state.board.mover:
        out: list[str] = [ActionType.MOVE] if legal_moves(state.board) else []
        return out if obliged(state.board) else [*out, ActionType.END]
    return [ActionType.CRAPETTE] if state.can_call(seat) else []


def view(state: State, player: str | None) -> dict[str, JSON]:
    """The game part of the view for `player` (None: a watcher)."""
    board = state.board
    seat = state.seat(player)
    playing = state.status == Status.PLAYING
    mine = playing and seat == board.mover
    turn: JSON = None
    if playing:
        turn = {"player": state.mover, "turned": text(board.turned) if board.turned >= 0
                else None, "deadline": state.deadline, "moves": len(state.record),
                "can_call": state.can_call(seat), "idle_turns": state.idle_turns}  # fmt: skip
    return {
        "status": state.status,
        "players": players(board, state.players),
        "tableau": [[TEXT[c] for c in pile] for pile in board.tableau],
        "foundations": [text(t) if t >= 0 else None for t in board.foundations],
        "turn": turn,
        "legal": legal(state, player),
        "moves": [move_name(m) for m in legal_moves(board)] if mine else [],
        "calls": [{"player": c.player, "version": c.version, "right": c.right,
                   "fault": c.fault, "missed": None if c.missed is None
                   else move_name(c.missed)} for c in state.calls],
        "why": state.why,
    }
