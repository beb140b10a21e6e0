"""Helpers for the engine tests: stacked decks (R2.2) and a small table driver.

    deck_for(hands={"p1": ["AS", "TD", "3C"], "p2": [...]}, stock=["KH", ...], dealer=0)
        -> a stacked deck that deals these hands (R2.2), from tests/support/decks.py.

    g = start(hands=..., stock=..., dealer=0, options=Options(...))
        -> a Game: players p1..pn joined, connected, the game started by the host,
        everyone ready (unless ready=False), so the first turn can be played at g.now.

A Game keeps the current state and clock. Every call through it checks what every
engine call must guarantee: the input state is never mutated, a change raises the
version, a refusal (IllegalAction) leaves the state as it was.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

import pytest

from crisp.engine import (
    FULL_DECK,
    Event,
    IllegalAction,
    Options,
    State,
    action_from_dict,
    add_player,
    advance,
    apply,
    legal,
    new_table,
    next_deadline,
    redact,
    set_connected,
    view_for,
)
from tests.support.decks import (  # noqa: F401 - the engine tests take them from here
    ALL_CARDS,
    FACE_CARDS,
    NUMBER_CARDS,
    deal_order,
    deck_for,
    pid,
)

T0 = 1_000_000  # the tests' clock starts here (ms)
ROOM_ACTIONS = ("kick", "add_bot", "leave")  # the seats themselves (R17), legal in any phase
START_DELAY = 2_000  # R10.4
WINDOW = 3_000  # R10.4
PEEK = 10_000  # R16.2

VALUES = {c.text: c.value for c in FULL_DECK}


def snapshot(state: State) -> str:
    """The state as canonical JSON text, for before/after comparisons."""
    return json.dumps(state.to_json(), sort_keys=True)


def cards_in(state: State) -> list[str]:
    """Every card of the table: stock, discard pile, hands, the held card, the Kings
    lying beside the piles (R9.3)."""
    out = [c.text for c in state.stock] + [c.text for c in state.discard]
    out += [c.text for p in state.players for c in p.hand if c is not None]
    if state.holding is not None:
        out.append(state.holding.text)
    if state.turn is not None:
        out += [c.text for c in state.turn.kings]
    return out


def seen_by(events: Iterable[Event], player: str) -> list[dict[str, Any]]:
    """The events as `player` receives them (redacted, the ones not for them left out)."""
    out = []
    for e in events:
        r = redact(e, player)
        if r is not None:
            out.append(r)
    return out


def kinds(events: Iterable[Event | dict[str, Any]]) -> list[str]:
    return [e.kind if isinstance(e, Event) else e["kind"] for e in events]


class Game:
    """The state of one table and a clock, with checked engine calls."""

    def __init__(self, state: State, now: int = T0, seed: int = 7) -> None:
        self.state = state
        self.now = now
        self.rng = random.Random(seed)
        self.log: list[Event] = []  # every event so far, in order
        self.last: list[Event] = []  # the events of the last call

    # -- checked engine calls ----------------------------------------------------------

    def _took(self, new: State, events: list[Event], before: str) -> list[Event]:
        assert snapshot(self.state) == before, "the engine mutated its input state"
        if new is not self.state or events:
            assert new is not self.state
            assert new.version > self.state.version, "a change must raise the version"
        self.state = new
        self.last = events
        self.log.extend(events)
        return events

    def act(self, player: str, kind: str, /, **fields: Any) -> list[Event]:
        """apply() the protocol message {"type": kind, **fields} at self.now."""
        action = action_from_dict({"type": kind, **fields})
        before = snapshot(self.state)
        new, events = apply(self.state, player, action, self.now, self.rng)
        return self._took(new, events, before)

    def refuse(self, player: str, kind: str, /, **fields: Any) -> IllegalAction:
        """apply() must refuse; the state stays exactly as it was."""
        action = action_from_dict({"type": kind, **fields})
        before = snapshot(self.state)
        with pytest.raises(IllegalAction) as info:
            apply(self.state, player, action, self.now, self.rng)
        assert snapshot(self.state) == before, "a refused action changed the state"
        return info.value

    def tick(self, ms: int = 0) -> list[Event]:
        """Move the clock by `ms` and advance()."""
        return self.at(self.now + ms)

    def at(self, t: int) -> list[Event]:
        """Set the clock to `t` and advance()."""
        assert t >= self.now, "time runs forward"
        self.now = t
        before = snapshot(self.state)
        due = next_deadline(self.state)
        new, events = advance(self.state, t)
        if due is None or due > t:
            assert new is self.state and events == [], "advance() with nothing due"
        else:
            assert new is not self.state
        return self._took(new, events, before)

    def connect(self, player: str, connected: bool = True) -> list[Event]:
        before = snapshot(self.state)
        new, events = set_connected(self.state, player, connected, self.now)
        return self._took(new, events, before)

    # -- looking at the table ----------------------------------------------------------

    def view(self, player: str) -> dict[str, Any]:
        return view_for(self.state, player, self.now)

    def legal(self, player: str) -> list[str]:
        return legal(self.state, player, self.now)

    def plays(self, player: str) -> list[str]:
        """`legal` without the room actions (kick, add_bot, leave: a human may leave
        at any time, R17.5), which tests/engine/test_engine_seats.py covers."""
        return [k for k in legal(self.state, player, self.now) if k not in ROOM_ACTIONS]

    def seen(self, player: str, events: Iterable[Event] | None = None) -> list[dict[str, Any]]:
        """The last call's events (or `events`) as `player` receives them."""
        return seen_by(self.last if events is None else events, player)

    def hand(self, player: str) -> list[str | None]:
        seat = self.state.seat_of(player)
        assert seat is not None
        return [None if c is None else c.text for c in self.state.players[seat].hand]

    def hands(self) -> dict[str, list[str | None]]:
        return {p.id: self.hand(p.id) for p in self.state.players}

    @property
    def ids(self) -> list[str]:
        return [p.id for p in self.state.players]

    @property
    def turn_player(self) -> str | None:
        t = self.state.turn
        return None if t is None else self.state.players[t.player].id

    def deadline(self) -> int:
        """The current draw's deadline (R14)."""
        turn = self.state.turn
        assert turn is not None and turn.draw_deadline is not None
        return turn.draw_deadline

    @property
    def holding(self) -> str | None:
        return None if self.state.holding is None else self.state.holding.text

    @property
    def discard(self) -> list[str]:
        """The discard pile, bottom first (the last one is the top)."""
        return [c.text for c in self.state.discard]

    @property
    def stock(self) -> list[str]:
        """The stock, top first (stock[0] is the next card drawn)."""
        return [c.text for c in reversed(self.state.stock)]

    # -- playing -----------------------------------------------------------------------

    def ready_all(self) -> None:
        for p in self.state.players:
            if self.state.status == "peek" and not p.ready:
                self.act(p.id, "ready")

    def until_may_start(self) -> None:
        """Move the clock to the moment the current player may draw (R10.4)."""
        turn = self.state.turn
        assert turn is not None
        if self.now < turn.may_start_at:
            self.at(turn.may_start_at)

    def draw(self, source: str = "stock") -> str:
        """The current player draws (waiting until they may); the card drawn."""
        self.until_may_start()
        who = self.turn_player
        assert who is not None
        self.act(who, "draw", source=source)
        held = self.holding
        assert held is not None
        return held

    def play_turn(self, how: str = "discard", slot: str = "right") -> list[Event]:
        """The current player plays a whole turn from the stock: each card is discarded
        (how="discard") or swapped into `slot` (how="swap"); a King is always played
        and its extra draws are played the same way; a face card is discarded."""
        events: list[Event] = []
        start = len(self.log)
        who = self.turn_player
        assert who is not None
        self.draw()
        while self.state.holding is not None:
            held = self.state.holding
            if held.rank == "K" and self.state.turn and self.state.turn.drawn_from == "stock":
                self.act(who, "king")
            elif how == "swap" and not held.face:
                self.act(who, "swap", slot=slot)
            else:
                self.act(who, "discard")
            t = self.state.turn
            if t is not None and self.turn_player == who and t.extra_draws > 0:
                self.act(who, "draw", source="stock")
        events = self.log[start:]
        return events

    def play_turns(self, count: int, how: str = "discard") -> None:
        for _ in range(count):
            self.play_turn(how)


def lobby(
    players: int = 2,
    *,
    deck: list[str] | None = None,
    dealer: int | None = None,
    options: Options | None = None,
    time_scale: float = 1.0,
    connect: bool = True,
    now: int = T0,
) -> Game:
    """A lobby with p1 (host) .. p<players>, connected unless connect=False."""
    state = new_table("P1", options, time_scale=time_scale, test_deck=deck, test_dealer=dealer)
    g = Game(state, now)
    for i in range(2, players + 1):
        before = snapshot(g.state)
        new, new_id, events = add_player(g.state, f"P{i}", g.now)
        assert new_id == pid(i - 1)
        g._took(new, events, before)
    if connect:
        for p in list(g.state.players):
            g.connect(p.id)
    return g


def start(
    hands: Mapping[str, Sequence[str | None]] | Sequence[Sequence[str | None]] | None = None,
    stock: Sequence[str] = (),
    dealer: int = 0,
    *,
    players: int | None = None,
    options: Options | None = None,
    ready: bool = True,
    time_scale: float = 1.0,
    connect: bool = True,
) -> Game:
    """A started game with a stacked deck (see deck_for); ready=True also ends the
    peek phase so that the player after the dealer may draw at g.now (R2.6)."""
    if hands is None:
        hands = [[None, None, None] for _ in range(players or 2)]
    deck = deck_for(hands, stock, dealer)
    n = len(hands)
    g = lobby(n, deck=deck, dealer=dealer, options=options, time_scale=time_scale,
              connect=connect)
    g.act("p1", "start")
    assert g.state.status == "peek"
    if ready:
        g.ready_all()
        assert g.state.status == "playing"
    return g


def card_strings(obj: Any) -> Iterator[str]:
    """Every string in a JSON value that is a card (e.g. "TD"), mappings' keys too,
    in order. A walk without recursion (the property tests read every view of every
    change: nested generators were a third of their time)."""
    out: list[str] = []
    stack = [obj]
    while stack:
        o = stack.pop()
        t = type(o)
        if t is str:
            if o in VALUES:
                out.append(o)
        elif t is dict:
            for k, v in reversed(o.items()):
                stack.append(v)
                stack.append(k)
        elif t is list or t is tuple:
            stack.extend(reversed(o))
        elif o is None or t is int or t is bool or t is float:
            pass
        elif isinstance(o, Mapping):
            for k, v in reversed(list(o.items())):
                stack.append(v)
                stack.append(k)
        elif isinstance(o, (list, tuple)):
            stack.extend(reversed(o))
        elif isinstance(o, str) and o in VALUES:
            out.append(o)
    return iter(out)


def call_and_finish(g: Game, caller: str | None = None, how: str = "discard") -> None:
    """Play turns until `caller` (default: the current player) has played, let them
    call crisp in their window, then play every final turn (R11)."""
    caller = caller or g.turn_player
    assert caller is not None
    while True:
        who = g.turn_player
        g.play_turn(how)
        if who == caller:
            break
    g.act(caller, "crisp")
    while g.state.status == "playing":
        g.play_turn(how)


def with_totals(g: Game, totals: Mapping[str, int]) -> None:
    """Set running totals mid-game (through the JSON form), e.g. to test the limit."""
    raw = g.state.to_json()
    for p in raw["players"]:
        if p["id"] in totals:
            p["total"] = totals[p["id"]]
    g.state = State.from_json(raw)
