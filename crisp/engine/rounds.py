"""Round flow: the deal (R2), the peek phase (R16.2), turn hand-over (R3, R10, R11)
and the reveal with scoring (R12)."""

from __future__ import annotations

from typing import Protocol

from .cards import FULL_DECK, Card, card_text
from .events import Event
from .looks import peek
from .state import HistoryEntry, RoundResult, State, Turn, Window
from .timing import PEEK_MS, START_DELAY_MS, WINDOW_MS, deadline_from, scaled
from .vocabulary import GAME_OVER, PEEK, PLAYING, ROUND_OVER, EventKind, Slot

DEAL_FIELDS = ("hands", "stock", "discard")  # round_started's sealed fields (R18.2)


class Rng(Protocol):
    """What the engine needs of a random source: a CSPRNG in production."""

    def shuffle(self, x: list[Card]) -> None: ...

    def randrange(self, n: int) -> int: ...


def new_deck(state: State, rng: Rng) -> list[Card]:
    """The next deck: the next 52 of the test decks (one per round, the first rounds
    in order) while some are left, else a shuffle."""
    if state.test_deck is not None:
        deck, rest = state.test_deck[:52], state.test_deck[52:]
        state.test_deck = rest or None
        return list(deck)
    deck = list(FULL_DECK)
    rng.shuffle(deck)
    return deck


def start_round(state: State, now: int, rng: Rng, events: list[Event]) -> None:
    """Deal a round (R2.2-R2.5) and open the peek phase (R2.4, R16.2).

    `state.dealer` must already be the dealer of this round. Deck index 0 is
    the top: cards go one at a time, starting after the dealer, in three passes;
    the first pass fills the left slots, then middle, then right.
    """
    n = len(state.players)
    deck = new_deck(state, rng)
    assert state.dealer is not None
    state.round += 1
    for p in state.players:
        p.hand = [None, None, None]
        p.ready = False
        p.looks = []
    for k in range(3 * n):
        seat = (state.dealer + 1 + k) % n
        state.players[seat].hand[k // n] = deck[k]  # pass k // n fills that Slot
    state.stock = deck[3 * n:][::-1]  # top of the stock last
    state.discard = []
    state.holding = None
    state.turn = None
    state.caller = None
    state.windows = []
    state.late_windows = []
    state.final_left = []
    state.winners = []
    state.status = PEEK
    state.peek_ends_at = now + scaled(state, PEEK_MS)
    # R18.2: the deal itself (every hand, the stock from its top) is sealed: it
    # reaches no live frame, only the round's record
    deal = {p.id: [card_text(c) for c in p.hand] for p in state.players}
    events.append(Event(EventKind.ROUND_STARTED, {"round": state.round,
                                          "dealer": state.players[state.dealer].id,
                                          "hands": deal,
                                          "stock": [c.text for c in reversed(state.stock)],
                                          "discard": []},
                        sealed=DEAL_FIELDS))
    for seat in range(n):  # R2.4: each player looks once at left and right
        for slot in (Slot.LEFT, Slot.RIGHT):
            events.append(peek(state, seat, slot, "deal"))


def peek_done(state: State) -> bool:
    """R16.2: every connected player has confirmed (and at least one is connected)."""
    connected = [p for p in state.players if p.connected]
    return bool(connected) and all(p.ready for p in connected)


def end_peek(state: State, at: int, events: list[Event]) -> None:
    """Close the peek phase at `at`; the player after the dealer may start (R2.6, R14.3)."""
    assert state.dealer is not None
    state.status = PLAYING
    state.peek_ends_at = None
    for p in state.players:
        p.ready = False
    begin_turn(state, (state.dealer + 1) % len(state.players), at, False, events)


def begin_turn(state: State, seat: int, may_start_at: int, final: bool,
               events: list[Event]) -> None:
    """Hand the turn to `seat`, who may draw from `may_start_at` (R10.4, R14.3)."""
    state.turn = Turn(seat, may_start_at, deadline_from(state, may_start_at), final)
    events.append(Event(EventKind.TURN_STARTED, {"player": state.players[seat].id, "final": final}))


def end_turn(state: State, at: int, timed_out: bool, events: list[Event]) -> None:
    """The current turn ended at `at`.

    The Kings played in it go on the discard pile, in play order (R9.3). A
    normal turn opens its player's crisp window (R10.4) unless it ended by
    timeout (R10.5, R14.2d); the next player may start 2 s later, or at once
    when no window opens. Windows already open stay open: each lasts its flat
    3 s (R10.4 revised). After a final turn no window opens (R10.3); after the
    last one the round ends (R11.2).
    """
    turn = state.turn
    assert turn is not None
    n = len(state.players)
    state.holding = None
    if turn.kings:
        state.discard.extend(turn.kings)  # R9.3: the last King played on top
        turn.kings = []
    if turn.final:
        state.final_left = [s for s in state.final_left if s != turn.player]
        if not state.final_left:
            end_round(state, events)
            return
        begin_turn(state, state.final_left[0], at, True, events)
        return
    if timed_out:
        begin_turn(state, (turn.player + 1) % n, at, False, events)
        return
    state.windows.append(Window(turn.player, at + scaled(state, WINDOW_MS)))
    begin_turn(state, (turn.player + 1) % n, at + scaled(state, START_DELAY_MS), False, events)


def end_round(state: State, events: list[Event]) -> None:
    """Reveal and score (R11.2, R12.1-R12.4); end the game at the limit (R12.5, R12.6)."""
    state.turn = None
    state.windows = []
    state.late_windows = []
    state.final_left = []
    sums = {p.id: sum(c.value for c in p.hand if c is not None) for p in state.players}
    scores = dict(sums)
    caller_id = None if state.caller is None else state.players[state.caller].id
    if caller_id is not None:
        lowest = all(sums[caller_id] < s for pid, s in sums.items() if pid != caller_id)
        scores[caller_id] += -5 if lowest else 5  # R12.2 / R12.3
    for p in state.players:
        p.total += scores[p.id]
        p.ready = False
        p.looks = []  # R16.3: every card is face up now
    result = RoundResult(round=state.round, caller=caller_id, sums=sums, scores=scores,
                         hands={p.id: [card_text(c) for c in p.hand] for p in state.players})
    totals = {p.id: p.total for p in state.players}
    state.last_round = result
    state.history.append(HistoryEntry(state.round, caller_id, scores, totals))
    state.status = ROUND_OVER
    shown = result.to_json()
    events.append(Event(EventKind.ROUND_OVER, {"hands": shown["hands"], "sums": shown["sums"],
                                       "scores": shown["scores"], "totals": totals,
                                       "caller": caller_id}))
    if any(t >= state.options.limit for t in totals.values()):  # R12.5
        best = min(totals.values())
        state.winners = [pid for pid, t in totals.items() if t == best]  # R12.6
        state.status = GAME_OVER
        events.append(Event(EventKind.GAME_OVER,
                            {"totals": totals, "winners": list(state.winners)}))
