"""The table's cards (K2.1, K2.2) as one immutable value, and the piles' names.

`Board` holds, per seat (0, 1), the crapette, stock and waste (each bottom card
first, top card last), the 8 tableau piles (seat 0's are 0-3, seat 1's 4-7), the
8 foundations' top cards (-1 while empty: a foundation's cards are its suit's Ace
up to its top, K4.2), the seat to move and its turned card (-1: none; only the
mover ever has one, K3.1). A pile of a move is a small int (`CRAPETTE` ... and
`TABLEAU + i`, `FOUNDATION + i`), relative to the mover as on the wire.
"""

from __future__ import annotations

from typing import NamedTuple

from .vocabulary import Pile

Cards = tuple[int, ...]
PerSeat = tuple[Cards, Cards]
Move = tuple[int, int]  # (source pile, destination pile)

CRAPETTE = 0
TURNED = 1
OPP_CRAPETTE = 2
OPP_WASTE = 3
WASTE = 4
STOCK = 5
TABLEAU = 8
FOUNDATION = 16
TABLEAUS = tuple(range(TABLEAU, TABLEAU + 8))
FOUNDATIONS = tuple(range(FOUNDATION, FOUNDATION + 8))

_NAMED: dict[int, str] = {CRAPETTE: Pile.CRAPETTE, TURNED: Pile.TURNED,
                          OPP_CRAPETTE: Pile.OPPONENT_CRAPETTE,
                          OPP_WASTE: Pile.OPPONENT_WASTE, WASTE: Pile.WASTE,
                          STOCK: Pile.STOCK}  # fmt: skip
NAME: dict[int, str] = {**_NAMED,
                        **{TABLEAU + i: f"{Pile.TABLEAU}:{i}" for i in range(8)},
                        **{FOUNDATION + i: f"{Pile.FOUNDATION}:{i}" for i in range(8)}}
BY_NAME: dict[str, int] = {name: pile for pile, name in NAME.items()}


class Board(NamedTuple):
    """Every card on the table, and who moves (see the module's docstring)."""

    crapette: PerSeat
    stock: PerSeat
    waste: PerSeat
    tableau: tuple[Cards, ...]
    foundations: Cards
    mover: int
    turned: int

    def left(self, seat: int) -> int:
        """K5.1: the cards `seat` still has to get rid of."""
        own = len(self.crapette[seat]) + len(self.stock[seat]) + len(self.waste[seat])
        return own + (1 if seat == self.mover and self.turned >= 0 else 0)


def pair(old: PerSeat, seat: int, cards: Cards) -> PerSeat:
    """`old` with `seat`'s pile replaced by `cards`."""
    return (cards, old[1]) if seat == 0 else (old[0], cards)


def top(cards: Cards) -> int:
    """A pile's top card, -1 when empty."""
    return cards[-1] if cards else -1


def move_name(move: Move) -> dict[str, str]:
    """A move as the wire writes it: {"from": ..., "to": ...}."""
    return {"from": NAME[move[0]], "to": NAME[move[1]]}


def foundation_cards(top_card: int) -> int:
    """How many cards a foundation with this top holds (K4.2: Ace up to the top)."""
    return 0 if top_card < 0 else top_card % 13 + 1
