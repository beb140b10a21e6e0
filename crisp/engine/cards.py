"""Cards as small immutable values with a two-character text form (R1.2, R1.3).

`Card.parse("TD")` and `str(card) == "TD"`. There are exactly 52 card objects,
created once, so cards compare by identity and cost nothing to copy.
"""

from __future__ import annotations

from collections.abc import Iterable

RANKS = "A23456789TJQK"
SUITS = "SHDC"
FACE_RANKS = frozenset("JQK")


class Card:
    """One of the 52 cards. Use `Card.parse`; never construct directly."""

    __slots__ = ("face", "rank", "suit", "text", "value")

    rank: str
    suit: str
    text: str
    value: int
    face: bool

    def __init__(self, rank: str, suit: str) -> None:
        self.rank = rank
        self.suit = suit
        self.text = rank + suit
        # R1.3: Ace = 1, 2..9 face value, 10/J/Q/K = 10.
        self.value = 1 if rank == "A" else 10 if rank in "TJQK" else int(rank)
        # R1.4/R6: J, Q and K are the special cards.
        self.face = rank in FACE_RANKS

    @staticmethod
    def parse(text: str) -> Card:
        """The card for a text such as "TD"; ValueError for anything else."""
        try:
            return _BY_TEXT[text]
        except (KeyError, TypeError):
            raise ValueError(f"not a card: {text!r}") from None

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Card({self.text})"

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (Card.parse, (self.text,))


FULL_DECK: tuple[Card, ...] = tuple(Card(r, s) for s in SUITS for r in RANKS)
_BY_TEXT: dict[str, Card] = {c.text: c for c in FULL_DECK}


def parse_deck(texts: Iterable[str]) -> list[Card]:
    """A complete deck from 52 distinct card texts (R1.2); ValueError otherwise."""
    cards = [Card.parse(t) for t in texts]
    if len(cards) != 52 or len(set(cards)) != 52:
        raise ValueError("a deck is 52 distinct cards")
    return cards


def card_text(card: Card | None) -> str | None:
    """The text form of a card, or None."""
    return None if card is None else card.text
