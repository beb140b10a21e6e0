"""K6.2-K6.4 by brute force, for the fault finder's tests (test_crapette_fault_finder.py)
and the generator of their corpus (make_fault_corpus.py).

For a position, every move sequence of up to 3 moves (K6.3's depth) is enumerated;
the qualifying sequences, the faults of every legal move under each mode (K6.2
obvious, K6.3 combination, K6.4 strict) and the judgement of a call with a
qualifying sequence shown (and with a sequence that does not qualify, and with
none) are read off that enumeration literally, and compared with `faults.assess`,
`faults.qualifies` and `faults.judge` (`check`).
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Hashable, Iterator
from pathlib import Path

from crisp.games.crapette.board import (
    CRAPETTE,
    FOUNDATION,
    TABLEAU,
    TURNED,
    Board,
    Move,
)
from crisp.games.crapette.faults import Faults, assess, judge, qualifies
from crisp.games.crapette.moves import legal_moves
from crisp.games.crapette.play import apply_move
from crisp.games.crapette.vocabulary import Calls, Fault

DEPTH = 3
MODES = (Calls.OBVIOUS, Calls.COMBINATION, Calls.STRICT)
CORPUS = Path(__file__).with_name("fault_corpus.json")


def small_position(rng: random.Random) -> Board:
    """A few low cards (Ace to 6) so that foundations, tableau moves and loading meet."""

    def card() -> int:
        return rng.randrange(4) * 13 + rng.randrange(6)

    def pile(most: int) -> tuple[int, ...]:
        return tuple(card() for _ in range(rng.randrange(most + 1)))

    def tableau_pile() -> tuple[int, ...]:
        r = rng.random()  # a King moves nowhere but to an empty pile: it keeps a pile quiet
        return () if r < 0.05 else (12 + 13 * rng.randrange(4),) if r < 0.75 else (
            (card(), card())[:rng.randrange(1, 3)])

    tableau = tuple(tableau_pile() for _ in range(8))
    foundations = tuple(-1 if rng.random() < 0.2 else rng.randrange(4) * 13 + rng.randrange(5)
                        for _ in range(8))  # fmt: skip
    own = () if rng.random() < 0.5 else pile(2)
    return Board((own, pile(2)), (pile(1), pile(1)), (pile(2), pile(2)), tableau,
                 foundations, 0, card() if rng.random() < 0.7 else -1)


def sequences(board: Board, depth: int) -> Iterator[tuple[Move, ...]]:
    """Every sequence of 1..depth legal moves from `board`."""
    for m in legal_moves(board):
        yield (m,)
        if depth > 1:
            for rest in sequences(apply_move(board, m), depth - 1):
                yield (m, *rest)


def literally_qualifies(seq: tuple[Move, ...]) -> bool:
    """K6.3, read literally: the last move puts a card on a foundation from a tableau
    top, the mover's crapette or the turned card; a step that reveals a hidden card
    (the turned card, a crapette top; the opponent's piles, the Decision) comes last."""
    last = seq[-1]
    own = last[0] in (CRAPETTE, TURNED) or TABLEAU <= last[0] < FOUNDATION
    return last[1] >= FOUNDATION and own and all(TABLEAU <= m[0] < FOUNDATION
                                                 for m in seq[:-1])  # fmt: skip


def brute(legal: list[Move], move: Move, mode: Calls, found: set[tuple[Move, ...]]) -> Faults:
    """The faults of `move` (one of `legal`), from the enumeration `found` of
    qualifying sequences."""
    if mode == Calls.OFF or move[1] >= FOUNDATION:
        return Faults()
    straight = any(m[1] >= FOUNDATION and (m[0] in (CRAPETTE, TURNED) or m[0] >= TABLEAU)
                   for m in legal)  # fmt: skip
    if mode == Calls.OBVIOUS:
        return Faults(obvious=straight)
    shortest = min((len(s) for s in found), default=0)
    combination = bool(found) and move not in {s[0] for s in found}
    if mode == Calls.COMBINATION:
        return Faults(straight, combination, shortest=shortest)

    shortest_first = {s[0] for s in found if len(s) == shortest}

    def prio(m: Move) -> int:
        if m[1] >= FOUNDATION or m in shortest_first:
            return 1
        return {CRAPETTE: 2, TURNED: 3}.get(m[0], 4)

    better = [m for m in legal if prio(m) < prio(move)]
    needs = bool(better) and all(prio(m) == 1 and m[1] < FOUNDATION for m in better)
    return Faults(straight, combination, bool(better), needs, shortest)


def brute_judge(mode: Calls, f: Faults, show: tuple[Move, ...] | None,
                found: set[tuple[Move, ...]]) -> Fault | None:
    """K6.3-K6.5 as the rules file words them, on the enumeration."""
    shown = show is not None and show in found
    if f.obvious:
        return Fault.OBVIOUS
    if mode == Calls.OBVIOUS:
        return None
    if shown and f.combination:
        return Fault.COMBINATION
    if mode == Calls.STRICT and f.priority:
        if not f.needs_show:
            return Fault.PRIORITY
        if show is not None and shown and len(show) == min(len(s) for s in found):
            return Fault.PRIORITY
    return None


class Enumeration:
    """A position's every sequence of up to DEPTH moves, and those that qualify."""

    def __init__(self, board: Board) -> None:
        self.board = board
        self.legal = legal_moves(board)
        self.every = list(sequences(board, DEPTH))
        self.found = {s for s in self.every if literally_qualifies(s)}
        self.not_qualifying = [s for s in self.every if s not in self.found]


def check(board: Board, rng: random.Random, seen: Counter[Hashable]) -> None:
    """The finder against the brute force on `board`: `qualifies` on 20 of its
    sequences, `assess` on every legal move under each mode, `judge` with no show,
    4 qualifying shows and 2 that do not qualify. Counts in `seen` the faults and
    verdicts met, by mode."""
    e = Enumeration(board)
    for s in rng.sample(e.every, min(len(e.every), 20)):  # the finder's check of a show
        assert qualifies(board, s) == (s in e.found), (board, s)
    shows = [None, *rng.sample(sorted(e.found), min(len(e.found), 4)),
             *rng.sample(e.not_qualifying, min(len(e.not_qualifying), 2))]
    for mode in MODES:
        seen[mode] += 1
        for move in e.legal:
            mine, theirs = assess(board, move, mode), brute(e.legal, move, mode, e.found)
            assert mine == theirs, (mode, board, move, mine, theirs)
            seen[mode, "fault"] += mine.any
            for show in shows:
                length = 0 if show is None else len(show)
                ok = show is not None and show in e.found
                verdict = judge(mode, mine, ok, length)
                assert verdict == brute_judge(mode, mine, show, e.found), (mode, board, show)
                seen[mode, verdict] += 1


# The corpus (make_fault_corpus.py): positions kept for what the brute force says of
# them, until each feature is met a few times, out of many random ones.

def _kind(board: Board, move: Move) -> tuple[int, int]:
    """A move's shape: where from (crapette, turned, tableau, the opponent's piles)
    and where to (foundation, a pile with cards, an empty pile, the opponent's piles)."""
    src, dst = move
    frm = min(src, TABLEAU)
    to = FOUNDATION if dst >= FOUNDATION else (
        TABLEAU + bool(board.tableau[dst - TABLEAU]) if dst >= TABLEAU else dst)
    return frm, to


def features(e: Enumeration) -> set[Hashable]:
    """What the brute force says of a position, without its cards: the faults of each
    mode by shape of move, the mix of faults of each mode, the qualifying sequences'
    lengths and shapes, and each mode's verdicts by kind of show. The corpus keeps
    positions until each feature is met a few times."""
    board, found = e.board, e.found
    shortest = min((len(s) for s in found), default=0)
    out: set[Hashable] = set()
    for mode in MODES:
        mix = frozenset(brute(e.legal, m, mode, found) for m in e.legal)
        out.add(("mix", mode, mix, shortest))
        for m in e.legal:
            f = brute(e.legal, m, mode, found)
            out.add(("fault", mode, _kind(board, m), f))
            shows: list[tuple[Move, ...] | None] = [None, *found, *e.not_qualifying[:50]]
            for show in shows:
                kind = None if show is None else (show in found, len(show), len(show) == shortest)
                out.add(("verdict", mode, f, kind, brute_judge(mode, f, show, found)))
    out.update(("shape", len(s), tuple(_kind(board, m) for m in s), len(s) == shortest)
               for s in found)
    return out


def board_json(board: Board) -> list[object]:
    return [list(map(list, board.crapette)), list(map(list, board.stock)),
            list(map(list, board.waste)), list(map(list, board.tableau)),
            list(board.foundations), board.mover, board.turned]


def board_from_json(raw: list[object]) -> Board:
    c, s, w, t, f, mover, turned = raw

    def piles(x: object) -> tuple[tuple[int, ...], ...]:
        assert isinstance(x, list)
        return tuple(tuple(p) for p in x)

    cr, st, wa = piles(c), piles(s), piles(w)
    assert isinstance(f, list) and isinstance(mover, int) and isinstance(turned, int)
    return Board((cr[0], cr[1]), (st[0], st[1]), (wa[0], wa[1]), piles(t), tuple(f),
                 mover, turned)


def corpus() -> list[Board]:
    """The recorded positions (fault_corpus.json)."""
    raw = json.loads(CORPUS.read_text())
    return [board_from_json(b) for b in raw["positions"]]
