"""The show (C7): the hands counted one at a time from the player after the
dealer, the dealer's last, then the crib (C7.1, C7.3), each shown with its items
(C7.2); counting out stops it (C7.4). With muggins (C8.1) each hand is claimed
and the opponents may call muggins. Then the hand is over (C7.5)."""

from __future__ import annotations

from dataclasses import replace

from ..api import Event
from .board import add_points, check_over, scores_by_player
from .coach import coach
from .options import AFTER_SHOW_MS, CLAIM_MS, MUGGINS_MS, SHOW_MS, scaled
from .show_score import score_show, show_notes
from .state import CRIB, Claim, ShowEntry, State
from .vocabulary import EventKind, Status


def _entry_owner(state: State, index: int) -> tuple[str, int, tuple[str, ...], bool]:
    """The index-th hand of the show (C7.1): whose, the seat that counts it, its
    cards, whether it is the crib."""
    n = state.n
    if index < n:
        seat = (state.dealer + 1 + index) % n
        return state.players[seat], seat, state.kept(seat), False
    return CRIB, state.dealer, state.crib, True


def begin_show(state: State, now: int, events: list[Event]) -> State:
    """The show begins: without muggins the first hand is counted `show_ms` after
    the last card (so the play's end can be followed); with muggins its claim opens."""
    state = replace(state, status=Status.SHOW, turn=None, show=())
    if state.options.muggins:
        return next_hand(state, now, events)
    return replace(state, next_at=now + scaled(SHOW_MS, state.time_scale))


def next_hand(state: State, now: int, events: list[Event]) -> State:
    """Count the next hand (or open its claim under muggins)."""
    index = len(state.show)
    whose, seat, cards, _ = _entry_owner(state, index)
    if state.options.muggins:
        entry = ShowEntry(whose, cards, None, None, None)
        claim = Claim(whose, seat, now + scaled(CLAIM_MS, state.time_scale))
        return replace(state, show=(*state.show, entry), claim=claim, next_at=None)
    return count_hand(state, now, events)


def count_hand(state: State, now: int, events: list[Event]) -> State:
    """C7.2: the server counts the next hand, shows it and scores it."""
    index = len(state.show)
    whose, seat, cards, crib = _entry_owner(state, index)
    assert state.starter is not None
    items = tuple(score_show(cards, state.starter, crib))
    notes = tuple(show_notes(cards, state.starter, crib))
    entry = ShowEntry(whose, cards, sum(i.points for i in items), items, None, notes)
    state = replace(state, show=(*state.show, entry))
    events.append(Event(EventKind.SHOWN, entry.to_json()))
    state = add_points(state, seat, entry.points or 0)
    return after_entry(state, now, events)


def after_entry(state: State, now: int, events: list[Event]) -> State:
    state = check_over(state, events)  # C7.4
    if state.status is Status.GAME_OVER:
        return with_coach(state)
    if len(state.show) == state.n + 1:
        return hand_over(state, now, events)
    if state.options.muggins:
        return next_hand(state, now, events)
    return replace(state, next_at=now + scaled(SHOW_MS, state.time_scale))


def hand_over(state: State, now: int, events: list[Event]) -> State:
    """C7.5: the hand is over; the next is dealt when everyone is ready or 20 s after
    the show ends (the crib's show lasting its `show_ms`)."""
    wait = scaled(SHOW_MS, state.time_scale) + scaled(AFTER_SHOW_MS, state.time_scale)
    state = replace(state, status=Status.HAND_OVER, claim=None, next_at=now + wait,
                    ready=(False,) * state.n)
    events.append(Event(EventKind.HAND_OVER, {"scores": scores_by_player(state)}))
    return with_coach(state)


def with_coach(state: State) -> State:
    """C10.3: each seat's coach, once the crib is complete."""
    if not all(state.gave):
        return state
    own = state.side(state.dealer)
    return replace(state, coach=tuple(
        coach(state.dealt[s], state.gave[s], state.side(s) == own) for s in range(state.n)))


# -- muggins (C8.1) ------------------------------------------------------------

def claim(state: State, seat: int, points: int, now: int, events: list[Event]) -> State:
    c = state.claim
    assert c is not None and c.by == seat and c.claimed is None
    entries = list(state.show)
    entries[-1] = replace(entries[-1], claimed=points)
    state = replace(state, show=tuple(entries), claim=replace(
        c, claimed=points, muggins_until=now + scaled(MUGGINS_MS, state.time_scale)))
    events.append(Event(EventKind.CLAIMED, {"player": state.players[seat], "points": points}))
    return state


def true_total(state: State) -> int:
    entry = state.show[-1]
    assert state.starter is not None
    return sum(i.points for i in score_show(entry.cards, state.starter, entry.whose == CRIB))


def resolve(state: State, now: int, mugger: int | None, events: list[Event]) -> State:
    """The claim's window closes: the claimant scores what they claimed up to the true
    total; a muggins caller takes the points overlooked; an over-claim's excess goes
    to the next opponent clockwise from the claimant (C8.1 Decisions)."""
    c = state.claim
    assert c is not None and state.starter is not None
    entry = state.show[-1]
    crib = entry.whose == CRIB
    items = tuple(score_show(entry.cards, state.starter, crib))
    true = sum(i.points for i in items)
    claimed = true if c.claimed is None else c.claimed
    if c.claimed is None:  # the claim was due: the true total is claimed for the player
        events.append(Event(EventKind.CLAIMED, {"player": state.players[c.by], "points": true}))
    entries = list(state.show)
    entries[-1] = replace(entry, points=true, items=items, claimed=claimed,
                          notes=tuple(show_notes(entry.cards, state.starter, crib)))
    state = replace(state, show=tuple(entries), claim=None)
    if mugger is not None:
        events.append(Event(EventKind.MUGGINS, {"player": state.players[mugger],
                                                "points": max(0, true - claimed)}))
    events.append(Event(EventKind.SHOWN, entries[-1].to_json()))
    awards = [(c.by, min(claimed, true))]
    if mugger is not None:
        awards.append((mugger, true - claimed))
    if claimed > true:
        awards.append(((c.by + 1) % state.n, claimed - true))
    for seat, points in awards:  # in this order, each may count out (C7.4)
        state = check_over(add_points(state, seat, points), events)
    return after_entry(state, now, events)
