"""A bot sitting at a test table (tests/engine/helpers.Game): it receives exactly the
updates a server would send its seat, and answers with `choose`.

    g = start(hands=..., stock=...)
    bot = BotSeat(g, "p1")          # reads every update of g so far
    assert bot.choose() == {"type": "draw", "source": "stock"}
    bot.play()                      # choose, then apply it to g
"""

from __future__ import annotations

import random
from typing import Any

from crisp.bots import Memory, choose
from tests.engine.helpers import Game, seen_by


class BotSeat:
    """One seat's memory, fed from a Game's event log (redacted for the seat)."""

    def __init__(self, g: Game, player: str, level: str = "normal", seed: int = 0) -> None:
        self.g = g
        self.player = player
        self.memory = Memory(player, level)
        self.rng = random.Random(seed)
        self.read = 0

    def sync(self) -> None:
        """Take in every update since the last one (events, then the view)."""
        events = seen_by(self.g.log[self.read:], self.player)
        self.read = len(self.g.log)
        self.memory.observe(self.g.view(self.player), events)

    def choose(self) -> dict[str, Any] | None:
        self.sync()
        return choose(self.g.view(self.player), self.memory, self.g.now, self.rng)

    def play(self) -> dict[str, Any] | None:
        """Choose and apply; the message sent (None if the bot passed)."""
        message = self.choose()
        if message is not None:
            fields = {k: v for k, v in message.items() if k != "type"}
            self.g.act(self.player, message["type"], **fields)
            self.sync()
        return message
