"""Crapette's wire names, each written once (protocol.md "v2 additions" /
"Crapette"): the statuses, the client messages, the event kinds, the pile names,
the option `calls`' values, the kinds of fault a right call names, why a turn or
the game ended, the bot levels and the error codes this game gives. Every other
module of the package uses the members (`StrEnum`s: equal to their text, written
to JSON as it).
"""

from __future__ import annotations

from enum import StrEnum


class GameId(StrEnum):
    """The game's id (GET /api/games, `"game"` of a room)."""

    CRAPETTE = "crapette"


class Status(StrEnum):
    """The view's `status` (the table shows `lobby` before `start`)."""

    LOBBY = "lobby"
    PLAYING = "playing"
    GAME_OVER = "game_over"  # K5


class ActionType(StrEnum):
    """A client message's `type` that is a Crapette action."""

    MOVE = "move"  # K4
    END = "end"  # K3.4
    CRAPETTE = "crapette"  # K6: the call


class EventKind(StrEnum):
    """An event's `kind`."""

    TURNED = "turned"  # K3.1, K3.3
    MOVED = "moved"  # K4
    CRAPETTE_TOP = "crapette_top"  # K2.3, K2.4
    RESTOCKED = "restocked"  # K3.5
    ENDED = "ended"  # K3.4, K6.5, K7.1
    CALLED = "called"  # K6.5
    GAME_OVER = "game_over"  # K5


class Pile(StrEnum):
    """The piles a move names, relative to the mover (`tableau:i` and
    `foundation:i` are `TABLEAU` and `FOUNDATION` with the index after a colon).
    `waste` and `stock` are no source and no destination of a move: they are
    recognised only to be refused with the rule that forbids them (K3.6, K4.1)."""

    CRAPETTE = "crapette"
    TURNED = "turned"
    OPPONENT_CRAPETTE = "opponent_crapette"
    OPPONENT_WASTE = "opponent_waste"
    WASTE = "waste"
    STOCK = "stock"
    TABLEAU = "tableau"
    FOUNDATION = "foundation"


class Calls(StrEnum):
    """The option `calls` (K6.1-K6.4)."""

    OFF = "off"
    OBVIOUS = "obvious"
    COMBINATION = "combination"
    STRICT = "strict"


class Fault(StrEnum):
    """The fault a right call names (K6.5)."""

    OBVIOUS = "obvious"  # K6.2
    COMBINATION = "combination"  # K6.3
    PRIORITY = "priority"  # K6.4


class EndWhy(StrEnum):
    """Why a turn ended (the `ended` event)."""

    END = "end"  # K3.4
    CALL = "call"  # K6.5
    TIMEOUT = "timeout"  # K7.1


class OverWhy(StrEnum):
    """Why the game ended (the `game_over` event, the view's `why`)."""

    OUT = "out"  # K5.1
    BLOCKED = "blocked"  # K5.2


class BotLevel(StrEnum):
    """A computer player's level."""

    EASY = "easy"
    NORMAL = "normal"
    HARD = "hard"


class ErrorCode(StrEnum):
    """The protocol error codes this game gives."""

    BAD_MESSAGE = "bad_message"
    NOT_YOUR_TURN = "not_your_turn"
    WRONG_PHASE = "wrong_phase"
    ILLEGAL = "illegal"
    NOT_A_PLAYER = "not_a_player"  # K6.6: a watcher's call (protocol v1.2)
