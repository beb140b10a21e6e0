"""Bot-only games through the engine: the referee loop behind `crisp simulate`.

This module is the table, not a player: it holds the engine state, hands each
seat exactly what a server would send it (`redact` of every event, and the
view when it must act), runs each seat's policy at the time `crisp.bots.timing`
says, and applies the moves. A refused move is never swallowed: `IllegalAction`
propagates, so a game that finishes is a game with zero refusals.

Each seat has its own random source for its decisions, and the referee one for
the deals and the pauses; with `script=True` every decision is recorded, so a
game can be replayed move for move (the faithfulness test does that on a deck
whose unseen cards were permuted).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field

from crisp.engine import (
    GAME_OVER,
    ROUND_OVER,
    ActionType,
    Event,
    EventKind,
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

from .memory import Memory
from .moves import Message
from .policy import Policy, choose
from .timing import act_at

START_MS = 1_000_000
ALL_OPTIONS: tuple[Options, ...] = tuple(
    Options(limit, seconds, pile)
    for limit in (50, 100, 150) for seconds in (30, 45, 60, None) for pile in (False, True)
)  # every combination of the host's options (R13-R15)


def new_game(levels: Sequence[str], options: Options, now: int, *, time_scale: float = 1.0,
             deck: list[str] | None = None, dealer: int | None = None,
             computer: Collection[int] = ()) -> State:
    """The lobby of a bot-only game: p1 is the host, then one seat per level, seat i a
    computer player (R17.1, `add_bot` at `levels[i]`) when i is in `computer`, else a
    connected human seat (played by the bots all the same)."""
    state = new_table("P1", options, time_scale=time_scale, test_deck=deck,
                      test_dealer=dealer)
    for i in range(1, len(levels)):
        if i in computer:
            add = action_from_dict({"type": ActionType.ADD_BOT, "level": levels[i]})
            state, _ = apply(state, "p1", add, now)
        else:
            state, _, _ = add_player(state, f"P{i + 1}", now)
    for p in state.players:
        if p.bot_level is None:
            state, _ = set_connected(state, p.id, True, now)
    return state


def random_options(rng: random.Random) -> Options:
    """Any combination of the host's options (R13-R15)."""
    return rng.choice(ALL_OPTIONS)


@dataclass
class RoundStats:
    """One round's outcome: who called, after how many turns (the caller's included)."""

    round: int
    caller: str | None = None
    turns_to_call: int | None = None
    scores: dict[str, int] = field(default_factory=dict)
    sums: dict[str, int] = field(default_factory=dict)


@dataclass
class Step:
    """One thing the referee did: a seat's decision (`message` None = it passed),
    the host's start, or the clock running to a deadline."""

    kind: str  # "decide" | "start" | "advance"
    now: int
    player: str | None = None
    message: Message | None = None


@dataclass
class GameResult:
    """What a bot-only game did."""

    final: State
    levels: dict[str, str]
    actions: int = 0
    advances: int = 0
    decisions: int = 0
    rounds: list[RoundStats] = field(default_factory=list)
    states: list[State] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    script: list[Step] = field(default_factory=list)
    memories: dict[str, Memory] = field(default_factory=dict)
    seeds: dict[str, int] = field(default_factory=dict)  # each seat's decision rng seed


ApplyFn = Callable[..., tuple[State, list[Event]]]
AdvanceFn = Callable[[State, int], tuple[State, list[Event]]]


class _Referee:
    """The loop of one game; see `play_game`."""

    def __init__(self, levels: Sequence[str], rng: random.Random, options: Options,
                 time_scale: float, deck: list[str] | None, dealer: int | None,
                 stall_chance: float, keep: bool, script: bool, views: bool,
                 apply_fn: ApplyFn, advance_fn: AdvanceFn, policy: Policy,
                 computer: Collection[int] = ()) -> None:
        self.rng = rng
        self.policy = policy
        self.time_scale = time_scale
        self.stall_chance = stall_chance
        self.keep, self.script, self.views = keep, script, views
        self.apply_fn, self.advance_fn = apply_fn, advance_fn
        self.now = START_MS
        state = new_game(levels, options, self.now, time_scale=time_scale, deck=deck,
                         dealer=dealer, computer=computer)
        self.ids = [p.id for p in state.players]
        self.state = state
        self.memory = {pid: Memory(pid, level) for pid, level in zip(self.ids, levels,
                                                                      strict=True)}
        seeds = {pid: rng.getrandbits(64) for pid in self.ids}
        self.seat_rng = {pid: random.Random(seed) for pid, seed in seeds.items()}
        self.due: dict[str, int | None] = dict.fromkeys(self.ids)
        self.result = GameResult(final=state, levels=dict(zip(self.ids, levels, strict=True)),
                                 memories=self.memory, seeds=seeds)
        self.starters: list[str] = []
        self.scheduled = 0  # the version the seats were last scheduled for

    # -- what every seat receives -------------------------------------------------------

    def deliver(self, events: list[Event]) -> None:
        if self.keep:
            self.result.events.extend(events)
            self.result.states.append(self.state)
        for pid in self.ids:
            mine = [r for e in events if (r := redact(e, pid)) is not None]
            if mine or self.views:
                view = view_for(self.state, pid, self.now) if self.views else None
                self.memory[pid].observe(view, mine)
        for e in events:
            self.count(e)

    def count(self, e: Event) -> None:
        rounds = self.result.rounds
        if e.kind == EventKind.ROUND_STARTED:
            rounds.append(RoundStats(e.data["round"]))
            self.starters = []
        elif e.kind == EventKind.TURN_STARTED and not e.data["final"]:
            self.starters.append(e.data["player"])
        elif e.kind == EventKind.CRISP:
            caller = e.data["player"]
            rounds[-1].caller = caller
            last = max(i for i, p in enumerate(self.starters) if p == caller)
            rounds[-1].turns_to_call = last + 1
        elif e.kind == EventKind.ROUND_OVER:
            rounds[-1].scores = dict(e.data["scores"])
            rounds[-1].sums = dict(e.data["sums"])

    # -- when each seat acts ------------------------------------------------------------

    def stall_ms(self) -> int:
        seconds = self.state.options.draw_seconds
        return round((seconds or 20) * 1000 * self.time_scale) + 1

    def schedule(self) -> None:
        """Give every seat that has something to do a time to do it (`act_at`).

        Only a change of the table can change what a seat may do (the clock
        making a turn's first draw legal is in `act_at`): so this runs once per
        version, and a seat keeps its time while it still has something to do."""
        state, now = self.state, self.now
        if state.version == self.scheduled:
            return
        self.scheduled = state.version
        turn = state.turn
        turn_view = None if turn is None else {"player": self.ids[turn.player],
                                               "may_start_at": turn.may_start_at}
        for seat, pid in enumerate(self.ids):
            kinds = legal(state, pid, now)
            mine = turn is not None and turn.player == seat
            glance = {"status": state.status, "you": pid, "legal": kinds, "turn": turn_view,
                      "holding": state.holding if mine else None}  # what act_at reads
            at = act_at(glance, now, self.rng, self.time_scale)
            if at is None:
                self.due[pid] = None
            elif self.due[pid] is None:
                if self.stall_chance and ActionType.CRISP not in kinds and \
                        self.rng.random() < self.stall_chance:
                    at += self.stall_ms()  # a slow seat: exercises R14.2 timeouts
                self.due[pid] = at

    def step(self) -> None:
        self.schedule()
        due = [(t, pid) for pid, t in self.due.items() if t is not None]
        deadline = next_deadline(self.state)
        if not due and deadline is None:
            raise RuntimeError("nobody can act and nothing is due: the table is stuck")
        if deadline is not None and (not due or deadline <= min(due)[0]):
            self.now = max(self.now, deadline)
            self.state, events = self.advance_fn(self.state, self.now)
            self.result.advances += 1
            if self.script:
                self.result.script.append(Step("advance", self.now))
            self.deliver(events)
            return
        at, pid = min(due)
        self.now = max(self.now, at)
        self.due[pid] = None
        message = self.policy(view_for(self.state, pid, self.now), self.memory[pid], self.now,
                              self.seat_rng[pid])
        self.result.decisions += 1
        if self.script:
            self.result.script.append(Step("decide", self.now, pid, message))
        if message is None:
            return
        self.state, events = self.apply_fn(self.state, pid, action_from_dict(message),
                                           self.now, self.rng)
        self.result.actions += 1
        self.deliver(events)

    def run(self, max_steps: int, max_rounds: int | None) -> GameResult:
        start = action_from_dict({"type": ActionType.START})
        self.state, events = self.apply_fn(self.state, "p1", start, self.now, self.rng)
        self.result.actions += 1
        if self.script:
            self.result.script.append(Step(ActionType.START, self.now))
        self.deliver(events)
        for _ in range(max_steps):
            if self.state.status == GAME_OVER or (
                    max_rounds is not None and self.state.status == ROUND_OVER
                    and self.state.round >= max_rounds):
                self.result.final = self.state
                return self.result
            self.step()
        raise RuntimeError(f"a bot game did not end in {max_steps} steps")


def play_game(
    levels: Sequence[str],
    rng: random.Random,
    *,
    options: Options | None = None,
    time_scale: float = 1.0,
    deck: list[str] | None = None,
    dealer: int | None = None,
    stall_chance: float = 0.0,
    keep: bool = False,
    script: bool = False,
    views: bool = False,
    max_steps: int = 200_000,
    max_rounds: int | None = None,
    apply_fn: ApplyFn = apply,
    advance_fn: AdvanceFn = advance,
    policy: Policy = choose,
    computer: Collection[int] = (),
) -> GameResult:
    """Play one whole game, seat i at `levels[i]` ("easy", "normal" or "random").

    p1 (the first seat) is the host and starts the game; from then on only the
    policies act, each at its own pace (`crisp.bots.timing`), on a virtual
    clock. `stall_chance` makes a seat now and then too slow for its draw
    timer (R14.2). `deck`/`dealer` stack the first round (engine test hooks).
    `keep` records every state and event, `script` every decision, `views`
    feeds each memory the view with every update, as a server does.
    `max_rounds` stops the game once that many rounds are over. `policy`
    replaces `crisp.bots.choose` (e.g. a random player that rarely calls);
    `apply_fn`/`advance_fn` wrap the engine calls (timing, checks). The seats whose
    index is in `computer` are computer players (`add_bot`, R17.1: "easy", "normal"
    or "hard"), the others connected human seats; the bots play them all alike.
    """
    return _Referee(levels, rng, options or Options(), time_scale, deck, dealer, stall_chance,
                    keep, script, views, apply_fn, advance_fn, policy,
                    computer).run(max_steps, max_rounds)
