"""What each seat was shown of its own hand this round, kept so that a look is
never lost (R16.3 revised) and a computer player's memory can be rebuilt (R17.2).

Each seat's record holds at most one Look per slot, always for the card that is
there now: a look is dropped the moment its card leaves that position (a swap,
R5.1; a Queen, R8.1) and replaced when the seat looks again. The record is
cleared at each deal and at the reveal. It never reaches a view (R16.3): the
server reads it with `looks_for` and `owed_peeks`.
"""

from __future__ import annotations

from .cards import Card
from .events import Event
from .state import Look, State
from .vocabulary import EventKind, Slot


def record(state: State, seat: int, slot: Slot, card: Card, why: str) -> int:
    """Note that `seat` was shown `card` at its own `slot`; returns the look's `seq`."""
    state.look_seq += 1
    player = state.players[seat]
    player.looks = [look for look in player.looks if look.slot != slot]
    player.looks.append(Look(state.look_seq, slot, card, why))
    return state.look_seq


def forget(state: State, seat: int, slot: Slot) -> None:
    """The card at `seat`'s `slot` has left that position: its look is no longer valid."""
    player = state.players[seat]
    if player.looks:
        player.looks = [look for look in player.looks if look.slot != slot]


def peek(state: State, seat: int, slot: Slot, why: str) -> Event:
    """Record a look at the card now at `seat`'s `slot` and return its `peek` event,
    addressed to that seat only (R2.4, R7.1, R8.2, R8.3)."""
    player = state.players[seat]
    card = player.hand[slot]
    assert card is not None
    seq = record(state, seat, slot, card, why)
    return Event(EventKind.PEEK, {"player": player.id, "slot": slot.label, "card": card.text},
                 to=player.id, look=seq)


def looks_for(state: State, player: str) -> list[Look]:
    """The looks `player` holds this round that are still valid, oldest first (R16.3):
    each is for the card at that position now. Empty for an unknown player."""
    seat = state.seat_of(player)
    return [] if seat is None else list(state.players[seat].looks)


def owed_peeks(state: State, player: str, delivered: int) -> list[Event]:
    """The `peek` events for `player`'s valid looks with a `seq` above `delivered`
    (the highest `seq` the server knows reached one of the seat's live connections),
    in the order they arose (R16.3 revised). Each carries its `look` seq."""
    return [
        Event(EventKind.PEEK, {"player": player, "slot": look.slot.label, "card": look.card.text},
              to=player, look=look.seq)
        for look in looks_for(state, player) if look.seq > delivered
    ]
