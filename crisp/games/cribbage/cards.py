"""Cards (C1.2, C1.3): the protocol's two-character texts ("TS", "5H"), with
their rank index (A = 0 .. K = 12, the Ace always low), suit and count value."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

RANKS = "A23456789TJQK"
SUITS = "SHDC"
DECK: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS)
_DECK_SET = frozenset(DECK)
JACK = RANKS.index("J")


def is_card(text: object) -> bool:
    """Whether `text` is one of the 52 card texts."""
    return isinstance(text, str) and text in _DECK_SET


def rank(card: str) -> int:
    """0 for an Ace .. 12 for a King (C1.2)."""
    return RANKS.index(card[0])


def suit(card: str) -> str:
    return card[1]


def value(card: str) -> int:
    """The count value (C1.3): A = 1, 2..10 face value, J Q K = 10."""
    return min(rank(card) + 1, 10)


def rank_value(r: int) -> int:
    """The count value of a rank index."""
    return min(r + 1, 10)


def check_deck(cards: Sequence[str]) -> tuple[str, ...]:
    """A test deck (protocol: 52 distinct cards); ValueError otherwise."""
    if len(cards) != 52 or set(cards) != _DECK_SET:
        raise ValueError("a deck is 52 distinct cards")
    return tuple(cards)


def unseen(known: Iterable[str]) -> list[str]:
    """The cards of the deck not in `known`, in deck order."""
    seen = set(known)
    return [c for c in DECK if c not in seen]
