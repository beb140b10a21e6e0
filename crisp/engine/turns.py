"""A turn's draws and their resolution (R4-R9, R13)."""

from __future__ import annotations

from .actions import Draw, Swap, UseQueen
from .cards import Card
from .errors import ILLEGAL, UNKNOWN_PLAYER, IllegalAction
from .events import Event
from .looks import forget, peek, record
from .rounds import end_turn
from .state import State
from .timing import deadline_from
from .vocabulary import DISCARD, STOCK, ActionType, EventKind, Slot

QUEEN_SEALED = ("own_card", "target_card")


def take_from_stock(state: State, events: list[Event]) -> Card:
    """The top card of the stock, turning the discard pile over first if the
    stock is empty (R4.2: not shuffled; the first card discarded becomes the top)."""
    if not state.stock:
        # The discard pile has its top last; turned over, its first card is on top,
        # which is last in our top-last stock list: the order is reversed.
        state.stock = state.discard[::-1]
        state.discard = []
        events.append(Event(EventKind.STOCK_REBUILT, {"count": len(state.stock)}))
    return state.stock.pop()


def draw(state: State, action: Draw, events: list[Event]) -> None:
    """R4.1 a draw from the stock (seen only by the drawer), or R13 from the discard pile."""
    turn = state.turn
    assert turn is not None
    player = state.players[turn.player]
    if action.source == DISCARD:
        if not state.options.discard_draw:
            raise IllegalAction(ILLEGAL, "drawing from the discard pile is off",
                                "R13.1")
        if not state.discard:
            raise IllegalAction(ILLEGAL, "the discard pile is empty", "R13.4")
        card = state.discard.pop()
        events.append(Event(EventKind.DREW, {"player": player.id, "source": DISCARD,
                                     "card": card.text}))
    else:
        card = take_from_stock(state, events)
        events.append(Event(EventKind.DREW, {"player": player.id, "source": STOCK,
                                     "card": card.text}, secret=("card",)))
    if turn.started:
        turn.extra_draws -= 1  # one of the King's extra draws (R9.1)
    turn.started = True
    turn.drawn_from = action.source
    state.holding = card


def resolved(state: State, now: int, events: list[Event]) -> None:
    """The held card is resolved: the next King draw, or the end of the turn (R3.2)."""
    turn = state.turn
    assert turn is not None
    state.holding = None
    turn.drawn_from = None
    if turn.extra_draws > 0:
        turn.draw_deadline = deadline_from(state, now)  # R14.3: each extra draw has its time
        return
    end_turn(state, now, False, events)


def _hold(state: State) -> Card:
    card = state.holding
    assert card is not None
    return card


def swap(state: State, action: Swap, now: int, events: list[Event]) -> None:
    """R5.1: the held card takes the slot; the replaced card goes face up on the pile."""
    turn = state.turn
    assert turn is not None
    player = state.players[turn.player]
    old = player.hand[action.slot]
    assert old is not None
    card = _hold(state)
    player.hand[action.slot] = card
    state.discard.append(old)
    seq = record(state, turn.player, action.slot, card, ActionType.DRAW)  # R4.1, R13: it was shown
    events.append(Event(EventKind.SWAPPED, {"player": player.id, "slot": action.slot.label,
                                    "discarded": old.text}, look=seq))
    resolved(state, now, events)


def discard(state: State, now: int, events: list[Event]) -> None:
    """R5.2 / R6.2: the held card goes face up on the discard pile."""
    card = _hold(state)
    assert state.turn is not None
    state.discard.append(card)
    events.append(Event(EventKind.DISCARDED, {"player": state.players[state.turn.player].id,
                                      "card": card.text, "timeout": False}))
    resolved(state, now, events)


def jack(state: State, now: int, events: list[Event]) -> None:
    """R7.1: look once at one's own middle card; the Jack is then discarded (R6.2)."""
    card = _hold(state)
    assert state.turn is not None
    player = state.players[state.turn.player]
    state.discard.append(card)
    events.append(Event(EventKind.JACK, {"player": player.id, "card": card.text}))
    events.append(peek(state, state.turn.player, Slot.MIDDLE, ActionType.JACK))
    resolved(state, now, events)


def queen(state: State, action: UseQueen, now: int, events: list[Event]) -> None:
    """R8: a blind swap with another player's card; each side may look at the card
    it receives unless it lands in a middle slot (R8.2-R8.4)."""
    card = _hold(state)
    assert state.turn is not None
    me = state.players[state.turn.player]
    target_seat = state.seat_of(action.target)
    if target_seat is None:
        raise IllegalAction(UNKNOWN_PLAYER, f"no player {action.target!r}")
    if target_seat == state.turn.player:
        raise IllegalAction(ILLEGAL, "a Queen swaps with another player", "R8.1")
    other = state.players[target_seat]  # R8.5: the crisp caller is a valid target
    mine, theirs = me.hand[action.slot], other.hand[action.target_slot]
    assert mine is not None and theirs is not None
    me.hand[action.slot], other.hand[action.target_slot] = theirs, mine
    forget(state, state.turn.player, action.slot)  # both cards left their positions
    forget(state, target_seat, action.target_slot)
    state.discard.append(card)
    events.append(Event(EventKind.QUEEN, {"player": me.id, "slot": action.slot.label,
                                  "target": other.id, "target_slot": action.target_slot.label,
                                  "card": card.text, "own_card": mine.text,
                                  "target_card": theirs.text},
                        sealed=QUEEN_SEALED))  # R18.2: the swapped cards, for the record
    if action.slot != Slot.MIDDLE:  # R8.2
        events.append(peek(state, state.turn.player, action.slot, ActionType.QUEEN))
    if action.target_slot != Slot.MIDDLE:  # R8.3, R8.4
        events.append(peek(state, target_seat, action.target_slot, "queen_target"))
    resolved(state, now, events)


def king(state: State, now: int, events: list[Event]) -> None:
    """R9: the King grants two extra draws, added to any still owed (R9.2). It lies
    face up beside the piles until the turn ends, then goes on the pile (R9.3)."""
    card = _hold(state)
    turn = state.turn
    assert turn is not None
    turn.kings.append(card)
    turn.extra_draws += 2
    events.append(Event(EventKind.KING, {"player": state.players[turn.player].id,
                                 "extra_draws": turn.extra_draws, "card": card.text}))
    resolved(state, now, events)
