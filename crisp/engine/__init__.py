"""The Crisp rules engine: pure, standard library only (R1-R16).

A reducer: a state, a player, an action and `now` (ms) in; a new state and
events out. See docs/engine-api.md.
"""

from .actions import ACTION_TYPES, SLOTS, Action, action_type
from .cards import FULL_DECK, Card, parse_deck
from .clock import next_deadline
from .computer import computer_seats
from .errors import ActionError, ErrorCode, IllegalAction, InvalidAction
from .events import Event, redact
from .legality import legal_types
from .looks import looks_for, owed_peeks
from .state import (
    GAME_OVER,
    LOBBY,
    PEEK,
    PLAYING,
    ROUND_OVER,
    HistoryEntry,
    Look,
    Options,
    Player,
    RoundResult,
    State,
    Turn,
)
from .table import add_player, advance, apply, new_table, remove_player, set_connected
from .view import view_for
from .vocabulary import ActionType, BotLevel, EventKind, Slot, SlotLabel, Source, Status
from .wire import action_from_dict, action_to_dict


def legal(state: State, player: str, now: int) -> list[str]:
    """The action types `player` may send now (the view's `legal` list)."""
    seat = state.seat_of(player)
    return [] if seat is None else legal_types(state, seat, now)


__all__ = [
    "ACTION_TYPES", "FULL_DECK", "GAME_OVER", "LOBBY", "PEEK", "PLAYING", "ROUND_OVER", "SLOTS",
    "Action", "ActionError", "ActionType", "BotLevel", "Card", "ErrorCode", "Event", "EventKind",
    "HistoryEntry", "IllegalAction", "InvalidAction", "Look", "Options", "Player", "RoundResult",
    "Slot", "SlotLabel", "Source", "State", "Status", "Turn", "action_from_dict", "action_to_dict",
    "action_type", "add_player", "advance", "apply", "computer_seats", "legal", "looks_for",
    "new_table", "next_deadline", "owed_peeks", "parse_deck", "redact", "remove_player",
    "set_connected", "view_for",
]
