"""Computer play (R17.1, R17.2, R17.5, R17.6), driven by the deadline scheduler.

The engine says which seats the computer plays (computer players, seats removed
during a game, away seats) and which of them must act now
(`engine.computer_seats`, empty while every human seat is away: R17.6); the
bots (`crisp.bots`) say what and when. This module keeps, in the room document,
one `ComputerSeat` per seat the computer plays:

- `memory`: a `crisp.bots.Memory` of what that seat was shown. It is built from
  the seat's looks of this round (`engine.owed_peeks(state, seat, 0)`, the
  engine's record of the looks still true) and its view when the computer starts
  playing the seat (R17.2: "using only what that seat has been shown"), then fed
  every change's events as that seat sees them (`engine.redact`). It never
  holds more, and it never leaves the server: the published change does not
  carry it, and no socket holds a computer seat.
- `plan`: its next move's time, a deadline like any other: `Rooms.mutate` saves
  the room's deadline as the earliest of the engine's and the plans', so the
  scheduler wakes the room then, on whichever process claims it, exactly once
  (`store.claim_due`), also after a restart. A plan is made with
  `crisp.bots.act_at` for what the seat must act on (`need`): for a computer
  player a human-like pause of 1-2 s, 0.3-1.2 s for a crisp call, scaled like
  every game duration (R17.1); for an away seat no pause, "at once" (R17.2), but
  never before its turn may start (R10.4). A plan stays while the need is the
  same, so other changes do not delay it.

At its time (`play_due`, inside the scheduler's compare-and-set) the seat's
move is `crisp.bots.decide(view_for(state, seat, now), memory, now, rng)`,
applied through `engine.apply` like a player's. A seat whose player reconnects
is no longer played by the computer in the very change that marks it back
(R17.2): its memory and plan are dropped there, so no later computer move for
it can be saved.
"""

from __future__ import annotations

import json
import logging
import random
from dataclasses import dataclass, replace
from typing import Any

from crisp import engine
from crisp.bots import Memory, act_at, decide
from crisp.engine import ActionError, Event, State
from crisp.engine.computer import AWAY_LEVEL
from crisp.server.rooms import table_computer
from crisp.server.rooms.computer_types import Computer, ComputerSeat, Plan
from crisp.server.wire import rules

log = logging.getLogger("crisp.server.rooms.computer_seats")

AWAY_PAUSE = 0.0  # R17.2: for an away seat the computer acts at once (no human pause)
MAX_MOVES = 16  # computer moves in one scheduler wake-up of a room, at most

_RNG = random.SystemRandom()

__all__ = ["Computer", "ComputerSeat", "Plan", "follow", "next_move_ms", "play_due"]


def played_seats(state: State) -> dict[str, str]:
    """Player id -> level of every seat the computer plays now: computer players
    (R17.1, R17.5) and away seats (R17.2)."""
    out: dict[str, str] = {}
    for p in state.players:
        if p.bot_level is not None:
            out[p.id] = p.bot_level
        elif p.away:
            out[p.id] = AWAY_LEVEL
    return out


def level_of_bot(state: State, seat: str) -> str | None:
    """The seat's level if it is a computer player (R17.1, R17.5), None for a human's
    seat (away or not)."""
    return next((p.bot_level for p in state.players if p.id == seat), None)


def rebuild_memory(state: State, seat: str, level: str, now: int) -> Memory:
    """What the seat was shown and is still true (R17.2): its view, then its looks
    of this round as the peeks it received (the engine's record, R16.3)."""
    memory = Memory(seat, level=level)
    memory.observe(engine.view_for(state, seat, now), [])
    looks = [r for e in engine.owed_peeks(state, seat, 0) if (r := engine.redact(e, seat))]
    if looks:
        memory.observe(None, looks)
    return memory


def need_of(view: dict[str, Any]) -> str:
    """What a seat must act on, as a key: the phase, its turn's step, its own crisp
    window. A plan stays while this is the same."""
    turn = view.get("turn") or {}
    crisp = view.get("crisp") or {}
    you = view["you"]
    windows = crisp.get("windows") or ([crisp["window"]] if crisp.get("window") else [])
    mine = [w["closes_at"] for w in windows if w and w.get("player") == you]
    ready = next((p.get("ready") for p in view["players"] if p["id"] == you), None)
    key = [
        view["status"], view["round"], ready, turn.get("player"), turn.get("may_start_at"),
        turn.get("extra_draws"), turn.get("drawn_from"), view.get("holding"), mine,
    ]
    return json.dumps(key, separators=(",", ":"))


def follow(
    state: rules.RoomState, computer: Computer, events: list[Any], now: int, time_scale: float
) -> Computer:
    """The computer seats after a change to `state` with `events`: new ones get a
    memory (rebuilt, R17.2), the others see the events as their seat does, seats
    the computer no longer plays are dropped (their player is back, R17.2), and
    every seat that must act now has a plan. A table room's: table_computer.py."""
    if rules.is_table(state):
        return table_computer.follow(state, computer, events, now)
    assert isinstance(state, State)
    seats = played_seats(state)
    if not seats:
        return {}
    acting = {pid for pid, _level in engine.computer_seats(state, now)}
    out: Computer = {}
    for pid, level in seats.items():
        old = computer.get(pid)
        if old is None:
            memory_json = rebuild_memory(state, pid, level, now).to_json()
        else:
            seen = [r for e in events if (r := engine.redact(e, pid)) is not None]
            memory_json = old.memory
            if seen:
                memory = Memory.from_json(old.memory)
                memory.observe(engine.view_for(state, pid, now), seen)
                memory_json = memory.to_json()
        plan = None
        if pid in acting:
            view = engine.view_for(state, pid, now)
            need = need_of(view)
            if old is not None and old.plan is not None and old.plan.need == need:
                plan = old.plan
            else:
                pause = time_scale if level_of_bot(state, pid) else AWAY_PAUSE
                plan = Plan(need, act_at(view, now, _RNG, pause))
        out[pid] = ComputerSeat(memory_json, plan)
    return out


def next_move_ms(computer: Computer) -> int | None:
    """The earliest planned computer move, or None."""
    times = [s.plan.at for s in computer.values() if s.plan is not None and s.plan.at is not None]
    return min(times) if times else None


@dataclass(frozen=True)
class Played:
    """What `play_due` did: the new state, its events, the computer seats after it,
    and the moves made as (seat, action type), in order."""

    state: rules.RoomState
    events: list[Any]
    computer: Computer
    moves: list[tuple[str, str]]


def play_due(
    state: rules.RoomState, computer: Computer, now: int, time_scale: float
) -> Played | table_computer.Played:
    """Make the computer moves whose time has come, one at a time in time order,
    each on the state the previous one left (and `follow` after each). A table
    room's: table_computer.py."""
    if rules.is_table(state):
        return table_computer.play_due(state, computer, now)
    assert isinstance(state, State)
    events: list[Event] = []
    moves: list[tuple[str, str]] = []
    for _ in range(MAX_MOVES):
        due = [
            (seat.plan.at, pid) for pid, seat in computer.items()
            if seat.plan is not None and seat.plan.at is not None and seat.plan.at <= now
        ]
        if not due:
            break
        _at, pid = min(due)
        seat = computer[pid]
        assert seat.plan is not None
        view = engine.view_for(state, pid, now)
        if need_of(view) != seat.plan.need:  # the table moved on: plan again
            computer = follow(state, {**computer, pid: replace(seat, plan=None)}, [], now,
                              time_scale)
            continue
        action = decide(view, Memory.from_json(seat.memory), now, _RNG)
        if action is None:  # e.g. it lets its crisp window pass
            computer = {**computer, pid: replace(seat, plan=Plan(seat.plan.need, None))}
            continue
        try:
            state, new = engine.apply(state, pid, action, now)
        except ActionError as exc:  # a bot's move is built from `legal`: never expected
            log.warning("computer move %r of %s refused: %s", action, pid, exc)
            computer = {**computer, pid: replace(seat, plan=Plan(seat.plan.need, None))}
            continue
        events += new
        moves.append((pid, engine.action_type(action)))
        computer = follow(state, computer, new, now, time_scale)
    return Played(state, events, computer, moves)
