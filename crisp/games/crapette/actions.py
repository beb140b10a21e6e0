"""Client messages as typed actions (protocol "Crapette": `move`, `end`,
`crapette`); anything else is `BadMessage`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..api import JSON, BadMessage
from .board import BY_NAME, Move
from .vocabulary import ActionType

MAX_SHOW = 8  # longer than any qualifying sequence (K6.3: 3); more is not a call at all


@dataclass(frozen=True)
class MoveAction:
    move: Move


@dataclass(frozen=True)
class EndAction:
    pass


@dataclass(frozen=True)
class CallAction:
    version: int
    show: tuple[Move, ...] | None = None


Action = MoveAction | EndAction | CallAction


def parse_move(raw: JSON) -> Move:
    """{"from": pile, "to": pile} as a move; BadMessage for an unknown pile name."""
    if not isinstance(raw, Mapping):
        raise BadMessage("a move is {\"from\": pile, \"to\": pile}")
    src, dst = raw.get("from"), raw.get("to")
    if not isinstance(src, str) or src not in BY_NAME:
        raise BadMessage(f"no such pile: {src!r}")
    if not isinstance(dst, str) or dst not in BY_NAME:
        raise BadMessage(f"no such pile: {dst!r}")
    return BY_NAME[src], BY_NAME[dst]


def parse(message: Mapping[str, JSON]) -> Action:
    """The typed action of a client message (BadMessage when it is none)."""
    kind = message.get("type")
    if kind == ActionType.MOVE:
        return MoveAction(parse_move(message))
    if kind == ActionType.END:
        return EndAction()
    if kind == ActionType.CRAPETTE:
        version = message.get("version")
        if not isinstance(version, int) or isinstance(version, bool):
            raise BadMessage("a call names the version of the move it calls (K6.5)")
        show = message.get("show")
        if show is None:
            return CallAction(version)
        if not isinstance(show, list) or not show or len(show) > MAX_SHOW:
            raise BadMessage(f"`show` is a list of 1 to {MAX_SHOW} moves (K6.3)")
        return CallAction(version, tuple(parse_move(m) for m in show))
    raise BadMessage(f"not a Crapette message: {kind!r}")
