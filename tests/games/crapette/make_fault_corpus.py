"""Makes fault_corpus.json, the positions on which the default run checks Crapette's
fault finder against the brute force (test_crapette_fault_finder.py):

    .venv/bin/python -m tests.games.crapette.make_fault_corpus [--positions 40000]

Random small positions (brute.small_position, seeded) are drawn and the brute force
is run on each; a position is kept when it shows a feature (brute.features: a
fault of a mode on a shape of move, a mode's mix of faults, a shape of qualifying
sequence, a verdict on a kind of show) that the positions kept so far show fewer
than `--each` times. Most random positions repeat what earlier ones showed (no
fault, one obvious one); the few that show something rare are kept. The choice
reads the brute force only, never the finder under test. Run it again when the
rules of K4 or K6 change (the test still runs on the old positions, but they were
chosen for the old rules).
"""

from __future__ import annotations

import argparse
import json
import random
from collections import Counter
from collections.abc import Hashable

from tests.games.crapette.brute import CORPUS, Enumeration, board_json, features, small_position

SEED = 20261205


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=40_000, help="random positions drawn")
    parser.add_argument("--each", type=int, default=4, help="times each feature is kept")
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args()

    rng = random.Random(args.seed)
    met: Counter[Hashable] = Counter()
    kept: Counter[Hashable] = Counter()
    positions = []
    for _ in range(args.positions):
        board = small_position(rng)
        found = features(Enumeration(board))
        met.update(found)
        if any(kept[f] < args.each for f in found):
            kept.update(found)
            positions.append(board_json(board))
    CORPUS.write_text(json.dumps({
        "made_by": "python -m tests.games.crapette.make_fault_corpus "
                   f"--positions {args.positions} --each {args.each} --seed {args.seed}",
        "features": len(met),
        "positions": positions,
    }, separators=(",", ":")) + "\n")
    print(f"{len(positions)} positions of {args.positions} kept, {len(met)} features "
          f"({sum(1 for n in met.values() if n < args.each)} met fewer than "
          f"{args.each} times in all): {CORPUS}")


if __name__ == "__main__":
    main()
