"""A table room's client messages (every game but Crisp; protocol.md "v2
additions"): the table's (`options`, `start`, `kick`, `add_bot`, `leave`,
`rematch`) and the game's own, read by the table and the game
(crisp/table/room.py), not by the v1 models of wire/client.py. `hello` and `lock`
are every room's and keep those models.
"""

from __future__ import annotations

import re
from typing import Any

from crisp.games.api import BadMessage
from crisp.server.wire.vocabulary import MessageType

TABLE_MESSAGE = "table_message"  # a refused table message, as the hooks count it
_TYPE = re.compile(r"[a-z][a-z_]{0,31}")
_ROOM_TYPES = frozenset({MessageType.HELLO, MessageType.LOCK})


def type_of(data: Any) -> str:
    """The message's `type` if it looks like one, else TABLE_MESSAGE."""
    kind = data.get("type") if isinstance(data, dict) else None
    return kind if isinstance(kind, str) and _TYPE.fullmatch(kind) else TABLE_MESSAGE


def is_room_message(data: Any) -> bool:
    """`hello` or `lock`: every room's messages, read by wire/client.py."""
    return isinstance(data, dict) and data.get("type") in _ROOM_TYPES


def table_message(data: Any) -> dict[str, Any]:
    """The message for the table (its `id` set aside); `bad_message` for anything
    that is not an object with a `type`."""
    if not isinstance(data, dict) or type_of(data) == TABLE_MESSAGE:
        raise BadMessage("a message is an object with a type")
    return {k: v for k, v in data.items() if k != "id"}
