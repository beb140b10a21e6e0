"""The stored form of a game (JSON): `from_json(to_json(s)) == s`.

Cards are their wire texts. A turn's records keep only the position before its
first move: the positions before the others are that one with the moves applied
(moves are deterministic), so they are rebuilt on reading.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..api import JSON
from .board import BY_NAME, Board, move_name
from .cards import TEXT, parse
from .faults import Faults
from .play import apply_move
from .state import CallRecord, MoveRecord, Options, State
from .vocabulary import Calls, Fault, OverWhy, Status


def _cards(cards: tuple[int, ...]) -> list[str]:
    return [TEXT[c] for c in cards]


def _read(raw: Any) -> tuple[int, ...]:
    return tuple(parse(t) for t in raw)


def board_json(b: Board) -> dict[str, JSON]:
    return {"crapette": [_cards(p) for p in b.crapette], "stock": [_cards(p) for p in b.stock],
            "waste": [_cards(p) for p in b.waste], "tableau": [_cards(p) for p in b.tableau],
            "foundations": [TEXT[t] if t >= 0 else None for t in b.foundations],
            "mover": b.mover, "turned": TEXT[b.turned] if b.turned >= 0 else None}


def board_from(raw: Mapping[str, Any]) -> Board:
    def seats(piles: Any) -> tuple[tuple[int, ...], tuple[int, ...]]:
        return _read(piles[0]), _read(piles[1])

    return Board(seats(raw["crapette"]), seats(raw["stock"]), seats(raw["waste"]),
                 tuple(_read(p) for p in raw["tableau"]),
                 tuple(-1 if t is None else parse(t) for t in raw["foundations"]),
                 int(raw["mover"]), -1 if raw["turned"] is None else parse(raw["turned"]))


def _move(raw: Mapping[str, Any]) -> tuple[int, int]:
    return BY_NAME[raw["from"]], BY_NAME[raw["to"]]


def to_json(s: State) -> JSON:
    o = s.options
    return {
        "players": list(s.players),
        "options": {"calls": o.calls, "move_seconds": o.move_seconds,
                    "watchers": o.watchers, "time_scale": o.time_scale},
        "board": board_json(s.board), "status": s.status, "turn_no": s.turn_no,
        "idle_turns": s.idle_turns, "progress": s.progress, "deadline": s.deadline,
        "seq": s.seq, "first": board_json(s.record[0].before) if s.record else None,
        "record": [{"version": r.version, **move_name(r.move), "card": TEXT[r.card],
                    "faults": [r.faults.obvious, r.faults.combination, r.faults.priority,
                               r.faults.needs_show, r.faults.shortest]}
                   for r in s.record],
        "calls": [{"player": c.player, "version": c.version, "fault": c.fault,
                   "shown": None if c.shown is None else [move_name(m) for m in c.shown],
                   "missed": None if c.missed is None else move_name(c.missed)}
                  for c in s.calls],
        "barred": s.barred, "winner": s.winner, "why": s.why,
    }  # fmt: skip


def from_json(raw: Any) -> State:
    o = raw["options"]
    options = Options(Calls(o["calls"]), o["move_seconds"], bool(o["watchers"]),
                      float(o["time_scale"]))
    record: list[MoveRecord] = []
    before = board_from(raw["first"]) if raw["first"] is not None else None
    for r in raw["record"]:
        assert before is not None
        move = _move(r)
        ob, co, pr, ns, sh = r["faults"]
        record.append(MoveRecord(int(r["version"]), move, parse(r["card"]), before,
                                 Faults(bool(ob), bool(co), bool(pr), bool(ns), int(sh))))
        before = apply_move(before, move)
    calls = tuple(CallRecord(c["player"], int(c["version"]),
                             None if c["fault"] is None else Fault(c["fault"]),
                             None if c["shown"] is None else tuple(_move(m) for m in c["shown"]),
                             None if c["missed"] is None else _move(c["missed"]))
                  for c in raw["calls"])  # fmt: skip
    return State(players=(raw["players"][0], raw["players"][1]), options=options,
                 board=board_from(raw["board"]), status=Status(raw["status"]),
                 turn_no=int(raw["turn_no"]), idle_turns=int(raw["idle_turns"]),
                 progress=bool(raw["progress"]), deadline=raw["deadline"], seq=int(raw["seq"]),
                 record=tuple(record), calls=calls, barred=bool(raw["barred"]),
                 winner=raw["winner"], why=None if raw["why"] is None else OverWhy(raw["why"]))
