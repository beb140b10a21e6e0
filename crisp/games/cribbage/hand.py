"""A hand's beginning: the cut for the first dealer (C3.1), the deal (C3.3),
giving to the crib (C3.4) and the starter with his heels (C4)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ..api import Event, Rng
from .board import add_points, check_over
from .cards import DECK, JACK, rank
from .errors import illegal, wrong_phase
from .items import Item
from .options import scaled
from .state import State
from .vocabulary import EventKind, ItemKind, Status


def cards_each(n: int) -> int:
    """C3.3: 6 cards each with 2 players, 5 with 3 or 4."""
    return 6 if n == 2 else 5


def give_count(n: int) -> int:
    """C3.4: 2 cards each to the crib with 2 players, 1 with 3 or 4."""
    return 2 if n == 2 else 1


def cut_for_dealer(players: Sequence[str], rng: Rng, events: list[Event]) -> int:
    """C3.1: everyone cuts; the lowest rank deals; those tied for lowest cut again."""
    contenders = list(range(len(players)))
    while True:
        deck = list(DECK)
        rng.shuffle(deck)
        cuts = {seat: deck[i] for i, seat in enumerate(contenders)}
        low = min(rank(c) for c in cuts.values())
        tied = [s for s, c in cuts.items() if rank(c) == low]
        dealer = tied[0] if len(tied) == 1 else None
        events.append(Event(EventKind.CUT, {
            "cuts": {players[s]: c for s, c in cuts.items()},
            "dealer": None if dealer is None else players[dealer]}))
        if dealer is not None:
            return dealer
        contenders = tied


def deal(state: State, now: int, rng: Rng, events: list[Event]) -> State:
    """A new hand dealt by `state.dealer` (C3.3): one card at a time from the player
    after the dealer to the dealer; with 3 players one more to the crib."""
    n = state.n
    decks = state.decks
    if decks:
        deck, decks = list(decks[0]), decks[1:]
    else:
        deck = list(DECK)
        rng.shuffle(deck)
    hands: list[list[str]] = [[] for _ in range(n)]
    i = 0
    for i in range(cards_each(n) * n):
        hands[(state.dealer + 1 + i) % n].append(deck[i])
    i = cards_each(n) * n
    crib: tuple[str, ...] = ()
    if n == 3:
        crib, i = (deck[i],), i + 1
    turn_s = state.options.turn_seconds
    state = replace(
        state, status=Status.GIVE, hand_no=state.hand_no + 1, decks=decks,
        dealt=tuple(tuple(h) for h in hands), gave=((),) * n,
        held=tuple(tuple(h) for h in hands), laid=((),) * n, crib=crib,
        stock=tuple(deck[i:]), starter=None, series=(), go=(False,) * n, turn=None,
        turn_since=now,
        give_deadline=None if turn_s is None else now + scaled(turn_s * 1000, state.time_scale),
        show=(), next_at=None, claim=None, ready=(False,) * n, coach=(None,) * n)
    deal_record = {"hands": {p: list(h) for p, h in zip(state.players, state.dealt,
                                                         strict=True)},
                   "crib": list(crib), "stock": list(state.stock)}
    events.append(Event(EventKind.HAND_STARTED, {
        "hand_no": state.hand_no, "dealer": state.players[state.dealer],
        "deal": deal_record}, sealed=("deal",)))  # the deal: for the replay record only
    return state


def give(state: State, seat: int, cards: Sequence[str], now: int,
         events: list[Event]) -> State:
    """C3.4: `seat` gives `cards` to the crib, once and for good."""
    if state.status is not Status.GIVE:
        raise wrong_phase("cards are given to the crib only after the deal", "C3.4")
    if state.gave[seat]:
        raise illegal("you have given to the crib already; a card given is final", "C3.4")
    need = give_count(state.n)
    if len(cards) != need or len(set(cards)) != len(cards):
        raise illegal(f"give exactly {need} different card{'s' if need > 1 else ''}"
                      f" with {state.n} players", "C3.4")
    held = state.held[seat]
    for c in cards:
        if c not in held:
            raise illegal(f"you do not hold {c}", "C3.4")
    gave = list(state.gave)
    gave[seat] = tuple(cards)
    hands = list(state.held)
    hands[seat] = tuple(c for c in held if c not in cards)
    state = replace(state, gave=tuple(gave), held=tuple(hands),
                    crib=state.crib + tuple(cards))
    events.append(Event(EventKind.GAVE, {"player": state.players[seat], "count": len(cards),
                                         "cards": list(cards)}, sealed=("cards",)))
    if all(state.gave):
        state = turn_starter(state, now, events)
    return state


def turn_starter(state: State, now: int, events: list[Event]) -> State:
    """C4.1: the starter is turned up; C4.2: a Jack is his heels, 2 for the dealer
    (which can win the game). Then the play begins (C5.1)."""
    starter, stock = state.stock[0], state.stock[1:]
    items: list[Item] = []
    if rank(starter) == JACK:
        items.append(Item(ItemKind.HEELS, (starter,), 2))
    state = replace(state, starter=starter, stock=stock, give_deadline=None,
                    status=Status.PLAY, turn=(state.dealer + 1) % state.n, turn_since=now)
    events.append(Event(EventKind.STARTER, {"card": starter,
                                            "items": [i.to_json() for i in items],
                                            "cut_by": state.players[cutter(state)]}))
    if items:
        state = add_points(state, state.dealer, 2)
        state = check_over(state, events)
    return state


def cutter(state: State) -> int:
    """C4.1: the seat that cuts for the starter: the one before the dealer."""
    return (state.dealer - 1) % state.n


