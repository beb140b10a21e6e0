"""Computer play in-process (crisp/server/computer.py), on engine states and a
virtual clock: the plans are the scheduler's deadlines, never instant; a seat's
memory holds only what that seat was shown; an away seat is rebuilt from its own
looks and dropped the moment its player is back; a plan is not pushed back by
changes that do not concern its seat."""

from __future__ import annotations

import random
from typing import Any

from crisp import engine
from crisp.bots import CRISP_THINK_MS, THINK_MS, Memory, random_move
from crisp.engine import Event, State
from crisp.engine import actions as A
from crisp.server.rooms.computer_seats import ComputerSeat, follow, need_of, next_move_ms, play_due

SCALE = 0.1
# the one event each move makes (crisp/engine/turns.py, table.py)
MOVE_EVENTS = frozenset(("ready", "drew", "swapped", "discarded", "jack", "queen", "king",
                         "crisp"))
T0 = 1_000_000


def table(bots: int, humans: int = 1, seed: int = 3) -> tuple[State, int]:
    """A started game: `humans` connected humans (p1 hosts) and `bots` computer players.
    (The deal's looks are in the state's record: `engine.looks_for`.)"""
    now = T0
    state = engine.new_table("Ana", time_scale=SCALE, now=now)
    state, _ = engine.set_connected(state, "p1", True, now)
    for i in range(humans - 1):
        state, pid, _ = engine.add_player(state, f"H{i}", now)
        state, _ = engine.set_connected(state, pid, True, now)
    for _ in range(bots):
        state, _ = engine.apply(state, "p1", A.AddBot("normal"), now)
    state, _ = engine.apply(state, "p1", A.Start(), now, rng=random.Random(seed))
    return state, now


def shown_cards(events: list[Event], seat: str) -> set[str]:
    """Every card identity the events show `seat` (as redacted for it)."""
    out: set[str] = set()

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)
        elif isinstance(value, str) and len(value) == 2 and value[1] in "SHDC":
            out.add(value)

    for e in events:
        red = engine.redact(e, seat)
        if red is not None:
            walk(red)
    return out


def run(state: State, now: int, seats: dict[str, ComputerSeat], until: int
        ) -> tuple[State, dict[str, ComputerSeat], list[Event], list[int]]:
    """Wake the room at each deadline until `until`, like the scheduler; the human (p1)
    plays the random policy at once. Returns every event and, for each computer
    move, how long after its plan was made it came."""
    rng = random.Random(1)
    events: list[Event] = []
    pauses: list[int] = []
    made: dict[str, tuple[int, int]] = {}  # seat -> (its plan's time, when it was made)

    def note_plans(at: int) -> None:
        for pid, s in seats.items():
            if s.plan and s.plan.at and made.get(pid, (0, 0))[0] != s.plan.at:
                made[pid] = (s.plan.at, at)

    note_plans(now)
    while True:
        move = random_move(engine.view_for(state, "p1", now), rng, crisp_chance=0.5)
        if move is not None:
            state, new = engine.apply(state, "p1", engine.action_from_dict(move), now)
            seats = follow(state, seats, new, now, SCALE)
            events += new
            note_plans(now)
            continue
        due = [t for t in (engine.next_deadline(state), next_move_ms(seats)) if t is not None]
        if not due or min(due) > until:
            return state, seats, events, pauses
        now = max(now, min(due))
        state, new = engine.advance(state, now)
        seats = follow(state, seats, new, now, SCALE)
        note_plans(now)
        played = play_due(state, seats, now, SCALE)
        state, moves, seats = played.state, played.events, played.computer
        assert [who for who, _kind in played.moves] == [
            e.data["player"] for e in moves if e.kind in MOVE_EVENTS]
        pauses += [now - made[who][1] for who in {e.data.get("player") for e in moves}
                   if who in made and made[who][0] <= now]
        events += new + moves
        note_plans(now)


def test_r17_1_every_plan_is_a_human_like_pause_never_instant() -> None:
    state, now = table(bots=3)
    seats = follow(state, {}, [], now, SCALE)
    assert set(seats) == {"p2", "p3", "p4"}
    for s in seats.values():  # the peek phase: each bot confirms after a pause
        assert s.plan is not None and s.plan.at is not None
        assert THINK_MS[0] * SCALE <= s.plan.at - now <= THINK_MS[1] * SCALE
    state, seats, events, pauses = run(state, now, seats, until=now + 60_000)
    assert len(pauses) > 20
    assert min(pauses) >= CRISP_THINK_MS[0] * SCALE  # the shortest pause: a crisp call
    moved = {e.data.get("player") for e in events if e.kind in ("drew", "ready")}
    assert {"p2", "p3", "p4"} <= moved


def test_r17_1_a_memory_holds_only_what_its_seat_was_shown() -> None:
    state, now = table(bots=2, humans=2)
    seats = follow(state, {}, [], now, SCALE)
    # what each seat was shown at the start: its deal looks (R2.4)
    shown = {pid: {look.card.text for look in engine.looks_for(state, pid)} for pid in seats}
    _state, seats, events, _ = run(state, now, seats, until=now + 30_000)
    for pid, seat in seats.items():
        seen = shown[pid] | shown_cards(events, pid)
        remembered = Memory.from_json(seat.memory).cards()
        assert remembered <= seen, (pid, remembered - seen)


def test_r17_2_an_away_seat_is_rebuilt_from_its_own_looks_and_dropped_when_back() -> None:
    state, now = table(bots=0, humans=2)
    state, _ = engine.apply(state, "p1", A.Ready(), now)
    state, _ = engine.apply(state, "p2", A.Ready(), now)
    state, _ = engine.set_connected(state, "p2", False, now)
    later = now + int(20_000 * SCALE)
    state, events = engine.advance(state, later)
    assert [e.kind for e in events if e.kind == "away"] == ["away"]
    seats = follow(state, {}, events, later, SCALE)
    assert set(seats) == {"p2"}
    memory = Memory.from_json(seats["p2"].memory)
    looks = {look.card.text for look in engine.looks_for(state, "p2")}
    assert memory.cards() - {engine.view_for(state, "p2", later)["discard_top"]} == looks
    assert len(looks) == 2  # its left and right cards (R2.4), nothing else
    # the player connects: the computer no longer plays the seat, in that very change
    state, events = engine.set_connected(state, "p2", True, later + 1)
    assert "back" in [e.kind for e in events]
    assert follow(state, seats, events, later + 1, SCALE) == {}


def test_a_plan_stays_while_its_seat_must_act_on_the_same_thing() -> None:
    state, now = table(bots=1, humans=2)
    seats = follow(state, {}, [], now, SCALE)
    plan = seats["p3"].plan
    assert plan is not None and plan.need == need_of(engine.view_for(state, "p3", now))
    # one human confirms the peek phase: a change, but not the bot's business
    state, events = engine.apply(state, "p1", A.Ready(), now + 10)
    assert state.status == "peek"
    again = follow(state, seats, events, now + 10, SCALE)
    assert again["p3"].plan == plan


def test_r17_2_the_computer_acts_for_an_away_seat_at_once() -> None:
    state, now = table(bots=0, humans=2)
    state, _ = engine.apply(state, "p1", A.Ready(), now)
    state, _ = engine.apply(state, "p2", A.Ready(), now)
    assert state.status == "playing" and state.turn is not None
    mover = state.players[state.turn.player].id
    state, _ = engine.set_connected(state, mover, False, now)
    later = now + int(20_000 * SCALE)
    state, events = engine.advance(state, later)
    assert [e.data["player"] for e in events if e.kind == "away"] == [mover]
    seats = follow(state, {}, events, later, SCALE)
    plan = seats[mover].plan
    assert plan is not None and plan.at is not None
    # no human pause: as soon as its turn may start (R10.4)
    may_start = engine.view_for(state, mover, later)["turn"]["may_start_at"]
    assert plan.at == max(later, may_start)
    # its whole turn in that one wake-up: the draw, then what it does with the card
    played = play_due(state, seats, plan.at, SCALE)
    kinds = [kind for who, kind in played.moves if who == mover]
    assert kinds[0] == "draw" and len(kinds) >= 2, kinds
    # a computer player, by contrast, pauses (R17.1)
    state, now = table(bots=1)
    seats = follow(state, {}, [], now, SCALE)
    at = seats["p2"].plan.at if seats["p2"].plan else None
    assert at is not None and at - now >= THINK_MS[0] * SCALE
