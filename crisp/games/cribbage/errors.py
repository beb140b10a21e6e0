"""The refusals this game gives: `GameError` with a protocol code and the rule
id that forbids the action (the state is never changed by a refused action)."""

from __future__ import annotations

from ..api import BadMessage, GameError
from .vocabulary import ErrorCode


def bad_option(message: str) -> GameError:
    return BadMessage(message)


def bad(message: str) -> GameError:
    return BadMessage(message)


def illegal(message: str, rule: str) -> GameError:
    return GameError(ErrorCode.ILLEGAL, message, rule)


def wrong_phase(message: str, rule: str | None = None) -> GameError:
    return GameError(ErrorCode.WRONG_PHASE, message, rule)


def not_your_turn(message: str, rule: str | None = None) -> GameError:
    return GameError(ErrorCode.NOT_YOUR_TURN, message, rule)


def unknown_player(message: str) -> GameError:
    return GameError(ErrorCode.UNKNOWN_PLAYER, message)
