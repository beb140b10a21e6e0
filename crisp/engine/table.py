"""The engine's entry points: a reducer over the table state.

`apply(state, player, action, now)` returns a new state and the events; the
input state is never mutated, and the version increases on every change.
"""

from __future__ import annotations

import secrets
import unicodedata

from . import turns
from .actions import (
    Action,
    AddBot,
    CallCrisp,
    Discard,
    Draw,
    Kick,
    Leave,
    NextRound,
    Ready,
    Rematch,
    SetOptions,
    Start,
    Swap,
    UseJack,
    UseKing,
    UseQueen,
    action_type,
    checked,
)
from .cards import parse_deck
from .clock import advance_in_place
from .errors import GAME_STARTED, ILLEGAL, ROOM_FULL, UNKNOWN_PLAYER, WRONG_PHASE, IllegalAction
from .events import Event
from .lateness import credited
from .legality import check_type
from .presence import arrived, mark_abandoned, pass_host, to_computer
from .rounds import Rng, end_peek, end_round, peek_done, start_round
from .state import MAX_PLAYERS, Options, Player, State
from .vocabulary import LOBBY, PEEK, ROUND_OVER, EventKind

_SYSTEM_RNG: Rng = secrets.SystemRandom()


def new_table(
    host_name: str,
    options: Options | None = None,
    *,
    time_scale: float = 1.0,
    test_deck: list[str] | None = None,
    test_dealer: int | None = None,
    now: int | None = None,
) -> State:
    """A lobby with its host as p1. The test deck (index 0 = top of the stock)
    and dealer seat apply to the first round only; a test deck of 52 x k cards is k
    decks, one for each of the first k rounds in order (protocol v2's `decks`).
    `now`, when given, starts the host's R17.2 clock: a host who never connects
    is away 20 s later."""
    deck = None if test_deck is None else [
        c for i in range(0, max(len(test_deck), 1), 52) for c in parse_deck(test_deck[i:i + 52])]
    if test_dealer is not None and not 0 <= test_dealer < MAX_PLAYERS:
        raise ValueError("dealer must be a seat index 0-7")
    host = Player("p1", host_name, gone_since=now)
    return State(host="p1", players=[host], options=options or Options(),
                 time_scale=time_scale, test_deck=deck, test_dealer=test_dealer)


def _seat(state: State, player: str) -> int:
    seat = state.seat_of(player)
    if seat is None:
        raise IllegalAction(UNKNOWN_PLAYER, f"no player {player!r} at this table")
    return seat


def add_player(state: State, name: str, now: int) -> tuple[State, str, list[Event]]:
    """A new human seat in the lobby (R1.1: at most 8), not connected yet (its R17.2
    clock starts now)."""
    if state.status != LOBBY:
        raise IllegalAction(GAME_STARTED, "the game has already started")
    if len(state.players) >= MAX_PLAYERS:
        raise IllegalAction(ROOM_FULL, "the room has 8 players", "R1.1")
    new = state.copy()
    pid = _new_seat(new, name, None, now)
    new.version += 1
    return new, pid, [Event(EventKind.JOINED, {"player": pid})]


def _new_seat(state: State, name: str, bot_level: str | None, now: int | None) -> str:
    """Append a seat with the next player id (never reused)."""
    pid = f"p{state.next_player_no}"
    state.next_player_no += 1
    state.players.append(Player(pid, name, bot_level=bot_level,
                                gone_since=None if bot_level else now))
    return pid


def remove_player(state: State, player: str, now: int) -> tuple[State, list[Event]]:
    """Remove a seat from the lobby (kick); the seats behind it move up."""
    _seat(state, player)
    if state.status != LOBBY:
        raise IllegalAction(WRONG_PHASE, "players can only be removed in the lobby")
    new = state.copy()
    events: list[Event] = []
    _kick(new, player, events)
    new.version += 1
    return new, events


def set_connected(state: State, player: str, connected: bool,
                  now: int, since: int | None = None) -> tuple[State, list[Event]]:
    """Record a human seat's presence (R17.2-R17.6): a disconnect starts its 20 s
    away clock and may complete the peek phase (R16.2); a connect brings an away
    seat back at once, resumes a paused table and may make it the host (R17.4).
    `since`: when the connection's last sign of life was, if earlier than `now` (a
    connection whose process died is noticed late: its 20 s count from then, R17.3).
    A computer player has no connection: the same state and no events."""
    seat = _seat(state, player)
    p = state.players[seat]
    if p.bot_level is not None or p.connected == connected:
        return state, []
    new = state.copy()
    events: list[Event] = []
    advance_in_place(new, now, events)
    if connected:
        arrived(new, seat, now, events)
    else:
        p = new.players[seat]
        p.connected = False
        p.gone_since = now if since is None else min(now, since)
        events.append(Event(EventKind.DISCONNECTED, {"player": player}))
    if new.status == PEEK and peek_done(new):
        end_peek(new, now, events)
    new.version += 1
    return new, events


def advance(state: State, now: int) -> tuple[State, list[Event]]:
    """Apply every deadline due by `now`; the same state and no events if none is."""
    events: list[Event] = []
    new = state.copy()
    if not advance_in_place(new, now, events):
        return state, []
    new.version += 1
    return new, events


def apply(
    state: State, player: str, action: Action, now: int, rng: Rng | None = None
) -> tuple[State, list[Event]]:
    """Apply `player`'s action at time `now` (after any deadline that fell due).

    Raises InvalidAction when `action` is not a well-formed action (whatever
    object it is), IllegalAction with a protocol error code and rule id when the
    rules refuse it now, and nothing else; the input state is never changed.
    `rng` shuffles new decks and picks the first dealer; it defaults to the
    operating system's CSPRNG.
    """
    action = checked(action)
    seat = _seat(state, player)
    new = state.copy()
    events: list[Event] = []
    advance_in_place(new, now, events)
    if not (type(action) is CallCrisp and credited(new, seat, now, action.allowance_ms)):
        check_type(new, seat, action_type(action), now)  # R18.4: else a late call counts
    _dispatch(new, seat, action, now, rng or _SYSTEM_RNG, events)
    new.version += 1
    return new, events


def _dispatch(state: State, seat: int, action: Action, now: int, rng: Rng,
              events: list[Event]) -> None:
    match action:
        case Draw():
            turns.draw(state, action, events)
        case Swap():
            turns.swap(state, action, now, events)
        case Discard():
            turns.discard(state, now, events)
        case UseJack():
            turns.jack(state, now, events)
        case UseQueen():
            turns.queen(state, action, now, events)
        case UseKing():
            turns.king(state, now, events)
        case CallCrisp():
            _call_crisp(state, seat, events)
        case Ready():
            _ready(state, seat, now, rng, events)
        case SetOptions():
            _set_options(state, action, events)
        case Kick():
            _kick(state, action.player, events)
        case AddBot():
            _add_bot(state, action.level, events)
        case Leave():
            _leave(state, seat, events)
        case Start():
            _new_game(state, now, rng, events)
        case NextRound():
            _next_round(state, now, rng, events)
        case Rematch():
            _rematch(state, seat, events)


def _kick(state: State, player: str, events: list[Event]) -> None:
    """The host removes a seat (not their own): in the lobby it is freed, the seats
    behind it move up (a computer player's too); in a game a computer player takes
    it over (R17.5)."""
    seat = _seat(state, player)
    if player == state.host:
        raise IllegalAction(ILLEGAL, "the host cannot be removed")
    if state.status == LOBBY:
        _free_seat(state, seat, events)
    elif state.players[seat].bot_level is not None:
        raise IllegalAction(ILLEGAL, "the computer already plays this seat", "R17.5")
    else:
        to_computer(state, seat, events)


def _free_seat(state: State, seat: int, events: list[Event]) -> None:
    """R17.5 in the lobby: the seat is removed; the seats behind it move up."""
    player = state.players.pop(seat).id
    events.append(Event(EventKind.LEFT, {"player": player}))
    if player == state.host:
        pass_host(state, events)  # R17.4
    mark_abandoned(state)


def _fold(name: str) -> str:
    """A name as names of one room are compared: NFKC, case-folded (the server's
    `names.name_key` does the same to a name that joins)."""
    return unicodedata.normalize("NFKC", name).casefold()


def _add_bot(state: State, level: str, events: list[Event]) -> None:
    """R17.1: a computer player of `level` takes the next seat."""
    used = {_fold(p.name) for p in state.players}  # a human "computer 2" takes that name
    name = next(f"Computer {k}" for k in range(1, MAX_PLAYERS + 2)
                if _fold(f"Computer {k}") not in used)
    pid = _new_seat(state, name, level, None)
    events.append(Event(EventKind.BOT_ADDED, {"player": pid, "level": level}))


def _leave(state: State, seat: int, events: list[Event]) -> None:
    """A human leaves (R17.5): the lobby frees the seat, a game hands it to the
    computer; a leaving host hands the role on (R17.4)."""
    if state.status == LOBBY:
        _free_seat(state, seat, events)
    else:
        to_computer(state, seat, events)


def _set_options(state: State, action: SetOptions, events: list[Event]) -> None:
    """R16.1: the host sets the options in the lobby (R18.1: watching too)."""
    o = state.options
    state.options = Options(
        o.limit if action.limit is None else action.limit,
        action.draw_seconds if action.set_draw_seconds else o.draw_seconds,
        o.discard_draw if action.discard_draw is None else action.discard_draw,
        o.watchers if action.watchers is None else action.watchers,  # R18.1
    )
    events.append(Event(EventKind.OPTIONS, {"options": state.options.to_json()}))


def _new_game(state: State, now: int, rng: Rng, events: list[Event]) -> None:
    """Start a game: scores reset, a random first dealer (R2.1)."""
    for p in state.players:
        p.total = 0
    state.round = 0
    state.last_round = None
    state.history = []
    n = len(state.players)
    if state.test_dealer is not None and state.test_dealer < n:
        state.dealer = state.test_dealer
    else:
        state.dealer = rng.randrange(n)
    state.test_dealer = None
    start_round(state, now, rng, events)


def _rematch(state: State, seat: int, events: list[Event]) -> None:
    """R16.5: everyone goes back to the lobby with the same seats and options, totals
    reset (issue 11); the host may change the options and `start` again. Event
    `rematch` (a documented addition), public."""
    state.status = LOBBY
    for p in state.players:
        p.total = 0
        p.hand = [None, None, None]
        p.ready = False
        p.looks = []
    state.round = 0
    state.dealer = None
    state.stock = []
    state.discard = []
    state.holding = None
    state.turn = None
    state.windows = []
    state.late_windows = []
    state.caller = None
    state.final_left = []
    state.peek_ends_at = None
    state.last_round = None
    state.winners = []
    state.history = []
    events.append(Event(EventKind.REMATCH, {"player": state.players[seat].id}))


def _next_round(state: State, now: int, rng: Rng, events: list[Event]) -> None:
    """R2.1: the dealer moves one seat clockwise; a new deal."""
    assert state.dealer is not None
    state.dealer = (state.dealer + 1) % len(state.players)
    start_round(state, now, rng, events)


def _ready(state: State, seat: int, now: int, rng: Rng, events: list[Event]) -> None:
    """R16.2 peek confirmed, or R16.5 ready for the next round."""
    player = state.players[seat]
    player.ready = True
    events.append(Event(EventKind.READY, {"player": player.id}))
    if state.status == PEEK and peek_done(state):
        end_peek(state, now, events)
    elif state.status == ROUND_OVER and all(p.ready for p in state.players):
        _next_round(state, now, rng, events)


def _call_crisp(state: State, seat: int, events: list[Event]) -> None:
    """R10, R11.1: every other player takes one final turn, clockwise after the caller.

    The turn in progress, started or not, is the first final turn still to play
    (R10.2). A turn that already ended since the caller's own turn was that
    player's final turn, and the final turns go on after them (R10.4 revised);
    if every other player's turn has ended, the round ends at once (R11.2). The
    call closes every open window: there is one call per round (R10.3).
    """
    n = len(state.players)
    turn = state.turn
    assert turn is not None
    state.caller = seat
    state.windows = []
    state.late_windows = []
    first = (turn.player - seat) % n  # how far clockwise the turn has moved on
    state.final_left = [(seat + k) % n for k in range(first, n)] if first else []
    events.append(Event(EventKind.CRISP, {"player": state.players[seat].id}))
    if first:
        turn.final = True
    else:  # the turn came back to the caller: every final turn is played
        assert not turn.started
        end_round(state, events)
