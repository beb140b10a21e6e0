"""The play (C5): laying cards in turn under 31, the go said for a player who
cannot lay (C5.2), the go and the last card (C5.3, C5.5), the reset, and the
end of the play (C5.6)."""

from __future__ import annotations

from dataclasses import replace

from ..api import Event
from .board import add_points, check_over
from .errors import illegal, not_your_turn, wrong_phase
from .pegging import MAX_COUNT, fits, go_items, score_lay
from .show import begin_show
from .state import State
from .vocabulary import EventKind, Status


def can_lay(state: State, seat: int, count: int) -> bool:
    return any(fits(c, count) for c in state.held[seat])


def playable(state: State, seat: int) -> list[str]:
    """The cards `seat` may lay now (the view's `playable`)."""
    if state.status is not Status.PLAY or state.turn != seat:
        return []
    count = state.count()
    return [c for c in state.held[seat] if fits(c, count)]


def lay(state: State, seat: int, card: str, now: int, events: list[Event]) -> State:
    """`seat` lays `card` (C5.1, C5.2) and scores it (C5.4)."""
    if state.status is not Status.PLAY:
        raise wrong_phase("cards are laid only in the play", "C5.1")
    if state.turn != seat:
        raise not_your_turn("it is not your turn to lay", "C5.1")
    if card not in state.held[seat]:
        raise illegal(f"you do not hold {card}", "C5.1")
    count = state.count()
    if not fits(card, count):
        raise illegal(f"{card} would take the count past 31", "C5.2")
    held = list(state.held)
    held[seat] = tuple(c for c in held[seat] if c != card)
    laid = list(state.laid)
    laid[seat] = laid[seat] + (card,)
    series = (*state.series, (seat, card))
    items = score_lay([c for _, c in series])
    state = replace(state, held=tuple(held), laid=tuple(laid), series=series)
    events.append(Event(EventKind.LAID, {
        "player": state.players[seat], "card": card, "count": state.count(),
        "items": [i.to_json() for i in items]}))
    state = add_points(state, seat, sum(i.points for i in items))
    state = check_over(state, events)
    if state.status is Status.GAME_OVER:
        return state
    return next_turn(state, seat, now, events)


def next_turn(state: State, last: int, now: int, events: list[Event]) -> State:
    """Whose turn follows `last`'s card: the next player who can lay; the server
    says go for those who cannot (C5.2); when nobody can, the series is over."""
    n = state.n
    count = state.count()
    go = list(state.go)
    if count < MAX_COUNT:
        for k in range(1, n + 1):
            q = (last + k) % n
            if q == last:
                if can_lay(state, q, count):
                    return replace(state, go=tuple(go), turn=q, turn_since=now)
                break
            if not state.held[q] or go[q]:
                continue
            if can_lay(state, q, count):
                return replace(state, go=tuple(go), turn=q, turn_since=now)
            go[q] = True
            events.append(Event(EventKind.GO, {"player": state.players[q]}))
    return series_over(replace(state, go=tuple(go)), last, now, events)


def series_over(state: State, last: int, now: int, events: list[Event]) -> State:
    """C5.3, C5.5: the go (or nothing after 31) to the last card; the count resets
    and the player after the last one to lay leads, skipping empty hands."""
    items = go_items(state.series[-1][1], state.count())
    events.append(Event(EventKind.SERIES_OVER, {"player": state.players[last],
                                                "items": [i.to_json() for i in items]}))
    state = add_points(state, last, sum(i.points for i in items))
    state = check_over(state, events)
    if state.status is Status.GAME_OVER:
        return state
    state = replace(state, series=(), go=(False,) * state.n)
    for k in range(1, state.n + 1):
        q = (last + k) % state.n
        if state.held[q]:
            return replace(state, turn=q, turn_since=now)
    return begin_show(replace(state, turn=None), now, events)  # C5.6
