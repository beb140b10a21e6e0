"""K6.2-K6.4: the fault finder against a brute-force search (brute.py).

On each position, every move sequence of up to 3 moves (K6.3's depth) is
enumerated; the qualifying sequences, the faults of every legal move under each
mode (K6.2 obvious, K6.3 combination, K6.4 strict) and the judgement of a call
with qualifying sequences shown (and with a sequence that does not qualify, and
with none) are read off that enumeration literally, and compared with
`faults.assess`, `faults.qualifies` and `faults.judge`.

The default run checks the corpus (fault_corpus.json, ~400 positions that
make_fault_corpus.py kept out of 40,000 random ones because they show every
feature of the brute force's answers at least 4 times) and 200 fresh random
positions; the soak step (`pytest -m soak`) checks 10,000 random positions
(docs/testing.md, "What was done: the games' and the engine's tests").
"""

from __future__ import annotations

import os
import random
from collections import Counter
from collections.abc import Hashable

import pytest

from crisp.games.crapette.board import Board
from crisp.games.crapette.faults import assess, faulty, first_steps, qualifies, sequence
from crisp.games.crapette.moves import legal_moves
from crisp.games.crapette.vocabulary import Calls, Fault
from tests.games.crapette.brute import MODES, check, corpus, small_position

POSITIONS = int(os.environ.get("CRAPETTE_POSITIONS", "10000"))  # the soak's
SAMPLE = 200  # fresh random positions in the default run, besides the corpus


def test_k6_2_k6_3_k6_4_fault_finder_agrees_with_brute_force_on_the_corpus() -> None:
    rng = random.Random(20261205)
    seen: Counter[Hashable] = Counter()
    boards = corpus()
    for board in boards:
        check(board, rng, seen)
    assert len(boards) > 300
    for mode in MODES:  # the positions bite: every verdict of each mode, many times
        assert seen[mode, "fault"] > 500, (mode, seen)
        verdicts = {Calls.OBVIOUS: [Fault.OBVIOUS, None],
                    Calls.COMBINATION: [Fault.OBVIOUS, Fault.COMBINATION, None],
                    Calls.STRICT: [*Fault, None]}[mode]
        assert all(seen[mode, v] > 100 for v in verdicts), (mode, seen)


def test_k6_2_k6_3_k6_4_fault_finder_agrees_with_brute_force_on_200_random_positions() -> None:
    rng = random.Random(20261206)
    seen: Counter[Hashable] = Counter()
    for _ in range(SAMPLE):
        check(small_position(rng), rng, seen)
    assert all(seen[mode, "fault"] > 20 for mode in MODES), seen


@pytest.mark.soak
def test_k6_2_k6_3_k6_4_fault_finder_agrees_with_brute_force_on_10000_positions() -> None:
    """The soak step's (`pytest -m soak`): 10,000 random positions, ~20 s of CPU."""
    rng = random.Random(20261205)
    seen: Counter[Hashable] = Counter()
    for _ in range(POSITIONS):
        check(small_position(rng), rng, seen)
    assert all(seen[mode] >= POSITIONS for mode in MODES)
    assert all(seen[mode, "fault"] > 1000 for mode in MODES), seen  # the positions bite


def _faulty_and_sequence(boards: list[Board]) -> None:
    for board in boards:
        for mode in (Calls.OFF, *MODES):
            assert faulty(board, mode) == {m for m in legal_moves(board)
                                           if assess(board, m, mode).any}  # fmt: skip
        steps = first_steps(board)
        shown = sequence(board)
        assert (shown is None) == (not steps)
        if shown is not None:
            assert qualifies(board, shown) and len(shown) == min(steps.values())


def test_k6_faulty_and_sequence_agree_with_assess_and_first_steps() -> None:
    """What the bots use: `faulty` (every fault at once) and `sequence` (what to show),
    on the corpus and 100 random positions."""
    rng = random.Random(77)
    _faulty_and_sequence([*corpus(), *(small_position(rng) for _ in range(100))])


@pytest.mark.soak
def test_k6_faulty_and_sequence_agree_with_assess_and_first_steps_on_1500_positions() -> None:
    """The soak step's: the same on 1500 random positions."""
    rng = random.Random(77)
    _faulty_and_sequence([small_position(rng) for _ in range(1500)])
