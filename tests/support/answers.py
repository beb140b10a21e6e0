"""Sending a message and waiting for what answers it, for any game's room."""

from __future__ import annotations

from typing import Any

from .player import Player


async def send(p: Player, msg: dict[str, Any]) -> dict[str, Any]:
    """Send `msg` (an `id` added); the error answering it, or the first update of a
    newer version (a table room's messages have no announcing event of their own)."""
    before = p.version
    ref = f"{p.pid}-{len(p.frames)}"
    start = len(p.frames)
    await p.send({**msg, "id": ref})

    def answer(q: Player) -> dict[str, Any] | None:
        for frame in q.frames[start:]:
            if frame["type"] == "error" and frame.get("ref") == ref:
                return frame
            if frame["type"] == "update" and frame["view"]["version"] > before:
                return frame
        if q.closed:
            raise AssertionError(f"{q.pid}: closed {q.close_code} before {msg['type']}")
        return None

    return await p.wait(answer, what=f"the answer to {msg['type']}")  # type: ignore[no-any-return]
