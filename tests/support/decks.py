"""Stacked test decks (CRISP_TEST_HOOKS): 52 card strings, index 0 = top of the stock.

    deck("AS", "TH", ...)           the given cards on top, the rest in FULL_DECK order
    deck_for(hands={"p1": [...]}, stock=[...], dealer=0)
        the deck that deals `hands` as R2.2 says: one card at a time starting with the
        player after the dealer, three passes; the 1st card a player gets is their
        left, the 2nd their middle, the 3rd their right. `stock` is the top of the
        stock after the deal; the rest is filled with the unused cards, number cards
        first (so a test that draws past its stack does not meet a special card by
        surprise).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from crisp.engine import FULL_DECK

ALL_CARDS: list[str] = [c.text for c in FULL_DECK]
NUMBER_CARDS: list[str] = [c for c in ALL_CARDS if c[0] not in "JQK"]
FACE_CARDS: list[str] = [c for c in ALL_CARDS if c[0] in "JQK"]


def _stack(top: Sequence[str], rest_from: Sequence[str]) -> list[str]:
    """`top`, then the cards of `rest_from` not in it; checks it is one whole deck."""
    assert len(set(top)) == len(top), f"a card is used twice: {list(top)}"
    assert all(c in ALL_CARDS for c in top), f"not a card: {list(top)}"
    out = [*top, *(c for c in rest_from if c not in top)]
    assert sorted(out) == sorted(ALL_CARDS)
    return out


def deck(*top: str) -> list[str]:
    """A 52-card deck whose first cards are `top` (index 0 = top of the stock)."""
    return _stack(top, ALL_CARDS)


def pid(seat: int) -> str:
    """The id of the player at `seat` when nobody was kicked (join order)."""
    return f"p{seat + 1}"


def deal_order(n: int, dealer: int) -> list[tuple[int, int]]:
    """(seat, slot) receiving deck[k], for k = 0 .. 3n-1 (R2.2)."""
    return [((dealer + 1 + k) % n, k // n) for k in range(3 * n)]


def deck_for(
    hands: Mapping[str, Sequence[str | None]] | Sequence[Sequence[str | None]],
    stock: Sequence[str] = (),
    dealer: int = 0,
) -> list[str]:
    """A 52-card test deck that deals `hands` (by player id or in seat order; None =
    any filler card) with `dealer` dealing, followed by `stock` on top of the stock."""
    rows: list[Sequence[str | None]]
    rows = [hands[pid(i)] for i in range(len(hands))] if isinstance(hands, Mapping) else list(hands)
    n = len(rows)
    assert 1 <= n <= 8 and all(len(r) == 3 for r in rows), "three cards for each player"
    wanted = [c for r in rows for c in r if c is not None] + list(stock)
    assert len(set(wanted)) == len(wanted), f"a card is used twice: {wanted}"
    assert all(c in ALL_CARDS for c in wanted), f"not a card: {wanted}"
    filler = iter([c for c in NUMBER_CARDS + FACE_CARDS if c not in wanted])
    deal: list[str] = []
    for seat, slot in deal_order(n, dealer):
        card = rows[seat][slot]
        deal.append(card if card is not None else next(filler))
    return _stack(deal + list(stock), NUMBER_CARDS + FACE_CARDS)
