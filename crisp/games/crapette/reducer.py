"""The game's transitions: a new game, a move, `end`, a call, a move timer running
out (K2-K7). Pure: each takes a `State` and returns a new one with its events, or
raises GameError and changes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ..api import Ctx, Event, GameError
from .actions import Action, CallAction, EndAction, MoveAction
from .board import Board, Cards, move_name
from .cards import text
from .events import event, moved, turned
from .faults import IllegalShow, assess, judge, missed, qualifies
from .moves import obliged, refusal, source_card
from .play import apply_move, draw_turned, progress, winner
from .setup import opening
from .state import BLOCKED_AFTER, CallRecord, MoveRecord, Options, State
from .vocabulary import Calls, EndWhy, ErrorCode, EventKind, OverWhy, Status


def new_game(players: Sequence[str], options: Options, decks: Sequence[Cards],
             ctx: Ctx) -> tuple[State, list[Event]]:
    """K2: the deal, the crapette tops, who starts and their turned card."""
    board = opening(decks, ctx.rng)
    ids = (players[0], players[1])
    events = [event(EventKind.CRAPETTE_TOP, player=ids[s], card=text(board.crapette[s][-1]))
              for s in (0, 1)]  # fmt: skip
    events += turned(board, ids, None)
    return State(ids, options, board, deadline=_deadline(options, ctx.now)), events


def _deadline(options: Options, start: int) -> int | None:
    ms = options.move_ms()
    return None if ms is None else start + ms


def shift(state: State, ms: int) -> State:
    """R17.6: a running move timer (K7.1) `ms` later."""
    return state if state.deadline is None else replace(state, deadline=state.deadline + ms)


def resume(state: State, now: int) -> State:
    """R17.6: a running move timer (K7.1) starts again from `now`."""
    if state.status != Status.PLAYING or state.deadline is None:
        return state
    return replace(state, deadline=_deadline(state.options, now))


def apply(state: State, player: str, action: Action, ctx: Ctx) -> tuple[State, list[Event]]:
    """`player`'s action, or GameError."""
    if state.status != Status.PLAYING:
        raise GameError(ErrorCode.WRONG_PHASE, "the game is over", "K5")
    seat = state.seat(player)
    if seat is None:
        raise GameError(ErrorCode.NOT_A_PLAYER, "only the two players act", "K1.1")
    if isinstance(action, CallAction):
        return _call(state, seat, action, ctx)
    if seat != state.board.mover:
        raise GameError(ErrorCode.NOT_YOUR_TURN, "it is the other player's turn", "K3")
    if isinstance(action, EndAction):
        if obliged(state.board):
            raise GameError(ErrorCode.ILLEGAL,
                            "an empty tableau pile must first be filled from your crapette",
                            "K4.3")
        return end_turn(state, EndWhy.END, ctx.now)
    return _move(state, action, ctx)


def _move(state: State, action: MoveAction, ctx: Ctx) -> tuple[State, list[Event]]:
    board, move = state.board, action.move
    rule = refusal(board, move)
    if rule is not None:
        names = move_name(move)
        raise GameError(ErrorCode.ILLEGAL,
                        f"{names['from']} to {names['to']} is not allowed now", rule)
    after = apply_move(board, move)
    card = source_card(board, move[0])
    version = getattr(ctx, "version", None)
    version = state.seq + 1 if not isinstance(version, int) else version
    record = MoveRecord(version, move, card, board, assess(board, move, state.options.calls))
    moved_on = progress(move)
    state = replace(state, board=after, seq=state.seq + 1, record=(*state.record, record),
                    barred=False, progress=state.progress or moved_on,
                    idle_turns=0 if moved_on else state.idle_turns,
                    deadline=_deadline(state.options, ctx.now))  # fmt: skip
    events = moved(board, after, move, card, state.players, version)
    won = winner(after)
    if won is not None:
        return _over(state, won, OverWhy.OUT, events)
    return state, events


def _over(state: State, won: int | None, why: OverWhy,
          events: list[Event]) -> tuple[State, list[Event]]:
    """K5.1, K5.2: the game ends (`won` None: blocked, a draw)."""
    state = replace(state, status=Status.GAME_OVER, winner=won, why=why, deadline=None)
    winners = [] if won is None else [state.players[won]]
    left = {p: state.board.left(s) for s, p in enumerate(state.players)}
    return state, [*events, event(EventKind.GAME_OVER, winners=winners, left=left, why=why)]


def end_turn(state: State, why: EndWhy, now: int) -> tuple[State, list[Event]]:
    """K3.4 (also K6.5, K7.1): the turned card onto the mover's waste; the game
    blocked after 30 idle turns (K5.2); else the other player's turn (K3.1)."""
    board = state.board
    m = board.mover
    events = [event(EventKind.ENDED, player=state.players[m], card=text(board.turned)
                    if board.turned >= 0 else None, why=why)]  # fmt: skip
    waste = board.waste
    if board.turned >= 0:
        waste = (waste[0], (*waste[1], board.turned)) if m else ((*waste[0], board.turned),
                                                                 waste[1])
    ended = board._replace(waste=waste, turned=-1)
    idle = state.idle_turns if state.progress else state.idle_turns + 1
    state = replace(state, board=ended, idle_turns=idle)
    if idle >= BLOCKED_AFTER:
        return _over(state, None, OverWhy.BLOCKED, events)
    nxt: Board = draw_turned(ended._replace(mover=1 - m))
    events += turned(nxt, state.players, ended)
    return replace(state, board=nxt, turn_no=state.turn_no + 1, progress=False, record=(),
                   calls=(), barred=False, deadline=_deadline(state.options, now)), events


def _call(state: State, seat: int, action: CallAction, ctx: Ctx) -> tuple[State, list[Event]]:
    """K6: a "Crapette!" call, judged on the move of the version it names."""
    mode = state.options.calls
    if mode == Calls.OFF:
        raise GameError(ErrorCode.ILLEGAL, "calls are off in this room", "K6.1")
    if seat == state.board.mover:
        raise GameError(ErrorCode.ILLEGAL, "the mover cannot call", "K6.6")
    if state.barred:
        raise GameError(ErrorCode.ILLEGAL, "after a wrong call, wait for the next move",
                        "K6.6")
    record = next((r for r in state.record if r.version == action.version), None)
    if record is None:
        raise GameError(ErrorCode.ILLEGAL,
                        f"no move of the turn being played has version {action.version}",
                        "K6.6")
    show = action.show if mode != Calls.OBVIOUS else None
    shown = False
    if show is not None:
        try:
            shown = qualifies(record.before, show)
        except IllegalShow as e:
            raise GameError(ErrorCode.ILLEGAL, f"{e} ({e.rule})", "K6.3") from None
    fault = judge(mode, record.faults, shown, len(show or ()))
    caller = state.players[seat]
    instead = None if fault is None else missed(record.before, record.move, mode,
                                                    show if shown else None)
    call = CallRecord(caller, action.version, fault, show, instead)
    events = [event(EventKind.CALLED, player=caller, version=action.version,
                    right=fault is not None, fault=fault,
                    shown=None if show is None else [move_name(m) for m in show],
                    missed=None if instead is None else move_name(instead))]
    state = replace(state, calls=(*state.calls, call))
    if fault is None:
        return replace(state, barred=True), events
    state, more = end_turn(state, EndWhy.CALL, ctx.now)
    return state, events + more


def advance(state: State, ctx: Ctx) -> tuple[State, list[Event]]:
    """K7.1: every move timer that ran out by `ctx.now` ends its turn as `end` does."""
    events: list[Event] = []
    while (state.status == Status.PLAYING and state.deadline is not None
           and state.deadline <= ctx.now):  # fmt: skip
        state, more = end_turn(state, EndWhy.TIMEOUT, state.deadline)
        events += more
    return state, events
