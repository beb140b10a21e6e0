"""What each seat sees (C9): the public table, and a player's own cards only to
that player; a watcher (None) sees the public part. At `hand_over` every hand
and the crib are public (they have been shown)."""

from __future__ import annotations

from typing import Any

from .options import scaled
from .play import playable
from .state import CRIB, State
from .turns import legal
from .vocabulary import Status


def turn_deadline(state: State) -> int | None:
    """C8.3: the turn's time-out, from the turn's start."""
    ts = state.options.turn_seconds
    if ts is None or state.turn is None or state.status is not Status.PLAY:
        return None
    return state.turn_since + scaled(ts * 1000, state.time_scale)


def seat_or_none(state: State, player: str | None) -> int | None:
    if player is None or player not in state.players:
        return None
    return state.seat_of(player)


def view(state: State, player: str | None) -> dict[str, Any]:
    seat = seat_or_none(state, player)
    after_play = state.status in (Status.SHOW, Status.HAND_OVER) or (
        state.status is Status.GAME_OVER and state.starter is not None and not any(state.held))
    hand: list[str] | None = None
    gave: list[str] | None = None
    if seat is not None:
        hand = list(state.kept(seat) if after_play and state.gave[seat] else state.held[seat])
        gave = list(state.gave[seat])
    crib_shown = any(e.whose == CRIB for e in state.show)
    p = state.players
    out: dict[str, Any] = {
        "status": state.status.value,
        "hand_no": state.hand_no,
        "dealer": p[state.dealer],
        "hand": hand,
        "gave": gave,
        "crib": {"owner": p[state.dealer], "count": len(state.crib),
                 "cards": list(state.crib) if crib_shown else None},
        "starter": state.starter,
        "play": {"count": state.count(),
                 "series": [{"player": p[s], "card": c} for s, c in state.series]},
        "turn": None if state.turn is None or state.status is not Status.PLAY
        else {"player": p[state.turn], "deadline": turn_deadline(state)},
        "give_deadline": state.give_deadline if state.status is Status.GIVE else None,
        "playable": [] if seat is None else playable(state, seat),
        "show": [e.to_json() for e in state.show],
        "claim": None if state.claim is None else {
            "whose": state.claim.whose, "by": p[state.claim.by],
            "deadline": state.claim.deadline, "muggins_until": state.claim.muggins_until},
        "coach": None,
        "game_points": None if state.game_points is None else state.game_points.to_json(),
        "match": dict(state.match),
    }
    if seat is not None and state.status in (Status.HAND_OVER, Status.GAME_OVER):
        coach = state.coach[seat]
        out["coach"] = None if coach is None else coach.to_json()
    out["players"] = [{
        "id": p[s],
        "seat": s,
        "team": s % 2 if state.n == 4 else None,
        "score": state.scores[state.side(s)],
        "peg_from": state.peg_from[state.side(s)],
        "held": len(state.kept(s)) if after_play and state.gave[s] else len(state.held[s]),
        "gave": len(state.gave[s]),
        "laid": list(state.laid[s]),
        "go": state.go[s],
        "ready": state.ready[s] if state.status is Status.HAND_OVER else False,
    } for s in range(state.n)]
    return out


def cards_of(state: State) -> list[str]:
    """Every card where it lies now, each once: hands, laid, crib, starter, stock."""
    out = [c for h in state.held for c in h] + [c for h in state.laid for c in h]
    out += list(state.crib) + list(state.stock)
    return out if state.starter is None else [*out, state.starter]


def hidden_from(state: State, seat: int | None) -> frozenset[str]:
    """The cards `seat` (None: a watcher) may not know (C9): the undealt cards, the
    others' hands, and the crib's cards it did not give until the crib is shown.
    Before the first deal nothing is dealt, so nothing is hidden."""
    if state.hand_no == 0:
        return frozenset()
    out = set(state.stock)
    for s in range(state.n):
        if s != seat:
            out.update(state.held[s])
    if not any(e.whose == CRIB for e in state.show):
        mine = set(state.gave[seat]) if seat is not None else set()
        out.update(c for c in state.crib if c not in mine)
    return frozenset(out)


def seat_view(state: State, player: str | None, now: int) -> dict[str, Any]:
    """The view as a seat receives it from the table: the game's view with the
    shared fields a bot reads (`you`, `legal`; `players[]` already carry `id` and
    `seat`). The table merges these itself; this is for the game's own use
    (time-outs played by the computer, C8.3), simulations and tests."""
    out = view(state, player)
    out["you"] = player
    out["legal"] = legal(state, seat_or_none(state, player), now)
    return out
