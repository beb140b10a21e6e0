"""A small table for the Cribbage tests: starts games with test decks (protocol:
dealt from index 0 one card at a time from the player after the dealer), sends
messages, moves the clock, and plays bots the way the table does."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from crisp.games.api import Ctx, Event, Setup
from crisp.games.cribbage import GAME
from crisp.games.cribbage.cards import DECK
from crisp.games.cribbage.state import State
from crisp.games.cribbage.view import seat_view

PLAYERS = ("p1", "p2", "p3", "p4")


def build_deck(hands: Sequence[Sequence[str]], dealer: int, starter: str | None = None,
               crib_card: str | None = None) -> list[str]:
    """A test deck that deals `hands` (by seat) with `dealer` dealing; with 3 players
    `crib_card` goes to the crib; then `starter`; then the rest in deck order."""
    n = len(hands)
    each = len(hands[0])
    deck: list[str] = []
    for j in range(each):
        for k in range(n):
            deck.append(hands[(dealer + 1 + k) % n][j])
    if n == 3:
        assert crib_card is not None
        deck.append(crib_card)
    if starter is not None:
        deck.append(starter)
    deck += [c for c in DECK if c not in deck]
    assert len(set(deck)) == 52
    return deck


class Table:
    def __init__(self, n: int = 2, *, decks: Sequence[Sequence[str]] | None = None,
                 dealer: int | None = 0, options: Mapping[str, Any] | None = None,
                 seed: int = 1, now: int = 1_000, time_scale: float = 1.0,
                 match: Mapping[str, int] | None = None) -> None:
        self.players = list(PLAYERS[:n])
        self.rng = random.Random(seed)
        self.now = now
        self.log: list[Event] = []
        setup = Setup(decks=None if decks is None else tuple(tuple(d) for d in decks),
                      dealer=dealer, time_scale=time_scale, match=dict(match or {}))
        self.state, events = GAME.start(self.players, dict(options or {}), setup,
                                        Ctx(now, self.rng))
        self.log += events

    def send(self, player: str, message: Mapping[str, Any]) -> list[Event]:
        self.state, events = GAME.apply(self.state, player, GAME.parse(message),
                                        Ctx(self.now, self.rng))
        self.log += events
        return events

    def give(self, player: str, *cards: str) -> list[Event]:
        return self.send(player, {"type": "give", "cards": list(cards)})

    def lay(self, player: str, card: str) -> list[Event]:
        return self.send(player, {"type": "lay", "card": card})

    def wait(self, ms: int) -> list[Event]:
        self.now += ms
        self.state, events = GAME.advance(self.state, Ctx(self.now, self.rng))
        self.log += events
        return events

    def until_due(self) -> list[Event]:
        due = GAME.due(self.state)
        assert due is not None
        return self.wait(max(0, due - self.now))

    def view(self, player: str | None) -> dict[str, Any]:
        return seat_view(self.state, player, self.now)

    def kinds(self, events: Sequence[Event] | None = None) -> list[str]:
        return [str(e.kind) for e in (self.log if events is None else events)]

    def of(self, kind: str) -> list[Mapping[str, Any]]:
        return [e.data for e in self.log if e.kind == kind]

    def bot_step(self, levels: Mapping[str, str] | None = None) -> bool:
        """One bot move of a seat the game waits for; False if none moved."""
        for p in GAME.to_act(self.state, self.now):
            bot = GAME.bot((levels or {}).get(p, "normal"))
            msg = bot.decide(bot.fresh(p), self.view(p), self.now, self.rng)
            if msg is not None:
                self.send(p, msg)
                return True
        return False

    def play_to(self, predicate: Any, levels: Mapping[str, str] | None = None,
                limit: int = 5000) -> None:
        """Bots move (and the clock runs to deadlines) until `predicate(state)`."""
        for _ in range(limit):
            if predicate(self.state):
                return
            if not self.bot_step(levels):
                self.until_due()
        raise AssertionError("not reached")


def states_equal_json(a: State, b: State) -> bool:
    return GAME.to_json(a) == GAME.to_json(b)
