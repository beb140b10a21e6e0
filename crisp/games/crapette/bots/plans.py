"""The easy and the normal computer players' choice of a move (or `end`, None).

normal: a plan per turn, in order: a card of its own to a foundation (the crapette
top first), the opponent's tops to a foundation (K4.5), the crapette top to the
tableau or onto the opponent, loading the opponent from the turned card and the
tableau, a tableau move that lets a card go up or the crapette top out, the turned
card to the tableau, then `end` (the stock). easy: foundations first, then any
move that gets rid of a card, and now and then (on purpose) a move that leaves a
card that could go up: a fault a beginner can call (K6.2).
"""

from __future__ import annotations

from ...api import Rng
from ..board import CRAPETTE, FOUNDATION, OPP_CRAPETTE, OPP_WASTE, TABLEAU, TURNED, Board, Move
from ..cards import fits_foundation, fits_tableau
from ..moves import legal_moves
from ..play import apply_move

FAULT_RATE = 0.15  # easy: how often it passes over a card that could go up


def _own_up(moves: list[Move]) -> list[Move]:
    return sorted((m for m in moves if m[1] >= FOUNDATION and m[0] not in (OPP_CRAPETTE,
                                                                           OPP_WASTE)),
                  key=lambda m: (m[0] != CRAPETTE, m[0] != TURNED))  # fmt: skip


def loads_for_good(m: Move, board: Board | None = None) -> bool:
    """A move that loads the opponent. With `board`: not a tableau card onto their
    crapette that they could play straight back to the tableau (a card leaving a
    crapette counts as progress, K5.2, so that cycle would never block)."""
    if m[1] not in (OPP_CRAPETTE, OPP_WASTE):
        return False
    if board is None or m[1] != OPP_CRAPETTE or not TABLEAU <= m[0] < FOUNDATION:
        return True
    after = apply_move(board, m)
    card = after.crapette[1 - board.mover][-1]
    return not any(p and fits_tableau(card, p[-1]) for p in after.tableau) and not any(
        fits_foundation(card, f) for f in after.foundations)


def _onto_pile(board: Board, m: Move) -> bool:
    """A move onto a tableau pile that holds cards (not filling an empty one)."""
    return TABLEAU <= m[1] < FOUNDATION and bool(board.tableau[m[1] - TABLEAU])


def normal(board: Board, moves: list[Move]) -> Move | None:
    """The normal player's next move, None for `end`."""
    up = _own_up(moves)
    if up:
        return up[0]
    theirs = [m for m in moves if m[1] >= FOUNDATION]
    if theirs:
        return theirs[0]
    crapette = [m for m in moves if m[0] == CRAPETTE]
    if crapette:
        return max(crapette, key=lambda m: (_onto_pile(board, m), loads_for_good(m)))
    for m in moves:
        if loads_for_good(m, board) and (m[0] == TURNED or TABLEAU <= m[0] < FOUNDATION):
            return m
    for m in moves:
        if TABLEAU <= m[0] < FOUNDATION and _onto_pile(board, m) and _opens(board, m):
            return m
    for m in moves:
        if m[0] == TURNED and (_onto_pile(board, m) or not board.crapette[board.mover]):
            return m
    return None


def _opens(board: Board, m: Move) -> bool:
    """After tableau move `m`, a card of the mover's goes up or the crapette top moves."""
    after = apply_move(board, m)
    return any(n[0] != m[1] and (n[1] >= FOUNDATION or n[0] == CRAPETTE)
               for n in legal_moves(after) if n[0] not in (OPP_CRAPETTE, OPP_WASTE))


def easy(board: Board, moves: list[Move], rng: Rng) -> Move | None:
    """The easy player's next move, None for `end`."""
    up = _own_up(moves)
    others = [m for m in moves if m[1] < FOUNDATION]
    if up and others and rng.random() < FAULT_RATE:
        return others[int(rng.random() * len(others))]  # a catchable fault, on purpose
    if up:
        return up[0]
    theirs = [m for m in moves if m[1] >= FOUNDATION]
    if theirs:
        return theirs[0]
    for m in moves:
        if m[0] == CRAPETTE:
            return m
    for m in moves:
        if m[0] == TURNED and (_onto_pile(board, m) or loads_for_good(m)):
            return m
    if rng.random() < 0.5:
        for m in moves:
            if loads_for_good(m, board):
                return m
    return None

