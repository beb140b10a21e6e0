"""The soak's accounting (issue 23): every action a seat sent, held against the
history Redis published (record.py), seat by seat.

A seat sends one action at a time and plans the next only once it knows the
outcome of the last (an update, an error, or after an unknown outcome the next
update), so the events that announce a seat's actions come in the order it sent
them. Per seat:

1. An action an update announced (`acked` at version V) must be announced by an
   event of the stored history at exactly V, once: otherwise an acknowledged
   action was lost (`lost_acked`), or applied twice (`applied_twice`).
2. Every other event of the seat (one that is not away after it, R17.2) must
   belong to one action whose outcome the seat did not know (`outcome_unknown`,
   its socket lost, unanswered) and that lies between the acknowledged actions
   around it: that action was applied. An event that only a refused action could
   explain means the refusal was untrue (`untrue_refusal`: `store_unavailable`
   and the engine's refusals say nothing changed); one nothing explains was
   applied without being sent, or twice (`unexplained`).
3. An event of the seat while it was away is the computer's move (R17.2), unless an
   unknown action of the seat explains it (a socket still open may act while its
   seat is away, e.g. after its presence lease ran out in a frozen Redis).
4. An unknown action no event belongs to was not applied.

Changes Redis stored but never published (it died holding their message: a
`Gap`) are settled by replaying the seats' unknown actions of the moments before
on the table before the gap, with the rules engine, and comparing the table it
gives with the stored one (`replay`); a gap no combination explains is
`unresolved`.
"""

from __future__ import annotations

import itertools
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from crisp import engine
from crisp.engine import LOBBY, IllegalAction, InvalidAction, State

from .client import ActionRecord
from .record import Gap, Recorder, SeatEvent

GAP_LOOKBACK_MS = 60_000  # unknown actions sent this long before a gap may be in it
MAX_IN_GAP = 3  # actions tried together in one gap
EXAMPLES = 12  # violations kept with their details

Seat = tuple[str, str]  # (room code, player id)


@dataclass
class Accounting:
    sent: int = 0
    outcomes: Counter[str] = field(default_factory=Counter)  # see `outcome_key`
    violations: Counter[str] = field(default_factory=Counter)
    examples: list[dict[str, Any]] = field(default_factory=list)
    gaps: int = 0
    gap_changes: int = 0
    computer_events: int = 0

    def violate(self, violation: str, **detail: Any) -> None:
        self.violations[violation] += 1
        if len(self.examples) < EXAMPLES:
            self.examples.append({"violation": violation, **detail})

    def to_json(self) -> dict[str, Any]:
        return {"sent": self.sent, "outcomes": dict(sorted(self.outcomes.items())),
                "violations": {k: self.violations.get(k, 0) for k in VIOLATIONS},
                "examples": self.examples, "gaps": self.gaps, "gap_changes": self.gap_changes,
                "computer_events": self.computer_events}  # fmt: skip


VIOLATIONS = ("lost_acked", "applied_twice", "untrue_refusal", "unexplained", "unresolved",
              "rewound")  # fmt: skip


def outcome_key(record: ActionRecord, applied: bool | None) -> str:
    """acked | refused:<code> | <why unknown>:applied | <why unknown>:not_applied."""
    outcome = record.outcome()
    if not outcome.startswith("unknown:"):
        return outcome
    return f"{outcome.removeprefix('unknown:')}:{'applied' if applied else 'not_applied'}"


class _SeatBook:
    """One seat's actions and events while they are matched."""

    def __init__(self, records: list[ActionRecord], events: list[SeatEvent]) -> None:
        self.records = records
        self.events = events
        self.applied: dict[int, int] = {}  # record index -> version it was applied at
        self.used: set[int] = set()  # event indexes matched

    def pinned(self) -> list[tuple[int, int]]:
        """(record index, acked version) of the acknowledged actions, in send order."""
        return [(i, r.acked) for i, r in enumerate(self.records)
                if r.acked is not None and r.code is None]  # fmt: skip

    def window(self, i: int, pins: list[tuple[int, int]]) -> tuple[int, int]:
        """The versions an action i may have been applied at: above the acked
        action before it, below the acked action after it."""
        low = max([v for j, v in pins if j < i] + [self.records[i].base])
        high = min([v for j, v in pins if j > i] + [1 << 62])
        return low, high


def account(seats: dict[Seat, list[ActionRecord]], recorder: Recorder) -> Accounting:
    """Match every seat's actions to the stored history (the module docstring)."""
    acc = Accounting()
    events_by_seat: dict[Seat, list[SeatEvent]] = defaultdict(list)
    for room, trace in recorder.rooms.items():
        acc.computer_events += trace.computer
        for ev in trace.events:
            events_by_seat[(room, ev.seat)].append(ev)
        for last, got in trace.rewinds:
            acc.violate("rewound", room=room, last_v=last, message_v=got)
    books = {seat: _SeatBook(records, events_by_seat.get(seat, []))
             for seat, records in seats.items()}  # fmt: skip
    gaps_by_room: dict[str, list[Gap]] = defaultdict(list)
    for gap in recorder.gaps:
        gaps_by_room[gap.room].append(gap)
    forced: dict[int, list[tuple[Seat, int]]] = defaultdict(list)  # id(gap) -> acked in it
    for seat, book in books.items():
        _match_seat(acc, seat, book, gaps_by_room.get(seat[0], []), forced)
    for room, gaps in gaps_by_room.items():
        room_books = {seat: book for seat, book in books.items() if seat[0] == room}
        for gap in gaps:
            _settle_gap(acc, gap, room_books, forced.get(id(gap), []))
    for book in books.values():
        for i, record in enumerate(book.records):
            record.applied = book.applied.get(i)
            acc.sent += 1
            acc.outcomes[outcome_key(record, i in book.applied)] += 1
    return acc


def _in_gap(gaps: Iterable[Gap], version: int) -> Gap | None:
    return next((g for g in gaps if g.span[0] < version <= g.span[1]), None)


def _match_seat(acc: Accounting, seat: Seat, book: _SeatBook, gaps: list[Gap],
                forced: dict[int, list[tuple[Seat, int]]]) -> None:  # fmt: skip
    pins = book.pinned()
    for i, version in pins:  # 1. acknowledged: exactly one event at that version
        kind = book.records[i].kind
        hits = [k for k, ev in enumerate(book.events)
                if ev.version == version and ev.kind == kind and k not in book.used]  # fmt: skip
        if hits:
            book.used.add(hits[0])
            book.applied[i] = version
            if len(hits) > 1:
                book.used.update(hits[1:])
                acc.violate("applied_twice", seat=seat, kind=kind, version=version)
            continue
        gap = _in_gap(gaps, version)
        if gap is not None:
            forced[id(gap)].append((seat, i))
            book.applied[i] = version
        else:
            acc.violate("lost_acked", seat=seat, kind=kind, version=version,
                        record=book.records[i].id)  # fmt: skip
    for k, ev in enumerate(book.events):  # 2. the rest: an unknown action each
        if k in book.used or ev.away:
            continue
        book.used.add(k)
        choice = _explain(book, pins, ev)
        if choice is None:
            acc.violate("unexplained", seat=seat, kind=ev.kind, version=ev.version)
        elif book.records[choice].outcome().startswith("refused:"):
            book.applied[choice] = ev.version
            acc.violate("untrue_refusal", seat=seat, kind=ev.kind, version=ev.version,
                        code=book.records[choice].code)  # fmt: skip
        else:
            book.applied[choice] = ev.version
    for k, ev in enumerate(book.events):  # 3. an away seat's: the computer's, or unknown
        if k not in book.used:
            choice = _explain(book, pins, ev, refused_too=False)
            if choice is not None:
                book.used.add(k)
                book.applied[choice] = ev.version


def _explain(book: _SeatBook, pins: list[tuple[int, int]], ev: SeatEvent, *,
             refused_too: bool = True) -> int | None:  # fmt: skip
    """The action an unmatched event belongs to: the first unknown one of its kind
    whose window holds the event's version, else (`refused_too`) a refused one."""
    refused: int | None = None
    for i, record in enumerate(book.records):
        if i in book.applied or record.kind != ev.kind:
            continue
        low, high = book.window(i, pins)
        if not low < ev.version < high:
            continue
        if record.outcome().startswith("unknown:"):
            return i
        if refused_too and refused is None and record.outcome().startswith("refused:"):
            refused = i
    return refused


def _settle_gap(acc: Accounting, gap: Gap, books: dict[Seat, _SeatBook],
                forced: list[tuple[Seat, int]]) -> None:  # fmt: skip
    """Which unknown actions of the moments before a gap made it (the module
    docstring): the one combination whose replay gives the stored table."""
    acc.gaps += 1
    acc.gap_changes += gap.span[1] - gap.span[0]
    must = [(seat, i) for seat, i in forced]
    maybe = [(seat, i) for seat, book in books.items() for i, r in enumerate(book.records)
             if i not in book.applied and r.outcome().startswith("unknown:")
             and gap.at_ms - GAP_LOOKBACK_MS <= r.sent_ms <= gap.at_ms]  # fmt: skip
    fits: list[tuple[tuple[Seat, int], ...]] = []
    for size in range(min(MAX_IN_GAP, len(maybe)) + 1):
        for combo in itertools.combinations(maybe, size):
            chosen = sorted(must + list(combo), key=lambda c: books[c[0]].records[c[1]].sent_ms)
            moves = [(seat[1], books[seat].records[i]) for seat, i in chosen]
            if replay(gap, moves):
                fits.append(combo)
    if len(fits) != 1:
        acc.violate("unresolved", room=gap.room, span=gap.span, fits=len(fits),
                    candidates=[(s[1], books[s].records[i].kind) for s, i in maybe])  # fmt: skip
        return
    for seat, i in fits[0]:
        books[seat].applied[i] = gap.span[1]


def replay(gap: Gap, moves: list[tuple[str, ActionRecord]]) -> bool:
    """True if playing `moves` (seat, action) on the table before the gap, each at
    the time it was sent, gives the stored table after it (or the same with its
    deadlines due by the gap's time applied)."""
    if gap.before is None:
        return False
    state = State.from_json(gap.before)
    for pid, record in moves:
        try:
            action = engine.action_from_dict({"type": record.kind, **record.fields})
            state, _ = engine.apply(state, pid, action, record.sent_ms)
        except (IllegalAction, InvalidAction):
            return False
    want = signature(gap.after, coarse=_dealt(gap.before, gap.after))
    later, _ = engine.advance(state, gap.at_ms)
    return any(signature(s.to_json(), coarse=_dealt(gap.before, gap.after)) == want
               for s in (state, later))  # fmt: skip


def _dealt(before: dict[str, Any], after: dict[str, Any]) -> bool:
    """A new deal (random cards) or a return to the lobby lies between the tables."""
    return bool(before["round"] != after["round"] or after["status"] == LOBBY
                or before["status"] == LOBBY)  # fmt: skip


def signature(state: dict[str, Any], *, coarse: bool = False) -> tuple[Any, ...]:
    """What the table shows, without times and presence (a replay's `now` is the
    sending time, not the server's): with `coarse`, without the cards too."""
    players = state["players"]
    if coarse:
        return (state["status"], state["round"], tuple(p["total"] for p in players),
                tuple(p["ready"] for p in players))  # fmt: skip
    turn = state["turn"] or {}
    return (state["status"], state["round"], state["holding"], state["caller"],
            tuple(state["final_left"]), tuple(state["discard"]), len(state["stock"]),
            turn.get("player"), turn.get("started"), turn.get("drawn_from"),
            turn.get("extra_draws"),
            tuple((tuple(p["hand"]), p["ready"], p["total"]) for p in players))  # fmt: skip
