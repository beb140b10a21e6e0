"""The hard computer player: a search of its turn's move sequences.

From the table its seat sees, every sequence of up to `DEPTH` moves (cards turned
up meanwhile are unknown and take no part) is scored by `score`: its crapette
emptied first, then its other cards, the opponent's piles kept loaded and the
opponent's crapette top kept without a place to go. The first move of the best
sequence is played, if it scores better than stopping (`end`); a first move that
would be a fault under the room's calls is marked down (it would end the turn).
The search stops after `BUDGET` positions, so a decision stays within its time.
"""

from __future__ import annotations

from ..board import CRAPETTE, FOUNDATION, OPP_CRAPETTE, OPP_WASTE, TABLEAU, Board, Move
from ..cards import fits_foundation, fits_tableau
from ..faults import faulty
from ..moves import legal_moves, obliged
from ..play import apply_move
from ..vocabulary import Calls
from .plans import loads_for_good

DEPTH = 4
BUDGET = 500
FAULT = 12.0  # a fault a call could catch ends the turn
# score's weights: per card of one's crapette, of one's other cards, of the opponent's
# crapette and waste, per empty tableau pile; the opponent's crapette top with a
# foundation or a tableau pile to go to
W_CRAPETTE, W_OWN, W_THEIR_CRAPETTE, W_THEIR_WASTE, W_EMPTY = 10.0, 1.0, 3.0, 1.5, 0.0
W_THEY_GO_UP, W_THEY_GO_OUT = 4.0, 5.0


def score(board: Board, me: int) -> float:
    """How good `board` is for `me` (higher is better)."""
    opp = 1 - me
    own = len(board.stock[me]) + len(board.waste[me]) + (board.turned >= 0 and board.mover == me)
    s = -W_CRAPETTE * len(board.crapette[me]) - W_OWN * own
    s += W_THEIR_CRAPETTE * len(board.crapette[opp]) + W_THEIR_WASTE * len(board.waste[opp])
    s -= W_EMPTY * sum(1 for p in board.tableau if not p)
    theirs = board.crapette[opp]
    if theirs:
        top = theirs[-1]
        if any(fits_foundation(top, f) for f in board.foundations):
            s -= W_THEY_GO_UP
        elif any(p and fits_tableau(top, p[-1]) for p in board.tableau):
            s -= W_THEY_GO_OUT
    return s


def _pointless(board: Board, m: Move) -> bool:
    """A lone tableau card moved to an empty pile changes nothing; a tableau card
    loaded on the opponent's crapette that could come straight back would feed the
    cycle K5.2 never blocks (plans.loads_for_good)."""
    if TABLEAU <= m[0] < FOUNDATION and m[1] == OPP_CRAPETTE:
        return not loads_for_good(m, board)
    return (TABLEAU <= m[0] < FOUNDATION and TABLEAU <= m[1] < FOUNDATION
            and len(board.tableau[m[0] - TABLEAU]) == 1
            and not board.tableau[m[1] - TABLEAU])  # fmt: skip


def plan(board: Board, moves: list[Move], mode: Calls) -> Move | None:
    """The hard player's next move, None for `end`."""
    me = board.mover
    bad = faulty(board, mode) if mode != Calls.OFF else set()
    if bad:  # a card could go up, or a sequence should begin: no search can beat that
        good = [m for m in moves if m not in bad and m[1] >= FOUNDATION and m[0] != OPP_WASTE
                and m[0] != OPP_CRAPETTE]
        if good:
            return max(good, key=lambda m: (m[0] == CRAPETTE, score(apply_move(board, m), me)))
    must = obliged(board)
    best_value = float("-inf") if must else score(board, me)
    best: Move | None = None
    seen: set[Board] = {board}
    nodes = 0
    allowed = set(moves)
    frontier: list[tuple[Board, Move, int]] = []
    for m in legal_moves(board):
        if m not in allowed or _pointless(board, m):
            continue
        after = apply_move(board, m)
        value = score(after, me) - (FAULT if m in bad else 0.0) + (
            0.5 if m[1] >= FOUNDATION else 0.0)
        if value > best_value:
            best_value, best = value, m
        seen.add(after)
        frontier.append((after, m, 1))
    while frontier and nodes < BUDGET:
        nxt: list[tuple[Board, Move, int]] = []
        for b, first, depth in frontier:
            if depth >= DEPTH or nodes >= BUDGET:
                continue
            penalty = FAULT if first in bad else 0.0
            for m in legal_moves(b):
                if _pointless(b, m):
                    continue
                after = apply_move(b, m)
                if after in seen:
                    continue
                seen.add(after)
                nodes += 1
                value = score(after, me) - penalty - 0.05 * depth
                if value > best_value:
                    best_value, best = value, first
                nxt.append((after, first, depth + 1))
        frontier = nxt
    if best is None and must:
        fill = [m for m in moves if m[0] == CRAPETTE]
        return fill[0] if fill else (moves[0] if moves else None)
    return best
