"""The public facts about a room (`GET /api/rooms/{code}`), for any game."""

from __future__ import annotations

from typing import Any

from crisp.games.registry import DEFAULT
from crisp.server.wire import rules


def room_summary(
    room_code: str, state: rules.RoomState, now: int, locked: bool = False, watchers: int = 0,
    game: str = DEFAULT,
) -> dict[str, Any]:
    """The public facts about a room (GET /api/rooms/{code}): its game (v2), its
    status at `now`, options, players, whether its lobby is locked and how many
    watch (R18.1); never a card, a token or anything of a view."""
    return {
        "code": room_code,
        "game": game,
        "status": rules.status(state, now),
        "options": state.options.to_json(),
        "players": [
            {"id": p.id, "name": p.name, "connected": p.connected, "is_host": p.id == state.host}
            for p in state.players
        ],
        "locked": locked,
        "watchers": watchers,
    }
