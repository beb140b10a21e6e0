"""What the server asks of a room's game, for every game: one call each, answered
by Crisp's engine for a Crisp room (its `State`) and by the generic table
(crisp/table/room.py) for every other game's (its `GameTable`).

The server's rooms, sockets and HTTP routes call these and never the engine or
the table directly for a room's state, so a game added to the registry is hosted
with no word here (docs/adding-a-game.md). Crisp keeps its engine path, byte for
byte the v1.2 protocol, until it moves behind the table too (docs/architecture.md
"The seam").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from typing_extensions import TypeIs

from crisp import engine
from crisp.engine import Action, ErrorCode, Event, IllegalAction, State
from crisp.engine.actions import Kick
from crisp.engine.clock import at_moment as crisp_at_moment
from crisp.games.registry import DEFAULT
from crisp.table import room as game_table
from crisp.table.room import GameEvent, GameTable
from crisp.table.vocabulary import TableAction

RoomState = State | GameTable
RoomEvent = Event | GameEvent


def is_table(state: RoomState) -> TypeIs[GameTable]:
    """Whether the room is a generic table's (every game but Crisp)."""
    return isinstance(state, GameTable)


def new_room(game: str, host_name: str, *, now: int, time_scale: float,
             deck: list[str] | None = None, decks: list[list[str]] | None = None,
             dealer: int | None = None) -> RoomState:
    """A lobby of `game` with its host as p1 (test decks and dealer: test hooks)."""
    if game == DEFAULT:
        return engine.new_table(host_name, options=None, time_scale=time_scale,
                                test_deck=deck, test_dealer=dealer, now=now)
    return game_table.new_table(game, host_name, now, time_scale, decks, dealer)


def state_from_json(raw: Mapping[str, Any]) -> RoomState:
    """A room's stored state: a table's names its game (`Table.to_json`), Crisp's
    engine state does not."""
    return GameTable.from_json(raw) if "game" in raw else State.from_json(dict(raw))


def event_from_json(raw: Mapping[str, Any]) -> RoomEvent:
    """A published event (a table room's name their game)."""
    return GameEvent.from_json(raw) if "game" in raw else Event.from_json(dict(raw))


def add_player(state: RoomState, name: str, now: int) -> tuple[RoomState, str, list[Any]]:
    if is_table(state):
        return game_table.add_player(state, name, now)
    assert isinstance(state, State)
    new, pid, events = engine.add_player(state, name, now)
    return new, pid, list(events)


def set_connected(state: RoomState, pid: str, connected: bool, now: int,
                  since: int | None = None) -> tuple[RoomState, list[Any]]:
    if is_table(state):
        return game_table.set_connected(state, pid, connected, now, since)
    assert isinstance(state, State)
    new, events = engine.set_connected(state, pid, connected, now, since)
    return new, list(events)


def apply(state: RoomState, pid: str, action: Action | Mapping[str, Any],
          now: int) -> tuple[RoomState, list[Any]]:
    """A seat's action: Crisp's engine action (the v1 message's `to_action()`), or a
    table room's client message itself; the other kind is `bad_message`."""
    if is_table(state):
        if not isinstance(action, Mapping):
            raise IllegalAction(ErrorCode.BAD_MESSAGE, "not a message of this game")
        return game_table.apply(state, pid, action, now)
    if isinstance(action, Mapping):
        raise IllegalAction(ErrorCode.BAD_MESSAGE, "not a message of this game")
    new, events = engine.apply(state, pid, action, now)
    return new, list(events)


def kicked(action: Action | Mapping[str, Any]) -> str | None:
    """The seat a kick removes (a human's kick locks the room: rooms/service.py)."""
    if isinstance(action, Mapping):
        target = action.get("player") if action.get("type") == TableAction.KICK else None
        return target if isinstance(target, str) else None
    return action.player if isinstance(action, Kick) else None


def next_deadline(state: RoomState) -> int | None:
    if is_table(state):
        return game_table.next_deadline(state)
    assert isinstance(state, State)
    return engine.next_deadline(state)


def advance(state: RoomState, now: int) -> tuple[RoomState, list[Any]]:
    if is_table(state):
        return game_table.advance(state, now)
    assert isinstance(state, State)
    new, events = engine.advance(state, now)
    return new, list(events)


def at_moment(state: RoomState, now: int) -> RoomState:
    """The state as of `now` for reading (Crisp's timed phases; a table's is as stored)."""
    return state if is_table(state) else crisp_at_moment(state, now)


def status(state: RoomState, now: int) -> str:
    """The view's `status` at `now`."""
    if is_table(state):
        return state.status_at(now)
    assert isinstance(state, State)
    return str(crisp_at_moment(state, now).status)


def view_for(state: RoomState, viewer: str | None, now: int) -> dict[str, Any]:
    if is_table(state):
        return game_table.view_for(state, viewer, now)
    assert isinstance(state, State)
    return dict(engine.view_for(state, viewer, now))

