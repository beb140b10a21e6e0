"""The text form of actions: protocol client messages (protocol.md, "Client to
server") to engine actions and back. `action_from_dict(action_to_dict(a)) == a`
for every well-formed action."""

from __future__ import annotations

from typing import Any

from .actions import (
    CLASS_OF,
    Action,
    AddBot,
    Draw,
    Kick,
    SetOptions,
    Swap,
    UseQueen,
    action_type,
    checked,
)
from .errors import InvalidAction
from .vocabulary import BotLevel, Slot


def _slot(msg: dict[str, Any], key: str) -> Slot:
    slot = Slot.parse(msg.get(key))
    if slot is None:
        raise InvalidAction(f"{key} must be one of left, middle, right")
    return slot


def _options(msg: dict[str, Any]) -> SetOptions:
    for key in ("limit", "discard_draw", "watchers"):  # left out: kept; null is not a value
        if key in msg and msg[key] is None:
            raise InvalidAction(f"{key} may not be null")
    return SetOptions(msg.get("limit"), msg.get("draw_seconds"), msg.get("discard_draw"),
                      "draw_seconds" in msg, msg.get("watchers"))


def action_from_dict(msg: object) -> Action:
    """Build an action from a protocol client message (`id` is ignored): the one
    reading of an action's text, for the server (after its edge validation), the
    bots and the bench.

    Raises InvalidAction (code `bad_message`) for an unknown type or bad fields.
    """
    if not isinstance(msg, dict):
        raise InvalidAction("a message is a JSON object")
    kind = msg.get("type")
    cls = CLASS_OF.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise InvalidAction(f"unknown action type {kind!r}")
    if cls is Draw:
        return checked(Draw(msg.get("source")))  # type: ignore[arg-type] # no default: required
    if cls is Swap:
        return Swap(_slot(msg, "slot"))
    if cls is UseQueen:
        return checked(UseQueen(_slot(msg, "slot"), msg.get("target", ""),
                                _slot(msg, "target_slot")))
    if cls is Kick:
        return checked(Kick(msg.get("player", "")))
    if cls is AddBot:  # protocol v1.1: the level defaults to "normal"
        return checked(AddBot(msg.get("level", BotLevel.NORMAL)))
    if cls is SetOptions:
        return checked(_options(msg))
    return checked(cls())


def action_to_dict(action: Action) -> dict[str, Any]:
    """The protocol client message for an action (without `id`); InvalidAction if
    `action` is not well formed."""
    action = checked(action)
    out: dict[str, Any] = {"type": action_type(action)}
    match action:
        case Draw():
            out["source"] = action.source.value
        case Swap():
            out["slot"] = action.slot.label
        case UseQueen():
            out.update(slot=action.slot.label, target=action.target,
                       target_slot=action.target_slot.label)
        case Kick():
            out["player"] = action.player
        case AddBot():
            out["level"] = action.level
        case SetOptions():
            for key in ("limit", "discard_draw", "watchers"):
                if getattr(action, key) is not None:
                    out[key] = getattr(action, key)
            if action.set_draw_seconds:
                out["draw_seconds"] = action.draw_seconds
    return out
