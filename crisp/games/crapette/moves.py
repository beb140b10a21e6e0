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
from .cards import COLOUR, RANK, UNKNOWN, fits_foundation, fits_loading, fits_tableau

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
    """Every move the mover may make now (K4.1-K4.5, the obligation of K4.3), the
    same as every move `refusal` lets pass (written for speed: the fault finder and
    the bots call it thousands of times a turn)."""
    m = board.mover
    tableau = board.tableau
    up: dict[int, list[int]] = {}  # card -> the foundations it may go on (K4.2)
    empty_f: list[int] = []
    for f, t in enumerate(board.foundations):
        if t < 0:
            empty_f.append(FOUNDATION + f)
        elif RANK[t] < 12:
            up.setdefault(t + 1, []).append(FOUNDATION + f)
    tops = [p[-1] if p else -1 for p in tableau]
    empty_t = [TABLEAU + j for j, t in enumerate(tops) if t < 0]
    onto: dict[tuple[int, int], list[int]] = {}  # (rank, colour) -> piles taking it (K4.3)
    for j, t in enumerate(tops):
        if t >= 0:
            onto.setdefault((RANK[t] - 1, 1 - COLOUR[t]), []).append(TABLEAU + j)
    must = bool(board.crapette[m]) and bool(empty_t)
    opp_c = top(board.crapette[1 - m])
    opp_w = top(board.waste[1 - m])
    sources = [(CRAPETTE, top(board.crapette[m])), (TURNED, board.turned)]
    sources += [(TABLEAU + j, t) for j, t in enumerate(tops) if t >= 0]
    out: list[Move] = []
    for src, card in sources:
        if card < 0 or card == UNKNOWN:
            continue
        fs = empty_f if RANK[card] == 0 else up.get(card)
        if fs:
            out.extend((src, f) for f in fs)
        if must:
            if src == CRAPETTE:
                out.extend((src, d) for d in empty_t)
            continue
        piles = onto.get((RANK[card], COLOUR[card]))
        if piles:
            out.extend((src, d) for d in piles if d != src)
        out.extend((src, d) for d in empty_t if d != src)
        if fits_loading(card, opp_c):
            out.append((src, OPP_CRAPETTE))
        if fits_loading(card, opp_w):
            out.append((src, OPP_WASTE))
    for src, card in ((OPP_CRAPETTE, opp_c), (OPP_WASTE, opp_w)):
        if card >= 0 and card != UNKNOWN:
            fs = empty_f if RANK[card] == 0 else up.get(card)
            if fs:
                out.extend((src, f) for f in fs)
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
