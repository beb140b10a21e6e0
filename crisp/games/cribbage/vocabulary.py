"""Cribbage's wire names, each written once (protocol.md "v2 additions" /
"Cribbage"): the statuses, the client messages, the event kinds, the scoring
items' kinds, the option `skunk`'s values and the game points' kinds, the bot
levels and the error codes this game gives. Every other module of the package
uses the members (`StrEnum`s: equal to their text, serialised as it).
"""

from __future__ import annotations

from enum import StrEnum


class Status(StrEnum):
    """The view's `status` (the table shows `lobby` before `start`)."""

    LOBBY = "lobby"
    GIVE = "give"  # C3.4
    PLAY = "play"  # C5
    SHOW = "show"  # C7
    HAND_OVER = "hand_over"  # C7.5
    GAME_OVER = "game_over"  # C2.1, C8.2


class ActionType(StrEnum):
    """A client message's `type` that is a Cribbage action."""

    GIVE = "give"  # C3.4
    LAY = "lay"  # C5
    CLAIM = "claim"  # C8.1
    MUGGINS = "muggins"  # C8.1
    READY = "ready"  # C7.5


class EventKind(StrEnum):
    """An event's `kind`."""

    CUT = "cut"  # C3.1
    HAND_STARTED = "hand_started"  # C3.2
    GAVE = "gave"  # C3.4
    STARTER = "starter"  # C4
    LAID = "laid"  # C5.4
    GO = "go"  # C5.2
    SERIES_OVER = "series_over"  # C5.3, C5.5
    SHOWN = "shown"  # C7
    CLAIMED = "claimed"  # C8.1
    MUGGINS = "muggins"  # C8.1
    HAND_OVER = "hand_over"  # C7.5
    GAME_OVER = "game_over"  # C2.1, C8.2


class ItemKind(StrEnum):
    """What a score was for (C9.3)."""

    FIFTEEN = "fifteen"
    THIRTY_ONE = "thirty_one"
    PAIR = "pair"
    PAIR_ROYAL = "pair_royal"
    DOUBLE_PAIR_ROYAL = "double_pair_royal"
    RUN = "run"
    GO = "go"
    FLUSH = "flush"
    NOBS = "nobs"
    HEELS = "heels"


class NoteKind(StrEnum):
    """What did not count where players expect it to (a show entry's `notes`)."""

    CRIB_FLUSH_NEEDS_STARTER = "crib_flush_needs_starter"  # C6.4
    FLUSH_NEEDS_FOUR_IN_HAND = "flush_needs_four_in_hand"  # C6.4


class Skunk(StrEnum):
    """The option `skunk` (C8.2)."""

    SKUNK = "skunk"
    LURCH = "lurch"
    OFF = "off"


class GamePointsKind(StrEnum):
    """`game_points.skunk` at `game_over` (C8.2)."""

    NONE = "none"
    SKUNK = "skunk"
    DOUBLE = "double"
    LURCH = "lurch"


class BotLevel(StrEnum):
    """A computer player's level (C10.1)."""

    EASY = "easy"
    NORMAL = "normal"
    HARD = "hard"


class ErrorCode(StrEnum):
    """The protocol error codes this game gives (protocol.md "Error codes")."""

    BAD_MESSAGE = "bad_message"
    NOT_YOUR_TURN = "not_your_turn"
    WRONG_PHASE = "wrong_phase"
    ILLEGAL = "illegal"
    UNKNOWN_PLAYER = "unknown_player"


CRIB = "crib"  # a show entry's `whose` for the crib (protocol)
