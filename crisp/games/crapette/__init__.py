"""Crapette (Russian Bank), the game `crapette`: crapette-rules.md K1-K10 behind the
table's `Game` interface (protocol.md "v2 additions" / "Crapette").

Modules, one job each: `vocabulary` (wire names), `cards` (cards as ints),
`board` (the table's cards, pile names), `moves` (what is legal, K4), `play`
(what a move and a turn do, K3-K5.1), `setup` (the deal and who starts, K2),
`faults` (the fault finder and the judging of calls, K6), `state`, `actions`
(client messages), `events`, `reducer` (the transitions), `view`, `codec` (JSON),
`game` (the adapter) and `bots/`.
"""

from .game import GAME, Crapette

__all__ = ["GAME", "Crapette"]
