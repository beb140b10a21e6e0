"""Memory-faithful, provably (R17.1): a bot's decisions depend only on what its seat
was shown.

For a random position (players, options, levels, a moment in the first round),
every card the seat has not seen (other hands, its own unseen cards, the stock)
is permuted among the positions of unseen cards, consistently with what it has
seen: a card another player drew from the stock and swapped in unseen stays a
number card (R6.1), since the seat saw that swap happen. The game is then
replayed move for move on the permuted deck. The seat must receive exactly the
same updates and make exactly the same decisions at every step.

A control test feeds a seat the unredacted events and shows the same check
catches it.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crisp.bots import Memory, choose, decide
from crisp.bots.selfplay import ALL_OPTIONS, START_MS, Step, new_game, play_game
from crisp.engine import (
    FULL_DECK,
    Card,
    Event,
    IllegalAction,
    Options,
    State,
    action_from_dict,
    action_to_dict,
    advance,
    apply,
    redact,
    view_for,
)
from crisp.server.rooms import computer_seats
from tests.engine.helpers import card_strings, lobby

FACES = {c.text for c in FULL_DECK if c.face}
Redactor = Callable[[Event, str], dict[str, Any] | None]


def replay(script: list[Step], players: int, options: Options, deck: list[str], dealer: int,
           seat: str, level: str, seed: int, upto: int,
           see: Redactor = redact) -> tuple[list[Any], list[Event]]:
    """Replay the first `upto` steps of a game on `deck`; the seat decides afresh.

    Returns the seat's trace (every update it received, every decision it made)
    and every event (unredacted). `upto` stops before the first round's reveal.
    """
    state = lobby(players, deck=deck, dealer=dealer, options=options).state
    memory, rng, quiet = Memory(seat, level), random.Random(seed), random.Random(0)
    trace: list[Any] = []
    log: list[Event] = []
    for step in script[:upto]:
        events: list[Event] = []
        if step.kind == "start":
            state, events = apply(state, "p1", action_from_dict({"type": "start"}), step.now,
                                   quiet)
        elif step.kind == "advance":
            state, events = advance(state, step.now)
        else:
            assert step.player is not None
            message = step.message
            if step.player == seat:
                message = choose(view_for(state, seat, step.now), memory, step.now, rng)
                trace.append(("decided", message))
            if message is not None:
                state, events = apply(state, step.player, action_from_dict(message), step.now,
                                      quiet)
        if any(e.kind == "round_over" for e in events):
            trace.append("revealed")  # never in an honest replay: `upto` stops before
            break
        log.extend(events)
        mine = [r for e in events if (r := see(e, seat)) is not None]
        view = view_for(state, seat, step.now)
        memory.observe(view, mine)
        trace.append(("saw", mine, view))
    return trace, log


def kept_unseen(log: list[Event], seat: str) -> set[str]:
    """Cards other players drew from the stock and swapped in: the seat saw the swap,
    so it knows each is a number card (R6.1), not which one."""
    out, drawn = set(), None
    for e in log:
        if e.kind == "drew":
            drawn = e.data["card"] if e.data["source"] == "stock" else None
        elif e.kind == "swapped" and e.data["player"] != seat and drawn is not None:
            out.add(drawn)
            drawn = None
    return out


def permuted(deck: list[str], seen: set[str], number_only: set[str],
             rng: random.Random) -> list[str]:
    """The deck with every unseen card moved to another unseen card's place; a card in
    `number_only` is replaced by a number card."""
    unseen = [c for c in deck if c not in seen]
    fixed = [c for c in unseen if c in number_only]
    numbers = [c for c in unseen if c not in FACES]
    images = rng.sample(numbers, len(fixed))
    rest = [c for c in unseen if c not in images]
    rng.shuffle(rest)
    sigma = dict(zip(fixed, images, strict=True))
    sigma.update(zip([c for c in unseen if c not in number_only], rest, strict=True))
    return [sigma.get(c, c) for c in deck]


def position(players: int, seed: int, options: Options, level: str,
             cut: float) -> tuple[list[Step], list[str], int, str, int, int]:
    """A random first round: its script, deck, dealer, the seat watched, its seed, a cut."""
    rng = random.Random(seed)
    deck = [c.text for c in FULL_DECK]
    rng.shuffle(deck)
    dealer = rng.randrange(players)
    levels = [rng.choice(("easy", "normal", "hard", "random")) for _ in range(players)]
    watched = rng.randrange(players)
    levels[watched] = level
    game = play_game(levels, rng, options=options, deck=deck, dealer=dealer, script=True,
                     views=True, stall_chance=0.05, max_rounds=1)
    seat = f"p{watched + 1}"
    before_reveal = len(game.script) - 1  # the last step ends the round: all cards shown
    upto = max(1, round(cut * before_reveal))
    return game.script, deck, dealer, seat, game.seeds[seat], upto


@settings(max_examples=80, deadline=None, derandomize=True)
@given(players=st.integers(2, 8), seed=st.integers(0, 2**32 - 1),
       options=st.sampled_from(ALL_OPTIONS),
       level=st.sampled_from(("easy", "normal", "hard", "random")),
       cut=st.floats(0.05, 1.0))
def test_r17_1_a_decision_depends_only_on_what_the_seat_was_shown(
        players: int, seed: int, options: Options, level: str, cut: float) -> None:
    script, deck, dealer, seat, seat_seed, upto = position(players, seed, options, level, cut)
    trace, log = replay(script, players, options, deck, dealer, seat, level, seat_seed, upto)
    assert any(t[0] == "decided" for t in trace) or upto < len(script)
    seen = set(card_strings([t[1:] for t in trace]))
    other = permuted(deck, seen, kept_unseen(log, seat), random.Random(seed ^ 0x5EED))
    if len(seen) <= 42:
        assert other != deck  # there were unseen cards, and they moved
    again, _ = replay(script, players, options, other, dealer, seat, level, seat_seed, upto)
    assert "revealed" not in trace
    assert again == trace


def test_the_check_catches_a_seat_that_is_fed_hidden_cards() -> None:
    """Control: a seat given the unredacted events (every drawn card, every look) is
    told apart by the very same permutation check."""

    def everything(event: Event, _seat: str) -> dict[str, Any]:
        return {"kind": event.kind, **event.data}

    caught = 0
    seeds = range(8)
    for seed in seeds:
        options = ALL_OPTIONS[seed % len(ALL_OPTIONS)]
        script, deck, dealer, seat, seat_seed, upto = position(3, seed, options, "normal", 1.0)
        honest, log = replay(script, 3, options, deck, dealer, seat, "normal", seat_seed, upto)
        seen = set(card_strings([t[1:] for t in honest]))
        other = permuted(deck, seen, kept_unseen(log, seat), random.Random(seed))
        cheat, _ = replay(script, 3, options, deck, dealer, seat, "normal", seat_seed, upto,
                          see=everything)
        try:
            cheat_again, _ = replay(script, 3, options, other, dealer, seat, "normal",
                                    seat_seed, upto, see=everything)
        except IllegalAction:  # it played differently, and the others' moves no longer fit
            caught += 1
            continue
        caught += cheat_again != cheat
    # a position where no hidden card changes anything the cheat does is possible
    assert caught >= len(seeds) - 1


# -- many rounds, a stock rebuilt from the pile, the server's own seat path (issue 26) ----
#
# The seat watched is a computer player (R17.1) played exactly as the server plays it
# (crisp/server/rooms/computer_seats.py): its memory lives in the room document as
# JSON and follows every change (`follow`), and at some moment it is rebuilt from the
# seat's view and looks alone (`rebuild_memory`: what the server does for a seat it
# starts playing mid-round, R17.2). Its moves are `decide` on `Memory.from_json`. The
# game runs over rounds 1-4 and stops at a random moment of its last round; in some
# tables nobody else ever calls, so rounds run long and the stock is rebuilt from the
# pile (R4.2), whose order the seat then knows. Every round's deck is then permuted
# among the cards the seat did not see in that round, and the game replayed: same
# updates, same decisions (the seat's random source has the same seed).


class Decks:
    """The engine's random source (it shuffles each round's deck, R2.2): `record` keeps
    the decks another source dealt, `feed` deals given ones."""

    def __init__(self, inner: random.Random | None = None,
                 decks: list[list[str]] | None = None) -> None:
        self.inner = inner
        self.decks = [] if decks is None else [list(d) for d in decks]
        self.dealt: list[list[str]] = []

    def shuffle(self, x: list[Card]) -> None:
        if self.inner is not None:
            self.inner.shuffle(x)
        else:
            x[:] = [Card.parse(c) for c in self.decks.pop(0)]
        self.dealt.append([c.text for c in x])

    def randrange(self, n: int) -> int:
        assert self.inner is not None, "the first dealer is set by the test"
        return self.inner.randrange(n)


class ServerSeat:
    """One seat played along the server's path: `computer_seats.follow` after every
    change, the memory dropped at change `forget_at` (rebuilt from the seat's view and
    looks, R17.2), and `decide` on the memory read back from JSON."""

    def __init__(self, seat: str, seed: int, forget_at: int, cheat: bool = False) -> None:
        self.seat, self.rng, self.forget_at = seat, random.Random(seed), forget_at
        self.computer: dict[str, Any] = {}
        self.changes = 0
        self.cheat: Memory | None = None
        if cheat:
            self.cheat = Memory(seat, "normal")

    def after(self, state: State, events: list[Event], now: int) -> None:
        self.changes += 1
        if self.changes == self.forget_at:
            self.computer.pop(self.seat, None)
        self.computer = computer_seats.follow(state, self.computer, events, now, 1.0)
        if self.cheat is not None:  # control: every event unredacted, every hand read
            self.cheat.observe(view_for(state, self.seat, now),
                               [{"kind": e.kind, **e.data} for e in events])
            for p in state.players:
                if all(c is not None for c in p.hand):
                    self.cheat.slots[p.id] = [c.text for c in p.hand if c is not None]

    def memory(self) -> Memory:
        if self.cheat is not None:
            return Memory.from_json({**self.cheat.to_json(), "level": self.level()})
        return Memory.from_json(self.computer[self.seat].memory)

    def level(self) -> str:
        return str(self.computer[self.seat].memory["level"])

    def decide(self, view: dict[str, Any], now: int) -> dict[str, Any] | None:
        """What the server's `play_due` does at the seat's time, as a message."""
        action = decide(view, self.memory(), now, self.rng)
        return None if action is None else action_to_dict(action)


class Long:
    """A multi-round position: the game's script, each round's deck, who is watched."""

    def __init__(self, players: int, seed: int, level: str, rounds: int, quiet: bool,
                 cut: float, cheat: bool = False) -> None:
        rng = random.Random(seed)
        self.players, self.level = players, level
        self.options = ALL_OPTIONS[seed % len(ALL_OPTIONS)]
        self.watched = 1 + rng.randrange(players - 1)  # p1 is the host, a human seat
        self.seat = f"p{self.watched + 1}"
        self.levels = [rng.choice(("easy", "normal", "hard")) for _ in range(players)]
        self.levels[self.watched] = level
        first = [c.text for c in FULL_DECK]
        rng.shuffle(first)
        self.dealer = rng.randrange(players)
        self.seat_seed = rng.getrandbits(32)
        self.forget_at = rng.randrange(2, 60)
        self.cheat = cheat
        decks = Decks(inner=random.Random(rng.getrandbits(32)))
        server = ServerSeat(self.seat, self.seat_seed, self.forget_at, cheat)

        def engine_apply(state: State, pid: str, action: Any, now: int,
                         _rng: Any) -> tuple[State, list[Event]]:
            new, events = apply(state, pid, action, now, decks)
            server.after(new, events, now)
            return new, events

        def engine_advance(state: State, now: int) -> tuple[State, list[Event]]:
            new, events = advance(state, now)
            server.after(new, events, now)
            return new, events

        def policy(view: dict[str, Any], memory: Memory, now: int,
                   seat_rng: random.Random) -> dict[str, Any] | None:
            if memory.me == self.seat:
                return server.decide(view, now)
            message = choose(view, memory, now, seat_rng)
            if quiet and message is not None and message["type"] == "crisp":
                return None  # nobody else calls: long rounds, a rebuilt stock (R4.2)
            return message

        game = play_game(self.levels, rng, options=self.options, deck=first,
                         dealer=self.dealer, script=True, views=False, stall_chance=0.03,
                         max_rounds=rounds, computer={self.watched}, apply_fn=engine_apply,
                         advance_fn=engine_advance, policy=policy, keep=True)
        self.script = game.script
        self.decks = [first, *decks.dealt]
        self.rebuilt = any(e.kind == "stock_rebuilt" for e in game.events)
        self.upto = max(1, round(cut * (len(self.script) - 1)))  # before the last reveal

    def replay(self, decks: list[list[str]], cheat: bool = False) -> tuple[list[Any],
                                                                         list[Event]]:
        """The script's first `upto` steps on `decks`, the watched seat deciding afresh
        on the server's path. Returns its trace (what it received, what it decided) and
        every event (unredacted)."""
        state = new_game(self.levels, self.options, START_MS, deck=decks[0],
                         dealer=self.dealer, computer={self.watched})
        feeder = Decks(decks=decks[1:])
        server = ServerSeat(self.seat, self.seat_seed, self.forget_at, cheat)
        trace: list[Any] = []
        log: list[Event] = []
        for step in self.script[:self.upto]:
            events: list[Event] = []
            changed = True
            if step.kind == "start":
                state, events = apply(state, "p1", action_from_dict({"type": "start"}),
                                      step.now, feeder)
            elif step.kind == "advance":
                state, events = advance(state, step.now)
            else:
                assert step.player is not None
                message = step.message
                if step.player == self.seat:
                    message = server.decide(view_for(state, self.seat, step.now), step.now)
                    trace.append(("decided", message))
                changed = message is not None
                if message is not None:
                    state, events = apply(state, step.player, action_from_dict(message),
                                          step.now, feeder)
            if changed:  # the server follows every change of the room (and only those)
                server.after(state, events, step.now)
            log.extend(events)
            mine = [r for e in events if (r := redact(e, self.seat)) is not None]
            trace.append(("saw", mine, view_for(state, self.seat, step.now)))
        return trace, log


def seen_by_round(trace: list[Any]) -> dict[int, set[str]]:
    """The cards the seat was shown in each round (events up to the next deal belong to
    the round they happened in; a view to its own round)."""
    out: dict[int, set[str]] = {}
    current = 0
    for entry in trace:
        if entry[0] != "saw":
            continue
        for event in entry[1]:
            if event["kind"] == "round_started":
                current = int(event["round"])
            out.setdefault(current, set()).update(card_strings(event))
        view = entry[2]
        out.setdefault(int(view.get("round") or 0), set()).update(card_strings(view))
    return out


def kept_unseen_by_round(log: list[Event], seat: str) -> dict[int, set[str]]:
    out: dict[int, set[str]] = {}
    current, start = 0, 0
    for i, e in enumerate([*log, Event("round_started", {"round": -1})]):
        if e.kind == "round_started":
            out[current] = kept_unseen(log[start:i], seat)
            current, start = int(e.data["round"]), i
    return out


def permuted_decks(long: Long, trace: list[Any], log: list[Event],
                   rng: random.Random) -> list[list[str]]:
    seen, kept = seen_by_round(trace), kept_unseen_by_round(log, long.seat)
    return [permuted(deck, seen.get(r + 1, set()), kept.get(r + 1, set()), rng)
            for r, deck in enumerate(long.decks)]


LONG = [  # players, seed, level, rounds, nobody else calls, where the replay stops
    (2, 11, "hard", 4, False, 0.64), (3, 12, "hard", 3, True, 0.73),
    (5, 13, "hard", 2, True, 0.6), (4, 15, "hard", 4, False, 0.55),
    (6, 16, "normal", 2, True, 0.64), (2, 17, "normal", 4, False, 0.73),
    (3, 19, "easy", 4, True, 0.91), (5, 22, "hard", 3, False, 0.73),
]


@pytest.mark.parametrize(("players", "seed", "level", "rounds", "quiet", "cut"), LONG)
def test_r17_1_over_rounds_and_a_rebuilt_stock_on_the_servers_seat_path(
        players: int, seed: int, level: str, rounds: int, quiet: bool, cut: float) -> None:
    long = Long(players, seed, level, rounds, quiet, cut=cut)
    trace, log = long.replay(long.decks)
    assert any(t[0] == "decided" for t in trace)
    if quiet and players >= 3 and level != "easy":
        assert long.rebuilt  # R4.2: long rounds turned the pile over
    reached = sum(e.kind == "round_started" for e in log)
    other = permuted_decks(long, trace, log, random.Random(seed ^ 0x5EED))[:reached]
    assert other != long.decks[:reached]  # there were unseen cards, and they moved
    again, _ = long.replay(other + long.decks[reached:])
    assert again == trace


# positions where the hidden cards change what a cheat does (late in a long round the
# seat has seen nearly every card, and a cheat plays like an honest seat), cut where given
CONTROL = [(3, 12, "hard", 3, True, 0.3), (6, 16, "normal", 2, True, 0.6),
           (2, 17, "normal", 4, False, 0.6), (5, 22, "hard", 3, False, 0.6)]


def test_the_round_check_catches_a_seat_fed_hidden_cards_on_the_server_path() -> None:
    """Control: the same seat fed every event unredacted and every hand (what R17.1
    forbids) is told apart by the per-round permutation check."""
    caught = 0
    for players, seed, level, rounds, quiet, cut in CONTROL:
        long = Long(players, seed, level, rounds, quiet, cut=cut, cheat=True)
        cheat, log = long.replay(long.decks, cheat=True)  # what it was sent is in `cheat`
        reached = sum(e.kind == "round_started" for e in log)
        other = permuted_decks(long, cheat, log, random.Random(seed))[:reached]
        try:
            cheat_again, _ = long.replay(other + long.decks[reached:], cheat=True)
        except IllegalAction:  # it played otherwise, and the others' moves no longer fit
            caught += 1
            continue
        caught += cheat_again != cheat
    assert caught == 4


def test_the_long_positions_play_several_rounds() -> None:
    """The positions above reach their third or fourth round (R16.5: a new deal each)."""
    for players, seed, level, rounds, quiet, cut in LONG:
        if players == 2:
            long = Long(players, seed, level, rounds, quiet, cut=cut)
            _trace, log = long.replay(long.decks)
            assert sum(e.kind == "round_started" for e in log) >= 3
