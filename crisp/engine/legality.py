"""Which action types a seat may take now. One function guards both `apply`
and the view's `legal` list, so the two can never disagree."""

from __future__ import annotations

from .actions import ACTION_TYPES
from .clock import advance_in_place, next_deadline
from .errors import IllegalAction
from .state import GAME_OVER, LOBBY, MAX_PLAYERS, MIN_PLAYERS, PEEK, PLAYING, ROUND_OVER, State

HOST_ONLY = {"options": LOBBY, "start": LOBBY, "kick": LOBBY,
             "next_round": ROUND_OVER, "rematch": GAME_OVER}
SPECIAL_RANK = {"jack": "J", "queen": "Q", "king": "K"}


def check_type(state: State, seat: int, kind: str, now: int) -> None:
    """Raise IllegalAction unless `seat` may take an action of type `kind` now.

    Argument-level checks (which slot, which target, which source) come later,
    in the action itself; this decides the view's `legal` list.
    """
    player = state.players[seat]
    if kind in HOST_ONLY:
        if player.id != state.host:
            raise IllegalAction("not_host", f"only the host may {kind}")
        if state.status != HOST_ONLY[kind]:
            raise IllegalAction("wrong_phase", f"{kind} is for the {HOST_ONLY[kind]} phase")
        n = len(state.players)
        if kind == "start" and not MIN_PLAYERS <= n <= MAX_PLAYERS:
            raise IllegalAction("illegal", "a game needs 2 to 8 players", "R1.1")
        if kind == "kick" and n < 2:
            raise IllegalAction("illegal", "there is nobody to kick")
        return
    if kind == "ready":
        if state.status not in (PEEK, ROUND_OVER):
            raise IllegalAction("wrong_phase", "ready is for the peek phase or a round's end",
                                "R16.2")
        if player.ready:
            raise IllegalAction("illegal", "already ready", "R16.2")
        return
    if kind == "crisp":
        _check_crisp(state, seat)
        return
    _check_turn_action(state, seat, kind, now)


def _check_crisp(state: State, seat: int) -> None:
    if state.status != PLAYING:
        raise IllegalAction("wrong_phase", "crisp is called during play", "R10.1")
    if state.caller is not None:
        raise IllegalAction("illegal", "crisp has already been called this round", "R10.3")
    window = state.window
    if window is None or window.player != seat:
        raise IllegalAction("illegal", "crisp is called right after one's own turn", "R10.4")


def _check_turn_action(state: State, seat: int, kind: str, now: int) -> None:
    if kind not in ACTION_TYPES:
        raise IllegalAction("bad_message", f"unknown action type {kind!r}")
    turn = state.turn
    if state.status != PLAYING or turn is None:
        raise IllegalAction("wrong_phase", f"{kind} is only possible during play", "R3")
    if turn.player != seat:
        raise IllegalAction("not_your_turn", f"it is {state.players[turn.player].name}'s turn",
                            "R3.1")
    held = state.holding
    if kind == "draw":
        if held is not None:
            raise IllegalAction("illegal", "resolve the card you hold first", "R3.2")
        if now < turn.may_start_at:
            raise IllegalAction("too_early", "the turn may not start yet", "R10.4")
        return
    if held is None:
        raise IllegalAction("illegal", "draw a card first", "R5")
    from_stock = turn.drawn_from == "stock"
    if kind == "swap":
        if from_stock and held.face:
            raise IllegalAction("illegal", "a J, Q or K from the stock never enters a hand",
                                "R6.1")
    elif kind == "discard":
        if not from_stock:
            raise IllegalAction("illegal", "a card taken from the discard pile must be swapped",
                                "R13.2")
        if held.rank == "K":
            raise IllegalAction("illegal", "a King drawn from the stock must be used", "R6.3")
    elif kind in SPECIAL_RANK:
        if held.rank != SPECIAL_RANK[kind]:
            raise IllegalAction("illegal", f"you are not holding a {kind}", "R5.3")
        if not from_stock:
            raise IllegalAction("illegal", "a J, Q or K from the discard pile has no effect",
                                "R13.3")
    else:
        raise IllegalAction("wrong_phase", f"{kind} is not a turn action")


def legal_types(state: State, seat: int, now: int) -> list[str]:
    """The action types `seat` may take now, in protocol order.

    Deadlines already due are applied first (on a copy), exactly as `apply`
    does, so an action listed here is never refused by the clock.
    """
    due = next_deadline(state)
    if due is not None and due <= now:
        state = state.copy()
        advance_in_place(state, now, [])
    out = []
    for kind in ACTION_TYPES:
        try:
            check_type(state, seat, kind, now)
        except IllegalAction:
            continue
        out.append(kind)
    return out
