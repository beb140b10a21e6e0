"""Computer players (R17.1): one policy for every seat the server plays.

A bot sees exactly what a human in its seat sees: the view and the redacted
events of the updates sent to that seat. It keeps a `Memory` of them and asks
`decide(view, memory, now, rng)` (an engine action) or `choose(...)` (the same
move as a protocol message) what to do; `act_at` says when. See docs/bots.md.

    memory = Memory("p3", level="normal")
    memory.observe(view, events)              # every update the seat receives
    at = act_at(view, now, rng, time_scale)   # when to ask (None: nothing to do)
    action = decide(view, memory, at, rng)    # at that time, with the view then

Levels: "easy", "normal", and "random" (uniform over legal moves, for load
generators and fuzzing). `random_move(view, rng)` is the random policy alone,
without a memory.
"""

from .memory import LEVELS, Memory
from .moves import Message, random_message, random_move
from .policy import choose, decide
from .timing import CRISP_THINK_MS, THINK_MS, act_at, think_ms

__all__ = [
    "CRISP_THINK_MS", "LEVELS", "THINK_MS", "Memory", "Message", "act_at", "choose", "decide",
    "random_message", "random_move", "think_ms",
]
