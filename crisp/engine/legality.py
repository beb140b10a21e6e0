"""Which action types a seat may take now. One function guards both `apply`
and the view's `legal` list, so the two can never disagree."""

from __future__ import annotations

from .actions import ACTION_TYPES
from .clock import at_moment
from .errors import (
    BAD_MESSAGE,
    ILLEGAL,
    NOT_HOST,
    NOT_YOUR_TURN,
    ROOM_FULL,
    TOO_EARLY,
    WRONG_PHASE,
    ErrorCode,
    IllegalAction,
)
from .state import MAX_PLAYERS, MIN_PLAYERS, State
from .vocabulary import GAME_OVER, LOBBY, PEEK, PLAYING, ROUND_OVER, STOCK, ActionType, Status

A = ActionType
HOST_ONLY: dict[str, Status] = {A.OPTIONS: LOBBY, A.START: LOBBY, A.ADD_BOT: LOBBY,
                               A.NEXT_ROUND: ROUND_OVER, A.REMATCH: GAME_OVER}
SPECIAL_RANK: dict[str, str] = {A.JACK: "J", A.QUEEN: "Q", A.KING: "K"}
TURN_TYPES = (A.DRAW, A.SWAP, A.DISCARD, A.JACK, A.QUEEN, A.KING, A.CRISP)
ROOM_TYPES = (A.KICK, A.ADD_BOT, A.LEAVE)  # the seats themselves (R17.1, R17.5)
# What `legal_types` tries, in protocol order: outside play; during play for the seat
# that plays or may call; for any other seat during play (add_bot is for the lobby).
OTHER_TYPES = tuple(t for t in ACTION_TYPES if t not in TURN_TYPES)
PLAY_TYPES = tuple(t for t in ACTION_TYPES if t in TURN_TYPES or t in (A.KICK, A.LEAVE))
IN_PLAY_ROOM_TYPES = (A.KICK, A.LEAVE)

# A refusal: (protocol error code, message, rule id or None).
Refusal = tuple[ErrorCode, str, str | None]


def check_type(state: State, seat: int, kind: str, now: int) -> None:
    """Raise IllegalAction unless `seat` may take an action of type `kind` now.

    Argument-level checks (which slot, which target, which source) come later,
    in the action itself; this decides the view's `legal` list.
    """
    why = refusal(state, seat, kind, now)
    if why is not None:
        raise IllegalAction(why[0], why[1], why[2])


def refusal(state: State, seat: int, kind: str, now: int) -> Refusal | None:
    """Why `seat` may not take an action of type `kind` now, or None if it may."""
    player = state.players[seat]
    if kind in HOST_ONLY or kind == A.KICK:
        if player.id != state.host or state.host_pending:  # R17.4: pending: no host yet
            return (NOT_HOST, f"only the host may {kind}", None)
        if kind == A.KICK:
            return _kick_refusal(state, seat)
        if state.status != HOST_ONLY[kind]:
            return (WRONG_PHASE, f"{kind} is for the {HOST_ONLY[kind]} phase", None)
        n = len(state.players)
        if kind == A.START and not MIN_PLAYERS <= n <= MAX_PLAYERS:
            return (ILLEGAL, "a game needs 2 to 8 players", "R1.1")
        if kind == A.ADD_BOT and n >= MAX_PLAYERS:
            return (ROOM_FULL, "the room has 8 players", "R17.1")
        return None
    if kind == A.LEAVE:
        if player.bot_level is not None:
            return (ILLEGAL, "a computer player does not leave", "R17.5")
        return None
    if kind == A.READY:
        if state.status not in (PEEK, ROUND_OVER):
            return (WRONG_PHASE, "ready is for the peek phase or a round's end", "R16.2")
        if player.ready:
            return (ILLEGAL, "already ready", "R16.2")
        return None
    if kind == A.CRISP:
        return _crisp_refusal(state, seat)
    return _turn_refusal(state, seat, kind, now)


def _kick_refusal(state: State, seat: int) -> Refusal | None:
    """Whether the host has anyone to remove: any other seat in the lobby, another
    human seat in a game (R17.5)."""
    if state.status == LOBBY:
        if len(state.players) < 2:
            return (ILLEGAL, "there is nobody to kick", None)
        return None
    for i, p in enumerate(state.players):
        if i != seat and p.bot_level is None:
            return None
    return (ILLEGAL, "every other seat is played by the computer", "R17.5")


def _crisp_refusal(state: State, seat: int) -> Refusal | None:
    if state.status != PLAYING:
        return (WRONG_PHASE, "crisp is called during play", "R10.1")
    if state.caller is not None:
        return (ILLEGAL, "crisp has already been called this round", "R10.3")
    if not has_window(state, seat):
        return (ILLEGAL, "crisp is called right after one's own turn", "R10.4")
    return None


def has_window(state: State, seat: int) -> bool:
    """Whether `seat`'s crisp window is open (R10.4; the state is at the moment)."""
    windows = state.windows  # mostly empty: skip the generator (every `legal` list runs this)
    return bool(windows) and any(window.player == seat for window in windows)


def _turn_refusal(state: State, seat: int, kind: str, now: int) -> Refusal | None:
    if kind not in ACTION_TYPES:
        return (BAD_MESSAGE, f"unknown action type {kind!r}", None)
    turn = state.turn
    if state.status != PLAYING or turn is None:
        return (WRONG_PHASE, f"{kind} is only possible during play", "R3")
    if turn.player != seat:
        return (NOT_YOUR_TURN, f"it is {state.players[turn.player].name}'s turn", "R3.1")
    held = state.holding
    if kind == A.DRAW:
        if held is not None:
            return (ILLEGAL, "resolve the card you hold first", "R3.2")
        if now < turn.may_start_at:
            return (TOO_EARLY, "the turn may not start yet", "R10.4")
        return None
    if held is None:
        return (ILLEGAL, "draw a card first", "R5")
    from_stock = turn.drawn_from == STOCK
    if kind == A.SWAP:
        if from_stock and held.face:
            return (ILLEGAL, "a J, Q or K from the stock never enters a hand", "R6.1")
    elif kind == A.DISCARD:
        if not from_stock:
            return (ILLEGAL, "a card taken from the discard pile must be swapped", "R13.2")
        if held.rank == "K":
            return (ILLEGAL, "a King drawn from the stock must be used", "R6.3")
    elif kind in SPECIAL_RANK:
        if held.rank != SPECIAL_RANK[kind]:
            return (ILLEGAL, f"you are not holding a {kind}", "R5.3")
        if not from_stock:
            return (ILLEGAL, "a J, Q or K from the discard pile has no effect", "R13.3")
    else:
        return (WRONG_PHASE, f"{kind} is not a turn action", None)
    return None


def legal_types(state: State, seat: int, now: int) -> list[str]:
    """The action types `seat` may take now, in protocol order.

    Deadlines already due are applied first (on a copy), exactly as `apply`
    does, so an action listed here is never refused by the clock.
    """
    state = at_moment(state, now)
    if state.status == PLAYING:
        turn = state.turn
        if (turn is None or turn.player != seat) and not has_window(state, seat):
            kinds: tuple[str, ...] = IN_PLAY_ROOM_TYPES  # no turn action for one who
        else:  # neither plays nor may call
            kinds = PLAY_TYPES
    else:
        kinds = OTHER_TYPES
    return [k for k in kinds if refusal(state, seat, k, now) is None]
