"""The fault finder (K6.2-K6.4): which moves of a turn a "Crapette!" can catch, and
how a call is judged.

A **qualifying sequence** (K6.3) of a position: at most 3 legal moves whose last
one puts a card on a foundation from a tableau top, the mover's crapette or the
turned card, every step using only cards face up in the position. Moving the
turned card or a crapette top reveals a hidden card, so such a step can only be
the last one. **Decision:** taking the top of the opponent's crapette or waste
(K4.5) uncovers a card the table does not show (K8.2: the crapette's face-down
cards; the waste below its top is shown only as a count), so it too can only be a
last step; as no qualifying sequence ends with one, only tableau tops move before
the last step. `first_steps` finds, for each legal move, the shortest qualifying
sequence that begins with it; tests/games/crapette checks it against a brute-force
search of every move sequence.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .board import CRAPETTE, FOUNDATION, TABLEAU, TURNED, Board, Move
from .moves import legal_moves, refusal
from .play import apply_move
from .vocabulary import Calls, Fault

DEPTH = 3  # K6.3: at most 3 moves (a Decision)


@dataclass(frozen=True)
class Faults:
    """What a move was, judged in the position before it under the room's mode:
    `obvious` (K6.2), `combination` (K6.3: qualifying sequences existed and none
    began with it), `priority` (K6.4: a move of a better priority was available),
    `needs_show` (K6.4: the only better moves began qualifying sequences of 2 or 3
    moves) and `shortest` (the length of the shortest qualifying sequence, 0: none)."""

    obvious: bool = False
    combination: bool = False
    priority: bool = False
    needs_show: bool = False
    shortest: int = 0

    @property
    def any(self) -> bool:
        return self.obvious or self.combination or self.priority


NONE = Faults()


def direct(board: Board) -> bool:
    """K6.2: the crapette top, the turned card or a tableau top fits a foundation."""
    need: set[int] = set()
    empty = False
    for t in board.foundations:
        if t < 0:
            empty = True
        elif t % 13 < 12:
            need.add(t + 1)
    cr = board.crapette[board.mover]
    cards = [p[-1] for p in board.tableau if p]
    cards.append(board.turned)
    if cr:
        cards.append(cr[-1])
    return any(c >= 0 and (c in need or (empty and c % 13 == 0)) for c in cards)


def _last(move: Move) -> bool:
    """A qualifying sequence's last step: to a foundation from one's own cards."""
    return move[1] >= FOUNDATION and (move[0] in (CRAPETTE, TURNED) or move[0] >= TABLEAU)


def _within(board: Board, depth: int) -> bool:
    """A qualifying sequence of at most `depth` moves exists from `board`."""
    if direct(board):
        return True
    if depth <= 1:
        return False
    return any(TABLEAU <= m[0] < FOUNDATION and _within(apply_move(board, m), depth - 1)
               for m in legal_moves(board))  # fmt: skip


def first_steps(board: Board, depth: int = DEPTH) -> dict[Move, int]:
    """Each legal move that begins a qualifying sequence -> the length of the
    shortest such sequence."""
    out: dict[Move, int] = {}
    for m in legal_moves(board):
        if _last(m):
            out[m] = 1
        elif TABLEAU <= m[0] < FOUNDATION:
            after = apply_move(board, m)
            for n in range(1, depth):
                if _within(after, n):
                    out[m] = n + 1
                    break
    return out


def priority(move: Move, steps: dict[Move, int], shortest: int) -> int:
    """K6.4: 1 to a foundation or the first step of a shortest qualifying sequence,
    2 the crapette top elsewhere, 3 the turned card elsewhere, 4 anything else."""
    if move[1] >= FOUNDATION or (shortest and steps.get(move) == shortest):
        return 1
    return 2 if move[0] == CRAPETTE else 3 if move[0] == TURNED else 4


def assess(board: Board, move: Move, mode: Calls) -> Faults:
    """The faults `move` makes in `board` under `mode` (K6.2-K6.4)."""
    if mode == Calls.OFF or move[1] >= FOUNDATION:
        return NONE
    obvious = direct(board)
    if mode == Calls.OBVIOUS:
        return Faults(obvious=obvious)
    steps = first_steps(board)
    shortest = min(steps.values(), default=0)
    combination = bool(steps) and move not in steps
    if mode == Calls.COMBINATION:
        return Faults(obvious, combination, shortest=shortest)
    mine = priority(move, steps, shortest)
    better = [m for m in legal_moves(board) if priority(m, steps, shortest) < mine]
    needs_show = bool(better) and all(m[1] < FOUNDATION and priority(m, steps, shortest) == 1
                                      for m in better)  # fmt: skip
    return Faults(obvious, combination, bool(better), needs_show, shortest)


class IllegalShow(ValueError):
    """A shown step that is not a legal move where it stands (`rule` forbids it)."""

    def __init__(self, index: int, rule: str) -> None:
        super().__init__(f"step {index + 1} of the shown sequence is not a legal move")
        self.index = index
        self.rule = rule


def qualifies(board: Board, show: Sequence[Move]) -> bool:
    """K6.3: `show` is a qualifying sequence of `board`; IllegalShow when a step is
    not a legal move at all."""
    for i, move in enumerate(show):
        rule = refusal(board, move)
        if rule is not None:
            raise IllegalShow(i, rule)
        board = apply_move(board, move)
    if not 1 <= len(show) <= DEPTH or not _last(show[-1]):
        return False
    return all(TABLEAU <= m[0] < FOUNDATION for m in show[:-1])


def judge(mode: Calls, faults: Faults, shown: bool, shown_length: int) -> Fault | None:
    """K6.3-K6.5: the fault a call names (None: a wrong call). `shown`: the call's
    `show` qualifies in the position before the called move (of `shown_length`)."""
    if faults.obvious:
        return Fault.OBVIOUS
    if mode == Calls.OBVIOUS:
        return None
    if shown and faults.combination:
        return Fault.COMBINATION
    if mode == Calls.STRICT and faults.priority and (
            not faults.needs_show or (shown and shown_length == faults.shortest)):
        return Fault.PRIORITY
    return None


def missed(board: Board, move: Move, mode: Calls, show: Sequence[Move] | None) -> Move | None:
    """For a right call, the move the mover should have made instead (shown to both
    players): the shown sequence's first step, else a card that could go straight
    up (K6.2), else a move of a better priority (K6.4)."""
    if show:
        return show[0]
    legal = legal_moves(board)
    for m in legal:
        if _last(m):
            return m
    if mode != Calls.STRICT:
        return None
    steps = first_steps(board)
    shortest = min(steps.values(), default=0)
    mine = priority(move, steps, shortest)
    return min(legal, key=lambda m: priority(m, steps, shortest), default=None) if any(
        priority(m, steps, shortest) < mine for m in legal) else None


def faulty(board: Board, mode: Calls) -> set[Move]:
    """Every legal move of `board` that would be a fault under `mode` (for the bots:
    `assess` of each move, computed once)."""
    legal = legal_moves(board)
    if mode == Calls.OFF:
        return set()
    if direct(board):
        return {m for m in legal if m[1] < FOUNDATION}
    if mode == Calls.OBVIOUS:
        return set()
    steps = first_steps(board)
    shortest = min(steps.values(), default=0)
    if mode == Calls.COMBINATION:
        return {m for m in legal if m[1] < FOUNDATION and m not in steps} if steps else set()
    best = min((priority(m, steps, shortest) for m in legal), default=4)
    return {m for m in legal if priority(m, steps, shortest) > best or (
        steps and m[1] < FOUNDATION and m not in steps)}


def sequence(board: Board, first: Move | None = None) -> list[Move] | None:
    """A shortest qualifying sequence of `board` (beginning with `first` when given),
    or None: what a caller shows (K6.3)."""
    best: list[Move] | None = None
    for m in legal_moves(board) if first is None else [first]:
        if _last(m):
            return [m]
        if TABLEAU <= m[0] < FOUNDATION:
            after = apply_move(board, m)
            for n in range(1, DEPTH):
                if best is not None and n + 1 >= len(best):
                    break
                rest = _path(after, n)
                if rest is not None:
                    best = [m, *rest]
                    break
    return best


def _path(board: Board, depth: int) -> list[Move] | None:
    for m in legal_moves(board):
        if _last(m):
            return [m]
    if depth <= 1:
        return None
    for m in legal_moves(board):
        if TABLEAU <= m[0] < FOUNDATION:
            rest = _path(apply_move(board, m), depth - 1)
            if rest is not None:
                return [m, *rest]
    return None
