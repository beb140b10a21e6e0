"""The deal (K2.1, K2.2, K10) and who starts (K2.3)."""

from __future__ import annotations

from collections.abc import Sequence

from ..api import Rng
from .board import Board, Cards
from .cards import DECK, RANK
from .play import draw_turned

CRAPETTE_SIZE = 13  # K2.1
TABLEAU_PER_SEAT = 4


def shuffled_decks(rng: Rng) -> tuple[Cards, Cards]:
    """K2.1: each player's own deck, shuffled (index 0 is the top)."""
    decks = []
    for _ in range(2):
        deck = list(DECK)
        rng.shuffle(deck)
        decks.append(tuple(deck))
    return decks[0], decks[1]


def deal(decks: Sequence[Cards]) -> Board:
    """K2.1, K10: from each deck's top (index 0), 13 cards form the crapette (card 0
    on top), the next 4 one per tableau pile of the seat (seat 0: piles 0-3, seat 1:
    4-7), the other 35 the stock (card 17 on top); wastes and foundations empty.
    Nobody moves yet (`mover` 0, no turned card): `first` says who starts."""
    crapette = tuple(tuple(reversed(d[:CRAPETTE_SIZE])) for d in decks)
    stock = tuple(tuple(reversed(d[CRAPETTE_SIZE + TABLEAU_PER_SEAT:])) for d in decks)
    tableau = tuple((d[CRAPETTE_SIZE + i],) for d in decks for i in range(TABLEAU_PER_SEAT))
    return Board(crapette=(crapette[0], crapette[1]), stock=(stock[0], stock[1]),
                 waste=((), ()), tableau=tableau, foundations=(-1,) * 8, mover=0, turned=-1)


def first(board: Board, rng: Rng) -> tuple[int, bool]:
    """K2.3: the seat whose crapette top has the higher rank; on a tie, the seat with
    the higher tableau cards compared highest first, then the next...; if all four
    are equal, chosen at random. Also says whether the draw was random."""
    tops = [RANK[board.crapette[s][-1]] for s in (0, 1)]
    if tops[0] != tops[1]:
        return (0 if tops[0] > tops[1] else 1), False
    dealt = [sorted((RANK[p[0]] for p in board.tableau[4 * s:4 * s + 4]), reverse=True)
             for s in (0, 1)]  # fmt: skip
    if dealt[0] != dealt[1]:
        return (0 if dealt[0] > dealt[1] else 1), False
    return rng.randrange(2), True


def opening(decks: Sequence[Cards], rng: Rng) -> Board:
    """The dealt table with the first player's turned card (K2.3, K3.1)."""
    board = deal(decks)
    seat, _ = first(board, rng)
    return draw_turned(board._replace(mover=seat))
