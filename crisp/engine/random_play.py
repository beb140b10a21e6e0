"""Random legal play, for property tests and `crisp simulate`. Pure: the caller
passes the random source and drives a virtual clock."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from .actions import (
    Action,
    CallCrisp,
    Discard,
    Draw,
    NextRound,
    Ready,
    Rematch,
    Start,
    Swap,
    UseJack,
    UseKing,
    UseQueen,
)
from .clock import next_deadline
from .events import Event
from .legality import legal_types
from .state import GAME_OVER, PLAYING, Options, State
from .table import add_player, advance, apply, new_table, set_connected


def random_action(state: State, seat: int, kind: str, rng: random.Random) -> Action:
    """A random well-formed action of a type that is legal for `seat`."""
    n = len(state.players)
    if kind == "draw":
        can_discard = state.options.discard_draw and bool(state.discard)
        return Draw("discard" if can_discard and rng.random() < 0.3 else "stock")
    if kind == "swap":
        return Swap(rng.randrange(3))
    if kind == "queen":
        other = rng.choice([i for i in range(n) if i != seat])
        return UseQueen(rng.randrange(3), state.players[other].id, rng.randrange(3))
    simple: dict[str, Action] = {
        "discard": Discard(), "jack": UseJack(), "king": UseKing(), "crisp": CallCrisp(),
        "ready": Ready(), "start": Start(), "next_round": NextRound(), "rematch": Rematch(),
    }
    return simple[kind]


@dataclass
class GameRecord:
    """What a random game did: the states and per-seat events, for checks."""

    final: State
    actions: int = 0
    advances: int = 0
    rounds: int = 0
    states: list[State] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)


def random_options(rng: random.Random) -> Options:
    """Any combination of the host's options (R13-R15)."""
    return Options(rng.choice((50, 100, 150)), rng.choice((30, 45, 60, None)),
                   rng.random() < 0.5)


def play_random_game(
    players: int,
    rng: random.Random,
    *,
    options: Options | None = None,
    crisp_chance: float = 0.15,
    stall_chance: float = 0.03,
    keep: bool = False,
    max_steps: int = 200_000,
    apply_fn: Callable[..., tuple[State, list[Event]]] = apply,
    advance_fn: Callable[[State, int], tuple[State, list[Event]]] = advance,
) -> GameRecord:
    """Play one whole game of random legal moves on a virtual clock.

    `stall_chance` is how often a player lets the clock run to the next
    deadline instead of acting (exercising every timeout, R14.2). The game
    ends at game over; `max_steps` guards against a bug that never ends.
    `apply_fn` and `advance_fn` let a benchmark time the engine calls alone.
    """
    now = 1_000_000
    state = new_table("P1", options or random_options(rng))
    for i in range(2, players + 1):
        state, _, _ = add_player(state, f"P{i}", now)
    for p in list(state.players):
        state, _ = set_connected(state, p.id, True, now)
    record = GameRecord(final=state)
    state, _ = apply(state, "p1", Start(), now, rng)
    record.actions += 1
    for _ in range(max_steps):
        if keep:
            record.states.append(state)
        if state.status == GAME_OVER:
            record.final = state
            record.rounds = state.round
            return record
        choices = [(seat, kind) for seat in range(len(state.players))
                   for kind in legal_types(state, seat, now)]
        crisp_only = [c for c in choices if c[1] == "crisp"]
        acting = [c for c in choices if c[1] != "crisp"]
        if crisp_only and rng.random() < crisp_chance:
            seat, kind = crisp_only[0]
        elif acting and not (state.status == PLAYING and rng.random() < stall_chance):
            seat, kind = rng.choice(acting)
        else:
            later = [t for t in (next_deadline(state),
                                 state.turn.may_start_at if state.turn else None)
                     if t is not None and t > now]
            now = min(later) if later else now + 1000
            state, events = advance_fn(state, now)
            record.advances += 1
            if keep:
                record.events.extend(events)
            continue
        action = random_action(state, seat, kind, rng)
        state, events = apply_fn(state, state.players[seat].id, action, now, rng)
        record.actions += 1
        if keep:
            record.events.extend(events)
        now += rng.randrange(0, 400)
    raise RuntimeError("a random game did not end")


