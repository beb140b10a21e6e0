"""Computer players playing whole games of any registered game through its interface
(`crisp simulate --game ID`): how fast a game plays and how its levels fare. It
plays the way the table does: the players the game waits for send what their
bot decides from their own view, deadlines pass when they fall due, the clock
moves at a brisk human pace. Crisp's own simulator (crisp/simulate.py) says more
about Crisp.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from crisp.games.api import JSON, Ctx, Game, GameError, Setup, options_of

STEP_MS = 700  # the clock's step between two moves
MAX_MOVES = 20_000  # a game that has not ended by then is counted unfinished


@dataclass
class Figures:
    """What `play_games` measured."""

    game: str
    seats: int
    games: int = 0
    unfinished: int = 0
    refusals: int = 0
    moves: int = 0
    seconds: float = 0.0
    wins: Counter[str] = field(default_factory=Counter)  # by level, a shared win counted once
    seats_of: Counter[str] = field(default_factory=Counter)  # seats played, by level


def play_one(game: Game[Any, Any], levels: Sequence[str], rng: random.Random,
             options: Mapping[str, JSON] | None = None) -> tuple[tuple[str, ...] | None, int, int]:
    """One game: the winners (None: unfinished), the moves made and the moves refused."""
    players = [f"p{i + 1}" for i in range(len(levels))]
    now = 0
    state, _ = game.start(players, options_of(game, options or {}), Setup(), Ctx(now, rng))
    bots = {p: game.bot(level) for p, level in zip(players, levels, strict=True)}
    memory = {p: bots[p].fresh(p) for p in players}
    moves = refused = 0

    def follow(events: list[Any]) -> None:
        for p in players:
            seen = [e for e in (game.redact(ev, p) for ev in events) if e is not None]
            memory[p] = bots[p].observe(memory[p], game.view(state, p, now), seen)

    while game.outcome(state) is None and moves < MAX_MOVES:
        due = game.due(state)
        if due is not None and due <= now:
            state, events = game.advance(state, Ctx(now, rng))
            follow(events)
            continue
        acting = list(game.to_act(state, now))
        rng.shuffle(acting)
        for p in acting:
            message = bots[p].decide(memory[p], game.view(state, p, now), now, rng)
            if message is None:
                continue
            try:
                state, events = game.apply(state, p, game.parse(message), Ctx(now, rng))
            except GameError:
                refused += 1
                continue
            moves += 1
            follow(events)
            now += rng.randrange(STEP_MS)
            break
        else:
            if due is None and not acting:
                break  # stuck: counted unfinished
            now = due if due is not None and not acting else now + STEP_MS
    outcome = game.outcome(state)
    return (None if outcome is None else tuple(outcome.winners)), moves, refused


def play_games(game: Game[Any, Any], levels: Sequence[str], games: int,
               seed: int | None = None) -> Figures:
    """`games` games of `game` with one computer player per level, seats rotated."""
    rng = random.Random(seed)
    out = Figures(game.id, len(levels))
    start = time.perf_counter()
    for g in range(games):
        seated = [levels[(i + g) % len(levels)] for i in range(len(levels))]
        winners, moves, refused = play_one(game, seated, rng)
        out.games += 1
        out.moves += moves
        out.refusals += refused
        out.seats_of.update(seated)
        if winners is None:
            out.unfinished += 1
            continue
        out.wins.update({seated[int(p[1:]) - 1] for p in winners})
    out.seconds = time.perf_counter() - start
    return out


def report(fig: Figures) -> str:
    """The figures as lines of text."""
    rate = fig.games / fig.seconds if fig.seconds else 0.0
    lines = [f"{fig.game}: {fig.games} games of {fig.seats} seats in {fig.seconds:.2f} s "
             f"({rate:.1f} games/s), {fig.moves / max(1, fig.games):.1f} moves a game, "
             f"{fig.unfinished} unfinished, {fig.refusals} refused moves"]
    for level, seats in sorted(fig.seats_of.items()):
        lines.append(f"  {level}: won {fig.wins[level]} of {fig.games} games "
                     f"({seats} seats played)")
    return "\n".join(lines)
