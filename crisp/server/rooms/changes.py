"""The one path of every change to a room: load -> decide -> compare-and-set save.

A change is: the document (this process's copy of moments ago, or loaded) ->
the mutation function (an engine call) -> the computer seats follow it
(computer_seats.py) -> a compare-and-set save with the change message (published to
every process) and the room's next deadline (the engine's or a computer
move's) -> on a version conflict, again from the stored document (bounded).
A change is only visible to the table once the save succeeded: this process's
sockets get it from `RoomEvents.changed` after the save, the others' from the
published message.

What is compared and saved is derived from `RoomDoc` itself (`document.py`:
`changed_fields`), so a field added there is saved without a word here.
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from crisp.engine import LOBBY
from crisp.engine.vocabulary import EventKind
from crisp.server.ops.hooks import ServerHooks
from crisp.server.ops.logs import fields
from crisp.server.rooms import computer_seats, round_record
from crisp.server.rooms.doccache import DocCache
from crisp.server.rooms.document import Change, RoomDoc, changed_fields, save_texts
from crisp.server.rooms.serverclock import Clock
from crisp.server.wire import rules
from crisp.server.wire.failures import RoomBusy, RoomNotFound
from crisp.store import LogWrite, OutcomeUnknown, Store

log = logging.getLogger("crisp.server.rooms")

MAX_ATTEMPTS = 40
NO_CHANGE_RETRY_MS = 250
UNOPENED_MS = 600_000  # CRISP_UNOPENED_ROOM_TTL_S's default
EMPTY_LOBBY_MS = 1_800_000  # CRISP_EMPTY_LOBBY_TTL_S's default


@dataclass
class Outcome:
    """What a mutation function decided: the new document and the engine events."""

    doc: RoomDoc
    events: list[Any] = field(default_factory=list)  # rules.RoomEvent
    result: Any = None
    followed: bool = False  # its computer seats already follow the change (computer_seats.py)


Mutation = Callable[[RoomDoc, int], Outcome | None]


def _nothing(*_: Any) -> None:
    return None


@dataclass(frozen=True)
class RoomEvents:
    """Where a saved change goes in this process, given at construction: `changed`
    hands it to the room's local sockets at once (hub.py), `deadline` wakes the
    scheduler when the room's next deadline is earlier than its sleep."""

    changed: Callable[[str, Change], None] = _nothing
    deadline: Callable[[int], None] = _nothing


NO_EVENTS = RoomEvents()  # a service with no sockets or scheduler in this process
RECENT_SAVES = 8  # save ids a document keeps (`RoomDoc.saves`)


class UnknownSave(OutcomeUnknown):
    """A save whose outcome is unknown (`OutcomeUnknown`), with its id: once the store
    answers again, `save_id in RoomDoc.saves` of the stored room says whether it
    landed (a change saved after it keeps it among the last `RECENT_SAVES`)."""

    def __init__(self, message: str, save_id: str, outcome: Outcome) -> None:
        super().__init__(message)
        self.save_id = save_id
        self.outcome = outcome


@dataclass
class Saved:
    """A change as saved: the outcome, and its message when it was held back from the
    save to be published later (`publish_later`)."""

    outcome: Outcome
    message: str | None = None


class RoomChanges:
    """The compare-and-set loop over a store (see the module docstring)."""

    def __init__(
        self, store: Store, clock: Clock, hooks: ServerHooks, docs: DocCache,
        events: RoomEvents, time_scale: float, lifetimes: Lifetimes | None = None,
    ) -> None:  # fmt: skip
        self.store = store
        self.lifetimes = lifetimes or Lifetimes()
        self.clock = clock
        self.hooks = hooks
        self.docs = docs
        self.events = events
        self.time_scale = time_scale

    async def mutate(
        self, room_code: str, fn: Mutation, *, timer: bool = False, publish_later: bool = False
    ) -> Saved | None:
        """Load, change, save with CAS; retry on conflict. None if nothing changed.

        `timer`: this is the scheduler's call; even without a change the room's
        deadline is saved again (claim_due moved it to a lease). `publish_later`:
        a change that leaves the room abandoned (R17.5) is saved without its
        message, which the caller publishes once the room is deleted, so that no
        socket hears of it before the room is gone.

        The first attempt starts from the document this process saved or loaded
        last, without loading it (`DocCache.recent`), when that was moments ago: the
        compare-and-set then validates it. Any other outcome, no change or a refusal,
        is decided again on the stored document, since nothing validates it.
        """
        for attempt in range(MAX_ATTEMPTS):
            recent = self.docs.recent(room_code) if attempt == 0 else None
            if recent is not None:
                version, text, doc = recent
            else:
                found = await self.store.load(room_code)
                if found is None:
                    raise RoomNotFound(room_code)
                version, text = found.version, found.doc
                doc = self.docs.parse(room_code, found)
            now = self.clock.now_ms()
            try:
                out = fn(doc, now)
            except Exception:
                if recent is None:
                    raise
                continue  # a refusal: decided again on the stored document
            if out is not None and not out.followed:
                seats = computer_seats.follow(
                    out.doc.state, out.doc.computer, out.events, now, self.time_scale
                )
                out.doc = out.doc.with_(computer=seats)
            changed = set() if out is None else changed_fields(doc, out.doc)
            unchanged = not changed and (out is None or not out.events)
            if unchanged and not timer:
                if recent is None:
                    return None
                continue  # no change: decided again on the stored document
            new_doc = doc if out is None else out.doc
            deadline = room_deadline(new_doc, self.lifetimes)
            message = save_id = None
            # R18.2: the round's record grows with its events (round_record.py); a
            # room with a log gives it every save, so that it expires with the room
            log = LogWrite() if new_doc.record.live else None
            if unchanged:
                # Nothing fell due after all (clock skew between processes): re-arm.
                if deadline is not None and deadline <= now:
                    deadline = now + NO_CHANGE_RETRY_MS
            else:
                assert out is not None
                save_id = secrets.token_hex(4)
                if rules.is_table(new_doc.state):  # its game's record is in its table
                    record = new_doc.record
                else:
                    record, log = round_record.follow(new_doc.record, out.events,
                                                      new_doc.state.options, now)
                new_doc = out.doc = _above_seen(
                    new_doc.with_(saves=(save_id, *new_doc.saves)[:RECENT_SAVES], record=record),
                    doc, self.docs.seen(room_code))
                text, message = save_texts(new_doc, out.events, version + 1)
                if not out.events and changed <= {"computer", "watchers"}:
                    # only the computer's plans or the watchers changed: nothing to
                    # tell (R18.1: a watcher is not a change of the table)
                    message = None
            held = publish_later and new_doc.state.abandoned
            try:
                saved = await self.store.save(
                    room_code, version, text, message=None if held else message,
                    deadline_ms=deadline, log=log,
                )
            except OutcomeUnknown as exc:
                self.docs.forget(room_code)
                if out is None or save_id is None:
                    raise
                raise UnknownSave(str(exc), save_id, out) from exc
            if saved is not None:
                self.docs.keep(room_code, saved, text, new_doc)
                if deadline is not None:
                    self.events.deadline(deadline)
                if unchanged:
                    return None
                assert out is not None
                if message is not None and not held:
                    self.events.changed(room_code, Change.of_save(new_doc, out.events, saved))
                _log_events(room_code, new_doc, out.events)
                return Saved(out, message if held else None)
            self.docs.forget(room_code)
            if recent is None:  # a race with another change (not a copy out of date)
                self.hooks.save_conflict(room_code)
                await asyncio.sleep(random.uniform(0, 0.002 * min(attempt + 1, 10)))
        raise RoomBusy(room_code)


def _above_seen(new: RoomDoc, old: RoomDoc, seen: int) -> RoomDoc:
    """`new`, its table's version moved above `seen` (the highest this process has
    seen of the room) if it is not above it already while the table changed, or was
    below it anyway: the stored room went back (a Redis master lost with an
    acknowledged write), and a version the players were shown must not come again
    for another table (protocol.md: two updates with one version show one table)."""
    version = new.state.version
    if version > seen or (version == seen and version == old.state.version):
        return new
    state = new.state.copy()
    state.version = seen + 1
    log.warning("room %s: the stored room went back to table version %d; saved as %d, "
                "above the %d seen here", new.room_code, old.state.version, state.version, seen)
    return new.with_(state=state)


@dataclass(frozen=True)
class Lifetimes:
    """How long the rooms nobody uses live: `unopened_ms` (CRISP_UNOPENED_ROOM_TTL_S,
    issue 23) a room none of whose seats ever connected, `empty_lobby_ms`
    (CRISP_EMPTY_LOBBY_TTL_S, issue 39) a lobby none of whose human seats is
    connected any more (the rooms service's, given at its construction)."""

    unopened_ms: int = UNOPENED_MS
    empty_lobby_ms: int = EMPTY_LOBBY_MS


def room_deadline(doc: RoomDoc, lifetimes: Lifetimes | None = None) -> int | None:
    """When the room next needs the scheduler: the engine's next deadline, the next
    computer move, or, for a room none of whose seats ever connected or an empty
    lobby, its end (`unopened_end`), whichever is first."""
    end = unopened_end(doc, lifetimes or Lifetimes())
    times = [t for t in (rules.next_deadline(doc.state), computer_seats.next_move_ms(doc.computer),
                         end) if t is not None]
    return min(times) if times else None


def unopened_end(doc: RoomDoc, lifetimes: Lifetimes) -> int | None:
    """When a room that no seat ever connected to is deleted (issue 23: such a room
    would otherwise live the whole idle time), or, once one did, when a lobby that no
    human seat is connected to any more is (`empty_lobby_end`, issue 39); None for
    any other room."""
    if doc.conn_seq == 0:
        return doc.created_ms + lifetimes.unopened_ms
    return empty_lobby_end(doc.state, lifetimes.empty_lobby_ms)


def empty_lobby_end(state: Any, empty_ms: int) -> int | None:
    """Issue 39: a lobby (nothing dealt yet) none of whose human seats is connected is
    deleted `empty_ms` after its last one left (`gone_since`, in the room's clock), so
    empty lobbies do not hold the room cap for the whole idle time. None while one is
    connected, once the game started, or for a room of another kind."""
    humans = [p for p in getattr(state, "players", ()) if getattr(p, "bot_level", None) is None]
    if not humans or any(p.connected for p in humans):
        return None
    gone: list[int] = [t for p in humans if (t := getattr(p, "gone_since", None)) is not None]
    # the status last: a table room's is made from its view (only with nobody there)
    if not gone or getattr(state, "status", None) != LOBBY:
        return None
    return max(gone) + empty_ms


K = EventKind
# The log event of each (the log's own names, which are not the wire's)
_PLAYER_EVENTS: dict[str, tuple[str, str]] = {
    K.JOINED: ("player_joined", "joined"),
    K.LEFT: ("player_kicked", "was kicked"),
    K.TIMEOUT: (K.TIMEOUT, "ran out of time"),
    K.BOT_ADDED: (K.BOT_ADDED, "was added, a computer player"),
    K.TOOK_OVER: (K.TOOK_OVER, "is played by the computer now"),
    K.HOST_CHANGED: (K.HOST_CHANGED, "is the host now"),
    K.AWAY: (K.AWAY, "is away: the computer plays the seat"),
    K.BACK: (K.BACK, "is back"),
}
_DEBUG_EVENTS = frozenset({K.TIMEOUT, K.AWAY, K.BACK})


def _log_events(room_code: str, doc: RoomDoc, events: list[Any]) -> None:
    """One log line per event worth an operator's attention (after its save)."""
    for ev in events:
        data = ev.data
        who = data.get("player")
        level, name, text, more = logging.DEBUG, "", "", dict[str, Any]()
        if ev.kind in _PLAYER_EVENTS:
            name, verb = _PLAYER_EVENTS[ev.kind]
            level = logging.DEBUG if ev.kind in _DEBUG_EVENTS else logging.INFO
            text, more = f"{who} {verb}", {"player": who}
        elif ev.kind == K.ROUND_STARTED:
            rnd = data.get("round")
            if rnd == 1:
                level, name = logging.INFO, "game_started"
                text = f"game started with {len(doc.state.players)} players"
            else:
                name, text = K.ROUND_STARTED, f"round {rnd} started"
            more = {"round": rnd}
        elif ev.kind == K.ROUND_OVER:
            level, name = logging.INFO, K.ROUND_OVER
            more = {"round": doc.state.round, "caller": data.get("caller"),
                    "totals": data.get("totals")}
            text = f"round {more['round']} over (caller {more['caller']}, totals {more['totals']})"
        elif ev.kind == K.GAME_OVER:
            level, name = logging.INFO, K.GAME_OVER
            more = {"winners": data.get("winners"), "totals": data.get("totals")}
            text = f"game over (winners {more['winners']})"
        else:
            continue
        log.log(level, "room %s: %s", room_code, text, extra=fields(room_code, name, **more))
