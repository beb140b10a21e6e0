"""How a computer player catches the other player's faults (K6): it follows the
table through its own seat's events, judges each of the mover's moves in the
position before it (only face-up cards count, K6.3, so its rebuilt table is
enough) and keeps the calls it would win, to send while a call is open (K6.6)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...api import JSON
from ..board import Board, move_name
from ..cards import parse
from ..faults import assess, judge, sequence
from ..moves import refusal
from ..play import apply_move
from ..vocabulary import ActionType, Calls, EventKind
from .seat import board_of, move_of, seat_of


def board_to_memory(board: Board | None) -> JSON:
    if board is None:
        return None
    return [[list(p) for p in board.crapette], [list(p) for p in board.stock],
            [list(p) for p in board.waste], [list(p) for p in board.tableau],
            list(board.foundations), board.mover, board.turned]


def board_from_memory(raw: Any) -> Board | None:
    if raw is None:
        return None
    c, s, w, t, f, mover, turned = raw

    def two(x: Any) -> tuple[tuple[int, ...], tuple[int, ...]]:
        return tuple(x[0]), tuple(x[1])

    return Board(two(c), two(s), two(w), tuple(tuple(p) for p in t), tuple(f), mover, turned)


def _judged(board: Board, move: tuple[int, int], eye: Calls,
            room: Calls) -> tuple[bool, list[dict[str, str]] | None]:
    """Whether calling `move` would be right under the room's `room`, as far as this
    bot's `eye` sees (obvious: K6.2 only), and the sequence to show."""
    faults = assess(board, move, room)
    if faults.obvious:
        return True, None
    if eye in (Calls.OBVIOUS, Calls.OFF) or not faults.any:
        return False, None
    shown = sequence(board)
    if judge(room, faults, shown is not None, len(shown or ())) is None:
        return False, None
    return True, None if shown is None else [move_name(m) for m in shown]


def follow(memory: dict[str, Any], view: Mapping[str, Any],
           events: Sequence[Mapping[str, Any]], eye: Calls, room: Calls,
           notice: int) -> None:
    """Update `memory` ("board", "calls") from the events since the last view.
    `eye`: the faults this bot sees (obvious or combination); `notice`: it notices
    a fault when the move's version modulo 10 is below this (10: always)."""
    me = memory["me"]
    board = board_from_memory(memory.get("board"))
    calls: list[dict[str, Any]] = list(memory.get("calls") or [])
    for e in events:
        kind = e.get("kind")
        if kind == EventKind.MOVED and board is not None:
            move = move_of(e)
            if refusal(board, move) is not None:
                board = None
                continue
            version = e["version"]
            if e["player"] != me and isinstance(version, int) and version % 10 < notice:
                right, show = _judged(board, move, eye, room)
                if right:
                    calls.append({"version": version, "show": show})
            board = apply_move(board, move)
        elif kind == EventKind.TURNED and board is not None:
            board = board._replace(turned=parse(e["card"]))
        elif kind == EventKind.CRAPETTE_TOP and board is not None:
            seat = seat_of(view, e["player"])
            pile = board.crapette[seat]
            if pile:
                top = (*pile[:-1], parse(e["card"]))
                board = board._replace(crapette=(top, board.crapette[1]) if seat == 0
                                       else (board.crapette[0], top))
        elif kind in (EventKind.ENDED, EventKind.GAME_OVER):
            calls = []
        elif kind == EventKind.CALLED:
            calls = [c for c in calls if c["version"] != e.get("version")]
    memory["calls"] = calls
    memory["board"] = board_to_memory(board_of(view))


def call_message(memory: Mapping[str, Any], view: Mapping[str, Any]) -> dict[str, JSON] | None:
    """The first kept call, when a call is open to this seat now."""
    turn = view.get("turn") or {}
    calls = memory.get("calls") or []
    if not turn.get("can_call") or not calls:
        return None
    first = calls[0]
    message: dict[str, JSON] = {"type": ActionType.CRAPETTE, "version": first["version"]}
    if first["show"]:
        message["show"] = first["show"]
    return message
