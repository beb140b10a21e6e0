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

from hypothesis import given, settings
from hypothesis import strategies as st

from crisp.bots import Memory, choose
from crisp.bots.selfplay import ALL_OPTIONS, Step, play_game
from crisp.engine import (
    FULL_DECK,
    Event,
    IllegalAction,
    Options,
    action_from_dict,
    advance,
    apply,
    redact,
    view_for,
)
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
    levels = [rng.choice(("easy", "normal", "random")) for _ in range(players)]
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
       options=st.sampled_from(ALL_OPTIONS), level=st.sampled_from(("easy", "normal", "random")),
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
    for seed in range(6):
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
    assert caught == 6
