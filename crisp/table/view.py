"""The view of a table for a seat or a watcher (None): the table's fields, the
game's view over them while a game is played, and events as each viewer gets
them. The game's `view` and `redact` are the only way a card leaves its state."""

from __future__ import annotations

from typing import Any

from crisp.games.api import JSON, Event

from .table import Said, Table
from .vocabulary import TableAction, TableStatus


def legal(t: Table, viewer: str | None, now: int) -> list[str]:
    """The message types `viewer` may send now: the table's, then the game's."""
    if viewer is None:
        return []
    seat = t.seat(viewer)
    host = t.host == viewer
    out: list[str] = []
    if t.play is None:
        if host:
            out += [TableAction.OPTIONS, TableAction.START, TableAction.ADD_BOT]
    elif t.over:
        if host:
            out.append(TableAction.REMATCH)
    else:
        out += t.game.legal(t.play, viewer, now)
    if host and len(t.seats) > 1:
        out.append(TableAction.KICK)
    if seat.bot_level is None:
        out.append(TableAction.LEAVE)
    return out


def view(t: Table, viewer: str | None, now: int) -> dict[str, JSON]:
    """What `viewer` sees: the game's view (while a game is played or over) with the
    table's fields over it; `players` joins each seat's table fields to the game's."""
    game_view: dict[str, Any] = {} if t.play is None else dict(t.game.view(t.play, viewer, now))
    per_player = game_view.pop("players", None) or [{} for _ in t.seats]
    out: dict[str, JSON] = {
        **game_view,
        "game": t.game_id,
        "version": t.version,
        "status": (TableStatus.LOBBY if t.play is None else
                   game_view.get("status", TableStatus.GAME_OVER if t.over else None)),
        "host": t.host,
        "you": viewer,
        "watching": viewer is None,
        "options": dict(t.options),
        "players": [{**extra, "id": s.id, "name": s.name, "seat": i,
                     "connected": s.connected, "away": s.away,
                     "is_bot": s.bot_level is not None, "bot_level": s.bot_level}
                    for i, (s, extra) in enumerate(zip(t.seats, per_player, strict=True))],
        "legal": legal(t, viewer, now),
        "winners": list(t.winners),
        "match": dict(t.match),
    }
    return out


def redact(t: Table, event: Event, viewer: str | None) -> dict[str, JSON] | None:
    """An event as `viewer` gets it: the table's are public, the game's the game's to say."""
    if isinstance(event, Said):
        return {"kind": event.kind, **event.data}
    return t.game.redact(event, viewer)
