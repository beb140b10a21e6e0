"""Computer play in a table room (every game but Crisp; R17.1, R17.2, R17.5, R17.6),
as computer_seats.py does it for Crisp's: the same `ComputerSeat` records in the
room document (a memory and a plan), the same scheduler deadlines.

The game's own computer player (`Game.bot(level)`) sees only its seat: the view
the table sends that seat and the events as redacted for it (`observe`), and
answers with the client message that seat sends (`decide`), applied like a
player's. A computer player waits a human-like 1-2 s (scaled like every game
duration); an away seat acts at once (R17.2). A plan stays while the seat's part
of the game is the same (`need_of`), so presence changes do not delay it. A bot
that has nothing to send yet (its move may not begin) is asked again a little
later.
"""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import dataclass, replace
from typing import Any

from crisp.games.api import GameError
from crisp.server.rooms.computer_types import Computer, ComputerSeat, Plan
from crisp.table import room as game_table
from crisp.table.room import RNG, GameEvent, GameTable

log = logging.getLogger("crisp.server.rooms.table_computer")

MAX_MOVES = 16  # computer moves in one scheduler wake-up of a room, at most
PAUSE_MS = (1000, 2000)  # R17.1: a computer player's human-like pause, before scaling
AGAIN_MS = 1000  # a bot with nothing to send yet is asked again this much later (scaled)


def played_seats(gt: GameTable) -> dict[str, str]:
    """Seat -> level of every seat the computer plays: computer players (R17.1,
    R17.5) and away seats at the game's middle level (R17.2)."""
    levels = gt.game.bot_levels
    return {s.id: s.bot_level or levels[len(levels) // 2]
            for s in gt.players if s.bot_level is not None or s.away}


def need_of(gt: GameTable, pid: str, now: int) -> str:
    """What the seat must act on, as a key: its part of the game (the game's view of
    the seat), not the table's presence fields."""
    t = gt.table
    part = None if t.play is None else t.game.view(t.play, pid, now)
    text = json.dumps(part, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.blake2b(text.encode(), digest_size=12).hexdigest()


def _pause(gt: GameTable, pid: str, now: int) -> int:
    bot = next(s.bot_level for s in gt.players if s.id == pid)
    if bot is None:
        return now  # R17.2: an away seat at once
    low, high = PAUSE_MS
    return now + round(RNG.uniform(low, high) * gt.table.time_scale)


def follow(gt: GameTable, computer: Computer, events: list[Any], now: int) -> Computer:
    """The computer seats after a change: new ones start from their seat's view, the
    others observe the events as their seat gets them, seats whose player is back
    are dropped (R17.2), and every seat the game waits for has a plan."""
    seats = played_seats(gt)
    if not seats:
        return {}
    acting = {pid for pid, _level in game_table.computer_seats(gt, now)}
    out: Computer = {}
    for pid, level in seats.items():
        bot = gt.game.bot(level)
        old = computer.get(pid)
        if old is None:
            memory = bot.observe(bot.fresh(pid), game_table.view_for(gt, pid, now), [])
        else:  # the seat's view is made only when it has something to observe
            memory = old.memory["m"]
            seen = [r for e in events if isinstance(e, GameEvent)
                    and (r := e.redact(pid)) is not None]
            if seen:
                memory = bot.observe(memory, game_table.view_for(gt, pid, now), seen)
        plan = None
        if pid in acting:
            need = need_of(gt, pid, now)
            if old is not None and old.plan is not None and old.plan.need == need:
                plan = old.plan
            else:
                plan = Plan(need, _pause(gt, pid, now))
        out[pid] = ComputerSeat({"m": memory}, plan)
    return out


@dataclass(frozen=True)
class Played:
    """What `play_due` did (computer_seats.Played's shape)."""

    state: GameTable
    events: list[GameEvent]
    computer: Computer
    moves: list[tuple[str, str]]


def play_due(gt: GameTable, computer: Computer, now: int) -> Played:
    """Make the computer moves whose time has come, one at a time in time order,
    each on the table the previous one left (and `follow` after each)."""
    events: list[GameEvent] = []
    moves: list[tuple[str, str]] = []
    for _ in range(MAX_MOVES):
        due = [(s.plan.at, pid) for pid, s in computer.items()
               if s.plan is not None and s.plan.at is not None and s.plan.at <= now]
        if not due:
            break
        _at, pid = min(due)
        seat = computer[pid]
        assert seat.plan is not None
        if need_of(gt, pid, now) != seat.plan.need:  # the table moved on: plan again
            computer = follow(gt, {**computer, pid: replace(seat, plan=None)}, [], now)
            continue
        level = played_seats(gt)[pid]
        view = game_table.view_for(gt, pid, now)
        message = gt.game.bot(level).decide(seat.memory["m"], view, now, RNG)
        later = Plan(seat.plan.need, now + max(1, round(AGAIN_MS * gt.table.time_scale)))
        if message is None:  # its move may not begin yet: asked again later
            computer = {**computer, pid: replace(seat, plan=later)}
            continue
        try:
            gt, new = game_table.apply(gt, pid, message, now)
        except GameError as exc:  # a bot's move is built from its view: never expected
            log.warning("computer move %r of %s refused: %s", message, pid, exc.message)
            computer = {**computer, pid: replace(seat, plan=later)}
            continue
        events += new
        moves.append((pid, str(message.get("type"))))
        computer = follow(gt, computer, new, now)
    return Played(gt, events, computer, moves)
