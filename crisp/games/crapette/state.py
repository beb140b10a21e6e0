"""The game's state: the table's cards plus the turn's bookkeeping (K3, K5.2, K6, K7).

Immutable values: every change makes a new `State` (`dataclasses.replace`). A
turn's moves are kept with the position before each (`MoveRecord.before`) and
what each was under the room's `calls` (K6.5: a call is judged on the turn still
being played), and with the version each produced (the one a call names).
"""

from __future__ import annotations

from dataclasses import dataclass

from .board import Board, Move
from .faults import Faults
from .vocabulary import Calls, Fault, OverWhy, Status

BLOCKED_AFTER = 30  # K5.2: idle turns in a row that end the game, a draw
MOVE_SECONDS = (None, 15, 30, 60)  # K7.1


@dataclass(frozen=True)
class Options:
    """The host options (protocol: `calls`, `move_seconds`, `watchers`) and the
    table's time scale (CRISP_TIME_SCALE)."""

    calls: Calls = Calls.OBVIOUS
    move_seconds: int | None = None
    watchers: bool = True
    time_scale: float = 1.0

    def move_ms(self) -> int | None:
        """K7.1: the time a move may take, scaled; None without a limit."""
        if self.move_seconds is None:
            return None
        return max(1, round(self.move_seconds * 1000 * self.time_scale))


@dataclass(frozen=True)
class MoveRecord:
    """One move of the turn being played: the version it produced, the move, the
    card it took, the position before it and its faults under the room's mode."""

    version: int
    move: Move
    card: int
    before: Board
    faults: Faults


@dataclass(frozen=True)
class CallRecord:
    """A judged call of this turn (K6.5): who, on which version, the fault it
    named (None: wrong), the sequence shown and, for a right call, the move missed."""

    player: str
    version: int
    fault: Fault | None
    shown: tuple[Move, ...] | None
    missed: Move | None = None  # a right call's move that should have been made

    @property
    def right(self) -> bool:
        return self.fault is not None


@dataclass(frozen=True)
class State:
    """A game of Crapette (see the module's docstring). `seq` counts the game's
    moves; `idle_turns` the turns in a row ended without progress (K5.2) and
    `progress` whether this turn made some; `barred` that the caller made a wrong
    call since the mover's last move (K6.6)."""

    players: tuple[str, str]
    options: Options
    board: Board
    status: Status = Status.PLAYING
    turn_no: int = 1
    idle_turns: int = 0
    progress: bool = False
    deadline: int | None = None
    seq: int = 0
    record: tuple[MoveRecord, ...] = ()
    calls: tuple[CallRecord, ...] = ()
    barred: bool = False
    winner: int | None = None
    why: OverWhy | None = None

    @property
    def mover(self) -> str:
        return self.players[self.board.mover]

    def seat(self, player: str | None) -> int | None:
        """The seat of a player id, None for a watcher or a stranger."""
        return self.players.index(player) if player in self.players else None

    def can_call(self, seat: int | None) -> bool:
        """K6.6: whether `seat` may call now (not whether the call would be right)."""
        return (self.status == Status.PLAYING and seat is not None
                and seat != self.board.mover and self.options.calls != Calls.OFF
                and not self.barred and bool(self.record))  # fmt: skip
