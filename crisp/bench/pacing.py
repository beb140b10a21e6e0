"""How fast the clients of `crisp bench` play: a `Pace` gives each move its think
time and says when a seat calls crisp.

`table` (the default) is a real table: game time at its real speed (time scale
1: the 3 s crisp window, the 2 s before the next player may draw, the 10 s
peek, presence leases of 15 s renewed every 3 s), about a second per move,
longer to look at the peeked cards (2x) or at a round's scores (3x), a crisp
call in about one window in twelve (rounds of three laps at four seats), and no
message the server would refuse. `fast` is the earlier stress load: 200 ms per
move at time scale 0.05 (every game duration 20x shorter, presence leases at
their 5 s floor), a call in 15 % of windows: short rounds, many deals.
docs/benchmarks.md compares the two."""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from crisp.engine import ActionType as A

# Think time of each move, in multiples of the pace's base think time.
TABLE_WEIGHTS: Mapping[str, float] = {
    A.READY: 2.0,  # look at the two peeked cards (R16.2)
    "ready_round": 3.0,  # read a round's scores before confirming the next (R16.5)
    A.CRISP: 0.5,  # a call comes early in the 3 s window (R10.4), or not at all
    A.QUEEN: 1.5,  # pick two cards
    A.REMATCH: 3.0,
    "react": 0.25,  # from the moment a draw becomes allowed to the tap (R10.4)
}
FAST_WEIGHTS: Mapping[str, float] = {A.CRISP: 0.1, "react": 0.0}


@dataclass(frozen=True)
class Pace:
    """A load's pacing: the base think time (ms, each think uniform in 0.5x-1.5x of
    its weight times this), the server's time scale, the chance of calling crisp
    in one's own window, and the margin (game ms) kept before a deadline: a move
    that would arrive closer to its deadline than that is not sent."""

    name: str
    think_ms: float
    time_scale: float
    crisp_chance: float
    weights: Mapping[str, float] = field(default_factory=dict)
    margin_ms: float = 250.0

    def think(self, kind: str, rng: random.Random) -> float:
        """Seconds a player thinks before the move `kind`."""
        return self.think_ms / 1000 * self.weights.get(kind, 1.0) * (0.5 + rng.random())

    def react(self, rng: random.Random) -> float:
        """Seconds from the moment a move becomes allowed to the tap."""
        return self.think("react", rng)

    def deadline_margin_ms(self) -> float:
        """Real ms kept before a move's deadline (the margin at this time scale)."""
        return self.margin_ms * self.time_scale


PACES: dict[str, Pace] = {
    "table": Pace("table", 1000.0, 1.0, 1 / 12, TABLE_WEIGHTS),
    "fast": Pace("fast", 200.0, 0.05, 0.15, FAST_WEIGHTS),
}


def pace_for(name: str, *, think_ms: float | None = None, time_scale: float | None = None,
             crisp_chance: float | None = None) -> Pace:  # fmt: skip
    """The pace `name`, with any of its figures overridden."""
    pace = PACES[name]
    return replace(
        pace,
        think_ms=pace.think_ms if think_ms is None else think_ms,
        time_scale=pace.time_scale if time_scale is None else time_scale,
        crisp_chance=pace.crisp_chance if crisp_chance is None else crisp_chance,
    )
