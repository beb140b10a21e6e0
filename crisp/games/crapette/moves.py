"""Which moves the rules allow (K4), and why one is refused.

`legal_moves(board)` lists every move the mover may make now; `refusal(board,
move)` names the rule that forbids a move (None when it is legal). The two agree
on every pair of piles (tests/games/crapette: test_k4_6_...).
"""

from __future__ import annotations

from .board import (
    CRAPETTE,
    FOUNDATION,
    FOUNDATIONS,
    OPP_CRAPETTE,
    OPP_WASTE,
    STOCK,
    TABLEAU,  # fmt: skip
    TABLEAUS,
    TURNED,
    WASTE,
    Board,
    Move,
    top,
)
from .cards import fits_foundation, fits_loading, fits_tableau

OWN_SOURCES = (CRAPETTE, TURNED)
OPP_SOURCES = (OPP_CRAPETTE, OPP_WASTE)


def obliged(board: Board) -> bool:
    """K4.3: a tableau pile is empty while the mover's crapette is not."""
    return bool(board.crapette[board.mover]) and not all(board.tableau)


def source_card(board: Board, pile: int) -> int:
    """The card a move from `pile` would take (-1: none there)."""
    m = board.mover
    if pile == CRAPETTE:
        return top(board.crapette[m])
    if pile == TURNED:
        return board.turned
    if TABLEAU <= pile < TABLEAU + 8:
        return top(board.tableau[pile - TABLEAU])
    if pile == OPP_CRAPETTE:
        return top(board.crapette[1 - m])
    if pile == OPP_WASTE:
        return top(board.waste[1 - m])
    return -1


def legal_moves(board: Board) -> list[Move]:
    """Every move the mover may make now (K4.1-K4.5, the obligation of K4.3)."""
    m = board.mover
    tableau = board.tableau
    found = board.foundations
    out: list[Move] = []
    must = obliged(board)
    opp_c = top(board.crapette[1 - m])
    opp_w = top(board.waste[1 - m])
    sources = [(CRAPETTE, top(board.crapette[m])), (TURNED, board.turned)]
    sources += [(TABLEAU + i, p[-1]) for i, p in enumerate(tableau) if p]
    for src, card in sources:
        if card < 0:
            continue
        for f in range(8):
            if fits_foundation(card, found[f]):
                out.append((src, FOUNDATION + f))
        if must:
            if src == CRAPETTE:
                out.extend((src, TABLEAU + j) for j in range(8) if not tableau[j])
            continue
        for j in range(8):
            if TABLEAU + j != src and fits_tableau(card, top(tableau[j])):
                out.append((src, TABLEAU + j))
        if fits_loading(card, opp_c):
            out.append((src, OPP_CRAPETTE))
        if fits_loading(card, opp_w):
            out.append((src, OPP_WASTE))
    for src, card in ((OPP_CRAPETTE, opp_c), (OPP_WASTE, opp_w)):
        if card >= 0:
            out.extend((src, FOUNDATION + f) for f in range(8)
                       if fits_foundation(card, found[f]))  # fmt: skip
    return out


def refusal(board: Board, move: Move) -> str | None:
    """The rule id that forbids `move` now, or None when it is legal."""
    src, dst = move
    if src == WASTE:
        return "K3.6"  # never off one's own waste
    if src in FOUNDATIONS:
        return "K4.2"  # a card on a foundation never leaves it
    if src == STOCK:
        return "K4.1"  # the stock is face down: only its turned card moves
    card = source_card(board, src)
    if card < 0:
        return "K4.1"  # nothing there to move
    if dst in (CRAPETTE, TURNED, STOCK, WASTE):
        return "K3.4" if dst == WASTE else "K4.6"
    if src in OPP_SOURCES and dst not in FOUNDATIONS:
        return "K4.5"
    if dst in FOUNDATIONS:
        return None if fits_foundation(card, board.foundations[dst - FOUNDATION]) else "K4.2"
    if obliged(board) and not (src == CRAPETTE and dst in TABLEAUS
                               and not board.tableau[dst - TABLEAU]):  # fmt: skip
        return "K4.3"
    if dst in TABLEAUS:
        if dst == src or not fits_tableau(card, top(board.tableau[dst - TABLEAU])):
            return "K4.3"
        return None
    opp = 1 - board.mover
    target = board.crapette[opp] if dst == OPP_CRAPETTE else board.waste[opp]
    return None if fits_loading(card, top(target)) else "K4.4"
