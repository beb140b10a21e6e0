"""The engine's two errors (python-chess style: invalid vs illegal) and its error codes.

- `InvalidAction` (a `ValueError`): the input is not an action at all - an
  unknown type, a missing or ill-typed field, a value out of range. Code
  `bad_message`.
- `IllegalAction`: a well-formed action the rules or the table's state refuse
  now, with the rule id that forbids it.

`apply()` raises nothing else, whatever it is given.
"""

from __future__ import annotations

from enum import StrEnum


class ErrorCode(StrEnum):
    """The protocol error codes the engine can give (protocol.md, "Error codes")."""

    BAD_MESSAGE = "bad_message"
    NOT_HOST = "not_host"
    NOT_YOUR_TURN = "not_your_turn"
    TOO_EARLY = "too_early"  # before `may_start_at` (R10.4)
    WRONG_PHASE = "wrong_phase"
    ILLEGAL = "illegal"  # the rules forbid it; the rule id says which
    UNKNOWN_PLAYER = "unknown_player"
    ROOM_FULL = "room_full"  # R1.1
    GAME_STARTED = "game_started"


# The codes as plain module names (see vocabulary.py: faster than ErrorCode.X in 3.11).
BAD_MESSAGE = ErrorCode.BAD_MESSAGE
NOT_HOST = ErrorCode.NOT_HOST
NOT_YOUR_TURN = ErrorCode.NOT_YOUR_TURN
TOO_EARLY = ErrorCode.TOO_EARLY
WRONG_PHASE = ErrorCode.WRONG_PHASE
ILLEGAL = ErrorCode.ILLEGAL
UNKNOWN_PLAYER = ErrorCode.UNKNOWN_PLAYER
ROOM_FULL = ErrorCode.ROOM_FULL
GAME_STARTED = ErrorCode.GAME_STARTED


class ActionError(Exception):
    """What both engine errors carry: a protocol error `code`, a `message` (ending
    with the rule id when there is one) and the `rule` id or None."""

    def __init__(self, code: ErrorCode, message: str, rule: str | None = None) -> None:
        super().__init__(message)
        self.code = ErrorCode(code)
        self.rule = rule
        self.message = message if rule is None else f"{message} ({rule})"

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"


class IllegalAction(ActionError):
    """An action the rules or the table's state refuse (`not_your_turn`, `too_early`,
    `wrong_phase`, `illegal`, `not_host`, `unknown_player`, `room_full`,
    `game_started`); `rule` is the rule id that forbids it."""


class InvalidAction(ActionError, ValueError):
    """Malformed input: not an action the protocol can express (code `bad_message`)."""

    def __init__(self, message: str) -> None:
        super().__init__(BAD_MESSAGE, message)
