"""Who the game waits for and which messages each player may send now."""

from __future__ import annotations

from .play import playable
from .state import State
from .vocabulary import ActionType, Status


def muggins_open(state: State, now: int) -> bool:
    c = state.claim
    return c is not None and c.muggins_until is not None and now <= c.muggins_until


def may_call_muggins(state: State, seat: int, now: int) -> bool:
    """C8.1: an opponent of the claimant, while the muggins window is open."""
    c = state.claim
    return (state.options.muggins and c is not None and muggins_open(state, now)
            and state.side(seat) != state.side(c.by))


def legal(state: State, seat: int | None, now: int) -> list[str]:
    if seat is None:
        return []
    st = state.status
    if st is Status.GIVE and not state.gave[seat]:
        return [ActionType.GIVE.value]
    if st is Status.PLAY and state.turn == seat and playable(state, seat):
        return [ActionType.LAY.value]
    if st is Status.SHOW and state.claim is not None:
        c = state.claim
        if c.by == seat and c.claimed is None:
            return [ActionType.CLAIM.value]
        if may_call_muggins(state, seat, now):
            return [ActionType.MUGGINS.value]
    if st is Status.HAND_OVER and not state.ready[seat]:
        return [ActionType.READY.value]
    return []


def to_act(state: State, now: int) -> list[str]:
    """The players the game waits for (under muggins, the opponents who may call
    during the window, so the table can let its computer players call)."""
    return [p for s, p in enumerate(state.players) if legal(state, s, now)]
