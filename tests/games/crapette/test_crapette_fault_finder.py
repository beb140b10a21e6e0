"""K6.2-K6.4: the fault finder against a brute-force search.

On 10,000 random small positions, every move sequence of up to 3 moves (K6.3's
depth) is enumerated; the qualifying sequences, the faults of every legal move
under each mode (K6.2 obvious, K6.3 combination, K6.4 strict) and the judgement
of a call with every qualifying sequence shown (and with a sequence that does
not qualify, and with none) are read off that enumeration literally, and
compared with `faults.assess`, `faults.qualifies` and `faults.judge`.
"""

from __future__ import annotations

import os
import random
from collections.abc import Iterator

from crisp.games.crapette.board import CRAPETTE, FOUNDATION, TABLEAU, TURNED, Board, Move
from crisp.games.crapette.faults import Faults, assess, judge, qualifies
from crisp.games.crapette.moves import legal_moves
from crisp.games.crapette.play import apply_move
from crisp.games.crapette.vocabulary import Calls, Fault

POSITIONS = int(os.environ.get("CRAPETTE_POSITIONS", "10000"))
DEPTH = 3


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


def brute(board: Board, move: Move, mode: Calls, found: set[tuple[Move, ...]]) -> Faults:
    """The faults of `move`, from the enumeration `found` of qualifying sequences."""
    legal = legal_moves(board)
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


def test_k6_2_k6_3_k6_4_fault_finder_agrees_with_brute_force_on_10000_positions() -> None:
    rng = random.Random(20261205)
    seen = {mode: 0 for mode in (Calls.OBVIOUS, Calls.COMBINATION, Calls.STRICT)}
    faults_seen = {mode: 0 for mode in seen}
    for _ in range(POSITIONS):
        board = small_position(rng)
        every = list(sequences(board, DEPTH))
        found = {s for s in every if literally_qualifies(s)}
        not_qualifying = [s for s in every if s not in found]
        for s in rng.sample(every, min(len(every), 20)):  # the finder's check of a show
            assert qualifies(board, s) == (s in found), (board, s)
        shows = [None, *rng.sample(sorted(found), min(len(found), 4)),
                 *rng.sample(not_qualifying, min(len(not_qualifying), 2))]
        for mode in seen:
            seen[mode] += 1
            for move in legal_moves(board):
                mine, theirs = assess(board, move, mode), brute(board, move, mode, found)
                assert mine == theirs, (mode, board, move, mine, theirs)
                faults_seen[mode] += mine.any
                for show in shows:
                    length = 0 if show is None else len(show)
                    ok = show is not None and show in found
                    assert judge(mode, mine, ok, length) == brute_judge(mode, mine, show, found)
    assert all(n >= POSITIONS for n in seen.values())
    assert all(n > 1000 for n in faults_seen.values()), faults_seen  # the positions bite


def test_k6_faulty_and_sequence_agree_with_assess_and_first_steps() -> None:
    """What the bots use: `faulty` (every fault at once) and `sequence` (what to show)."""
    from crisp.games.crapette.faults import faulty, first_steps, sequence

    rng = random.Random(77)
    for _ in range(1500):
        board = small_position(rng)
        for mode in (Calls.OFF, Calls.OBVIOUS, Calls.COMBINATION, Calls.STRICT):
            assert faulty(board, mode) == {m for m in legal_moves(board)
                                           if assess(board, m, mode).any}  # fmt: skip
        steps = first_steps(board)
        shown = sequence(board)
        assert (shown is None) == (not steps)
        if shown is not None:
            assert qualifies(board, shown) and len(shown) == min(steps.values())
