"""Cards as small ints (K1): `suit * 13 + rank`, rank 0 the Ace ... 12 the King (the
Ace is low, K1.2), suits in the order S H D C (hearts and diamonds red). Two decks
hold each card twice (K1.1): a card is a value, not an identity. `UNKNOWN` stands
for a face-down card a seat cannot see (the bots' reconstructed tables): it fits
nowhere, so no rule ever moves it or puts a card on it.
"""

from __future__ import annotations

from collections.abc import Iterable

RANKS = "A23456789TJQK"
SUITS = "SHDC"
UNKNOWN = 52

RANK: tuple[int, ...] = (*(c % 13 for c in range(52)), -10)
SUIT: tuple[int, ...] = (*(c // 13 for c in range(52)), -10)
RED: tuple[bool, ...] = (*(c // 13 in (1, 2) for c in range(52)), False)
# COLOUR: 0 black, 1 red, -10 unknown (so an unknown card is never "the other colour")
COLOUR: tuple[int, ...] = (*(1 if c // 13 in (1, 2) else 0 for c in range(52)), -10)
TEXT: tuple[str, ...] = (*(RANKS[c % 13] + SUITS[c // 13] for c in range(52)), "??")
_BY_TEXT: dict[str, int] = {t: c for c, t in enumerate(TEXT[:52])}
DECK: tuple[int, ...] = tuple(range(52))


def parse(text: object) -> int:
    """The card of a two-character text ("7D", "TS"); ValueError otherwise."""
    if isinstance(text, str) and text in _BY_TEXT:
        return _BY_TEXT[text]
    raise ValueError(f"not a card: {text!r}")


def text(card: int | None) -> str | None:
    """The wire text of a card, None for None."""
    return None if card is None else TEXT[card]


def parse_deck(texts: Iterable[object]) -> tuple[int, ...]:
    """A full deck (K1.1: the 52 cards once each); ValueError otherwise."""
    cards = tuple(parse(t) for t in texts)
    if sorted(cards) != list(DECK):
        raise ValueError("a deck is the 52 cards, each once (K1.1)")
    return cards


def fits_foundation(card: int, top: int) -> bool:
    """K4.2: an Ace on an empty foundation (`top` -1), else the next rank of its suit."""
    if top < 0:
        return RANK[card] == 0
    return card == top + 1 and RANK[top] < 12


def fits_tableau(card: int, top: int) -> bool:
    """K4.3: one rank lower and of the other colour (`top` -1: an empty pile takes any)."""
    if top < 0:
        return card != UNKNOWN
    return RANK[card] == RANK[top] - 1 and COLOUR[card] + COLOUR[top] == 1


def fits_loading(card: int, top: int) -> bool:
    """K4.4: same suit, one rank above or below; an empty pile (-1) takes nothing."""
    return top >= 0 and SUIT[card] == SUIT[top] >= 0 and abs(card - top) == 1
