"""The board (C2): scoring points to a side, moving the back peg in front
(C2.2), counting out at the target the moment it is reached (C2.1, C7.4), and
the end of the game with its game points (C8.2) and the match tally (C8.4)."""

from __future__ import annotations

from dataclasses import replace

from ..api import Event
from .state import GamePoints, State
from .vocabulary import EventKind, GamePointsKind, Skunk, Status


def add_points(state: State, seat: int, points: int) -> State:
    """`points` to `seat`'s side; the score stops at the target (C2.1 Decision)."""
    if points <= 0 or state.status is Status.GAME_OVER:
        return state
    side = state.side(seat)
    scores = list(state.scores)
    peg_from = list(state.peg_from)
    peg_from[side] = scores[side]
    scores[side] = min(scores[side] + points, state.options.target)
    return replace(state, scores=tuple(scores), peg_from=tuple(peg_from))


def winner_side(state: State) -> int | None:
    """The side that has reached the target, if any (C2.1)."""
    for side, score in enumerate(state.scores):
        if score >= state.options.target:
            return side
    return None


def scores_by_player(state: State) -> dict[str, int]:
    return {p: state.scores[state.side(s)] for s, p in enumerate(state.players)}


def game_points(state: State, side: int) -> GamePoints:
    """C8.2: the highest losing score against the skunk lines (3/4 and 1/2 of the
    target, rounded up: 91 and 61 of 121, 46 and 31 of 61)."""
    target = state.options.target
    losers = [s for i, s in enumerate(state.scores) if i != side]
    worst = max(losers) if losers else 0
    three_quarters = -(-target * 3 // 4)
    half = -(-target // 2)
    kind = GamePointsKind.NONE
    points = 1
    if state.options.skunk is Skunk.SKUNK:
        if worst < half:
            kind, points = GamePointsKind.DOUBLE, 4
        elif worst < three_quarters:
            kind, points = GamePointsKind.SKUNK, 2
    elif state.options.skunk is Skunk.LURCH and worst < half:
        kind, points = GamePointsKind.LURCH, 2
    return GamePoints(state.side_members(side), points, kind)


def check_over(state: State, events: list[Event]) -> State:
    """The game over if a side has reached the target (C2.1, C7.4), else `state`."""
    side = winner_side(state)
    if side is None or state.status is Status.GAME_OVER:
        return state
    gp = game_points(state, side)
    match = dict(state.match)
    for p in gp.winner_side:  # C8.4: both partners get the team's points
        match[p] = match.get(p, 0) + gp.points
    state = replace(state, status=Status.GAME_OVER, turn=None, give_deadline=None,
                    next_at=None, claim=None, game_points=gp,
                    match=tuple((p, match.get(p, 0)) for p in state.players))
    events.append(Event(EventKind.GAME_OVER, {
        "scores": scores_by_player(state), "winners": list(gp.winner_side),
        "game_points": gp.to_json()}))
    return state
