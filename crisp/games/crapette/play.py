"""What a move and a turn do to the table (K3, K4, K5.1). Pure functions of `Board`;
they trust their input: call `moves.refusal` first.
"""

from __future__ import annotations

from .board import (
    CRAPETTE,
    FOUNDATION,
    OPP_CRAPETTE,
    OPP_WASTE,
    TABLEAU,
    TURNED,
    Board,  # fmt: skip
    Move,
    pair,
)


def draw_turned(board: Board) -> Board:
    """K3.1, K3.3, K3.5: the mover turns the top of their stock; an empty stock is
    first rebuilt from the waste, turned over (the card put on the waste first
    becomes the stock's top). With both empty, no card is turned (-1)."""
    m = board.mover
    stock, waste = board.stock[m], board.waste[m]
    if not stock and waste:
        stock, waste = waste[::-1], ()
    if not stock:
        return board._replace(turned=-1, waste=pair(board.waste, m, waste))
    return board._replace(turned=stock[-1], stock=pair(board.stock, m, stock[:-1]),
                          waste=pair(board.waste, m, waste))


def apply_move(board: Board, move: Move) -> Board:
    """The table after the mover's legal `move` (K4), the next card turned when the
    turned card was used (K3.3)."""
    src, dst = move
    m = board.mover
    o = 1 - m
    crapette, waste, tableau = board.crapette, board.waste, board.tableau
    if src == CRAPETTE:
        card = crapette[m][-1]
        crapette = pair(crapette, m, crapette[m][:-1])
    elif src == TURNED:
        card = board.turned
    elif src == OPP_CRAPETTE:
        card = crapette[o][-1]
        crapette = pair(crapette, o, crapette[o][:-1])
    elif src == OPP_WASTE:
        card = waste[o][-1]
        waste = pair(waste, o, waste[o][:-1])
    else:
        i = src - TABLEAU
        card = tableau[i][-1]
        tableau = (*tableau[:i], tableau[i][:-1], *tableau[i + 1:])
    foundations = board.foundations
    if dst >= FOUNDATION:
        f = dst - FOUNDATION
        foundations = (*foundations[:f], card, *foundations[f + 1:])
    elif dst >= TABLEAU:
        j = dst - TABLEAU
        tableau = (*tableau[:j], (*tableau[j], card), *tableau[j + 1:])
    elif dst == OPP_CRAPETTE:
        crapette = pair(crapette, o, (*crapette[o], card))
    else:  # OPP_WASTE
        waste = pair(waste, o, (*waste[o], card))
    after = Board(crapette, board.stock, waste, tableau, foundations, m, board.turned)
    return draw_turned(after) if src == TURNED else after


def progress(move: Move) -> bool:
    """K5.2: a card reached a foundation or left a crapette."""
    return move[1] >= FOUNDATION or move[0] in (CRAPETTE, OPP_CRAPETTE)


def end_turn(board: Board) -> Board:
    """K3.4: the turned card goes on the mover's waste, and the other seat's turn
    begins with its turned card (K3.1)."""
    m = board.mover
    waste = board.waste
    if board.turned >= 0:
        waste = pair(waste, m, (*waste[m], board.turned))
    return draw_turned(board._replace(waste=waste, turned=-1, mover=1 - m))


def winner(board: Board) -> int | None:
    """K5.1: the seat that has no card left (crapette, stock, waste, turned card)."""
    for seat in (board.mover, 1 - board.mover):
        if board.left(seat) == 0:
            return seat
    return None
