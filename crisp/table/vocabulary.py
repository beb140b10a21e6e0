"""The table's wire names, each written once (protocol.md "v2 additions": seats,
host, options and the lobby are the table's in every game). Crisp's engine still
writes the same words for its own rooms (crisp/engine/vocabulary.py); once Crisp
sits behind the table, these are the only ones.
"""

from __future__ import annotations

from enum import StrEnum


class TableStatus(StrEnum):
    """The table's part of a view's `status` (while a game is played, the game's own)."""

    LOBBY = "lobby"
    GAME_OVER = "game_over"


class TableAction(StrEnum):
    """The client messages every game's table takes."""

    OPTIONS = "options"
    START = "start"
    KICK = "kick"
    ADD_BOT = "add_bot"
    LEAVE = "leave"
    REMATCH = "rematch"


class TableEvent(StrEnum):
    """The events of the table (public: every seat and watcher gets them)."""

    JOINED = "joined"
    LEFT = "left"
    CONNECTED = "connected"
    DISCONNECTED = "disconnected"
    AWAY = "away"
    BACK = "back"
    OPTIONS = "options"
    BOT_ADDED = "bot_added"
    TOOK_OVER = "took_over"
    HOST_CHANGED = "host_changed"
    REMATCH = "rematch"


class TableError(StrEnum):
    """The error codes the table gives (a game gives its own through GameError)."""

    BAD_MESSAGE = "bad_message"
    NOT_HOST = "not_host"
    WRONG_PHASE = "wrong_phase"
    ILLEGAL = "illegal"
    UNKNOWN_PLAYER = "unknown_player"
    ROOM_FULL = "room_full"
    GAME_STARTED = "game_started"
