"""The rooms service: every change to a room goes through here.

A change is: load the document -> engine call -> the computer seats follow it
(computer.py) -> compare-and-set save with the change message (published to
every process) and the room's next deadline (the engine's or a computer move's)
-> retry on a version conflict (bounded). A change is only visible to the table
once the save succeeded, because sockets are fed from the published message.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from crisp import engine
from crisp.engine import Action, ErrorCode, Event, IllegalAction, State
from crisp.engine import actions as engine_actions
from crisp.engine.clock import at_moment
from crisp.store import Store

from . import computer
from .clock import Clock
from .codes import hash_token, new_code, new_token, player_of_token
from .doccache import DocCache
from .errors import NameTaken, RoomBusy, RoomLocked, RoomNotFound, SeatGone
from .hooks import NOOP_HOOKS, ServerHooks
from .logs import fields
from .names import name_key
from .roomdoc import Change, RoomDoc, save_texts

log = logging.getLogger("crisp.server.rooms")

MAX_ATTEMPTS = 40
CODE_TRIES = 16  # a collision among 8.5e11 codes is already rare
NO_CHANGE_RETRY_MS = 250


@dataclass
class Outcome:
    """What a mutation function decided: the new document and the engine events."""

    doc: RoomDoc
    events: list[Event] = field(default_factory=list)
    result: Any = None
    followed: bool = False  # its computer seats already follow the change (computer.py)


Mutation = Callable[[RoomDoc, int], Outcome | None]


@dataclass(frozen=True)
class SeatCredentials:
    """What the creator or a new player of a room gets (the HTTP answer)."""

    room_code: str
    player_id: str
    token: str


def room_summary(room_code: str, state: State, now: int, locked: bool = False) -> dict[str, Any]:
    """The public facts about a room (GET /api/rooms/{code}): its status at `now`,
    options, players and whether its lobby is locked; never a card, a token or
    anything of a view."""
    return {
        "code": room_code,
        "status": at_moment(state, now).status,
        "options": state.options.to_json(),
        "players": [
            {"id": p.id, "name": p.name, "connected": p.connected, "is_host": p.id == state.host}
            for p in state.players
        ],
        "locked": locked,
    }


class Rooms:
    """Room operations over a `Store`, shared by HTTP handlers, sockets and the scheduler."""

    def __init__(
        self,
        store: Store,
        *,
        clock: Clock | None = None,
        time_scale: float = 1.0,
        hooks: ServerHooks = NOOP_HOOKS,
        on_deadline: Callable[[int], None] | None = None,
    ) -> None:
        self.store = store
        self.clock = clock or Clock()
        self.time_scale = time_scale
        self.hooks = hooks
        self.on_deadline = on_deadline
        self.docs = DocCache()
        # Each published change, handed at once to this process's sockets (hub.py).
        self.on_change: Callable[[str, Change], None] | None = None

    # ---- reading ----

    async def load(self, room_code: str) -> RoomDoc | None:
        """The current document, or None."""
        found = await self.store.load(room_code)
        return None if found is None else self.docs.parse(room_code, found)

    async def authenticate(self, room_code: str, token: str) -> str | None:
        """The player id holding `token` in the room, or None. Raises SeatGone for
        the token of a seat removed during a game (R17.5: closed with 4403)."""
        doc = await self.load(room_code)
        if doc is None:
            return None
        pid = player_of_token(doc.token_hashes, token)
        if pid is None and player_of_token({h: h for h in doc.revoked}, token) is not None:
            raise SeatGone("removed")
        return pid

    async def summary(self, room_code: str) -> dict[str, Any]:
        """GET /api/rooms/{code}: `room_summary` (raises RoomNotFound)."""
        doc = await self.load(room_code)
        if doc is None:
            raise RoomNotFound(room_code)
        return room_summary(room_code, doc.state, self.clock.now_ms(), doc.locked)

    # ---- creating and joining ----

    async def create(
        self, name: str, *, deck: list[str] | None = None, dealer: int | None = None
    ) -> SeatCredentials:
        """A new room in the lobby with the creator as host p1."""
        state = engine.new_table(
            name,
            options=None,
            time_scale=self.time_scale,
            test_deck=deck,
            test_dealer=dealer,
            now=self.clock.now_ms(),  # R17.2: a host who never connects is away 20 s later
        )
        token = new_token()
        host = state.host
        for _ in range(CODE_TRIES):
            room_code = new_code()
            doc = RoomDoc(
                room_code=room_code, state=state, token_hashes={host: hash_token(token)},
                created_ms=self.clock.now_ms(),
            )
            if await self.store.create(room_code, doc.dumps(), engine.next_deadline(state)):
                self.hooks.room_created(room_code)
                log.info(
                    "room %s: created by %s", room_code, host,
                    extra=fields(room_code, "room_created", player=host),
                )
                return SeatCredentials(room_code, host, token)
        raise RoomBusy("no free room code")  # only a broken random source gets here

    async def join(self, room_code: str, name: str) -> SeatCredentials:
        """Add a player to a lobby (raises RoomNotFound, RoomLocked, NameTaken,
        IllegalAction room_full/game_started). `name` is a `clean_name`."""
        token = new_token()
        key = name_key(name)

        def fn(doc: RoomDoc, now: int) -> Outcome:
            if doc.locked:
                raise RoomLocked(room_code)
            if any(name_key(p.name) == key for p in doc.state.players):
                raise NameTaken(name)
            state, pid, events = engine.add_player(doc.state, name, now)
            token_hashes = {**doc.token_hashes, pid: hash_token(token)}
            return Outcome(doc.with_(state=state, token_hashes=token_hashes), list(events), pid)

        out = await self.mutate(room_code, fn)
        assert out is not None
        self.hooks.player_joined(room_code, out.result)
        return SeatCredentials(room_code, out.result, token)

    # ---- presence ----

    async def connect(self, room_code: str, pid: str, conn_id: str) -> tuple[RoomDoc, int]:
        """Make `conn_id` the seat's newest connection and mark it connected.

        Returns the saved document and the connection's number. Raises RoomNotFound,
        or SeatGone if the seat is gone (kicked meanwhile).
        """

        def fn(doc: RoomDoc, now: int) -> Outcome:
            if pid not in doc.token_hashes:
                raise SeatGone(pid)
            state, events = engine.set_connected(doc.state, pid, True, now)
            new = doc.next_conn(pid, conn_id).with_(state=state)
            return Outcome(new, list(events), new.conns[pid].n)

        out = await self.mutate(room_code, fn)
        assert out is not None
        return out.doc, int(out.result)

    async def reclaim(self, room_code: str, pid: str, conn_id: str) -> int | None:
        """A live socket whose lease ran out (presence.py) takes its seat back: it is
        made the seat's newest connection again and marked connected, unless another
        connection holds the seat now. Returns its new connection number, or None."""

        def fn(doc: RoomDoc, now: int) -> Outcome | None:
            old = doc.conns.get(pid)
            if pid not in doc.token_hashes or (old is not None and old.id != conn_id):
                return None
            player = next((p for p in doc.state.players if p.id == pid), None)
            if old is not None and player is not None and player.connected:
                return Outcome(doc, [], old.n)  # nothing was lost
            state, events = engine.set_connected(doc.state, pid, True, now)
            new = doc.next_conn(pid, conn_id).with_(state=state)
            return Outcome(new, list(events), new.conns[pid].n)

        try:
            out = await self.mutate(room_code, fn)
        except RoomNotFound:
            return None
        return None if out is None else int(out.result)

    async def disconnect(self, room_code: str, pid: str, conn_id: str) -> None:
        """Mark the seat disconnected, unless a newer connection holds it."""

        def fn(doc: RoomDoc, now: int) -> Outcome | None:
            ref = doc.conns.get(pid)
            if ref is None or ref.id != conn_id:
                return None
            conns = {k: v for k, v in doc.conns.items() if k != pid}
            state = doc.state
            events: list[Event] = []
            if pid in doc.token_hashes and any(p.id == pid for p in state.players):
                state, evs = engine.set_connected(state, pid, False, now)
                events = list(evs)
            return Outcome(doc.with_(state=state, conns=conns), events)

        with contextlib.suppress(RoomNotFound):
            await self.mutate(room_code, fn)

    # ---- game actions and timers ----

    async def act(self, room_code: str, pid: str, action: Action) -> int | None:
        """Apply an engine action (the client message's `to_action()`); raises
        IllegalAction, RoomNotFound, SeatGone, RoomBusy. Returns the state version it
        was saved as.

        Seats the action removed (kick, leave) lose their token: in the lobby the seat
        is gone, in a game the computer plays it (R17.5). A human's kick locks the room,
        so that neither the kicked player nor anyone else can take the free seat until
        the host opens the room again (`set_locked`); removing a computer player does
        not lock it.
        """
        # a human's kick locks the room; removing a computer player does not
        kicked = action.player if isinstance(action, engine_actions.Kick) else None

        def fn(doc: RoomDoc, now: int) -> Outcome:
            if pid not in doc.token_hashes:
                raise SeatGone(pid)
            state, events = engine.apply(doc.state, pid, action, now)
            new = _seat_holders(doc, state)
            locks = kicked is not None and kicked in doc.token_hashes
            return Outcome(new.with_(locked=True) if locks else new, list(events))

        out = await self.mutate(room_code, fn)
        if out is not None and out.doc.state.abandoned:
            await self._delete_abandoned(room_code)
        return None if out is None else int(out.doc.state.version)

    async def set_locked(self, room_code: str, pid: str, locked: bool) -> int | None:
        """The host locks the lobby (no one may join) or opens it again. Raises
        IllegalAction `not_host` for anyone else, SeatGone, RoomNotFound. Returns the
        state version saved, None if it already was so."""

        def fn(doc: RoomDoc, now: int) -> Outcome | None:
            if pid not in doc.token_hashes:
                raise SeatGone(pid)
            if doc.state.host != pid:
                raise IllegalAction(ErrorCode.NOT_HOST, "only the host locks or opens the room")
            if doc.locked == locked:
                return None
            state = doc.state.copy()
            state.version += 1  # a change of the room: its version moves on (protocol v1.1)
            return Outcome(doc.with_(state=state, locked=locked))

        out = await self.mutate(room_code, fn)
        return None if out is None else int(out.doc.state.version)

    async def _delete_abandoned(self, room_code: str) -> None:
        """No human seat is left (the last one left, R17.5): the room goes."""
        await self.store.delete(room_code)
        log.info(
            "room %s: deleted, no human seat is left", room_code,
            extra=fields(room_code, "room_abandoned"),
        )

    async def advance(self, room_code: str) -> None:
        """Apply whatever fell due in a room, and make the computer moves whose time
        has come (called by the scheduler)."""

        def fn(doc: RoomDoc, now: int) -> Outcome:
            due = engine.next_deadline(doc.state)
            state, events = engine.advance(doc.state, now)
            if due is not None and state.version != doc.state.version:
                self.hooks.timer_fired(room_code, max(0, now - due))
            seats = computer.follow(state, doc.computer, list(events), now, self.time_scale)
            played = computer.play_due(state, seats, now, self.time_scale)
            return Outcome(doc.with_(state=played.state, computer=played.computer),
                           [*events, *played.events], result=played.moves, followed=True)

        with contextlib.suppress(RoomNotFound):
            out = await self.mutate(room_code, fn, timer=True)
            # counted once saved: a move whose save lost the race was never made
            for seat, kind in [] if out is None else out.result:
                self.hooks.computer_moved(room_code, seat, kind)

    # ---- the compare-and-set loop ----

    async def mutate(
        self, room_code: str, fn: Mutation, *, timer: bool = False
    ) -> Outcome | None:
        """Load, change, save with CAS; retry on conflict. None if nothing changed.

        `timer`: this is the scheduler's call; even without a change the room's
        deadline is saved again (claim_due moved it to a lease).

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
                seats = computer.follow(
                    out.doc.state, out.doc.computer, out.events, now, self.time_scale
                )
                out.doc = out.doc.with_(computer=seats)
            unchanged = out is None or (
                out.doc.state.version == doc.state.version
                and out.doc.token_hashes == doc.token_hashes
                and out.doc.conns == doc.conns
                and out.doc.locked == doc.locked
                and out.doc.computer == doc.computer
                and out.doc.revoked == doc.revoked
                and not out.events
            )
            if unchanged and not timer:
                if recent is None:
                    return None
                continue  # no change: decided again on the stored document
            new_doc = doc if out is None else out.doc
            deadline = room_deadline(new_doc)
            message = None
            if unchanged:
                # Nothing fell due after all (clock skew between processes): re-arm.
                if deadline is not None and deadline <= now:
                    deadline = now + NO_CHANGE_RETRY_MS
            else:
                assert out is not None
                # Only the computer's plans changed: nothing for the sockets.
                quiet = not out.events and (
                    new_doc.state.version, new_doc.token_hashes, new_doc.conns,
                    new_doc.revoked, new_doc.locked,
                ) == (doc.state.version, doc.token_hashes, doc.conns, doc.revoked, doc.locked)
                text, message = save_texts(new_doc, out.events, version + 1)
                if quiet:
                    message = None
            saved = await self.store.save(
                room_code, version, text, message=message, deadline_ms=deadline
            )
            if saved is not None:
                self.docs.keep(room_code, saved, text, new_doc)
                if deadline is not None and self.on_deadline is not None:
                    self.on_deadline(deadline)
                if unchanged:
                    return None
                assert out is not None
                # An abandoned room is deleted first (`act`); its sockets hear of it by
                # the message, after.
                if self.on_change is not None and message is not None \
                        and not new_doc.state.abandoned:
                    self.on_change(room_code, Change.of_save(new_doc, out.events, saved))
                _log_events(room_code, new_doc, out.events)
                return out
            self.docs.forget(room_code)
            if recent is None:  # a race with another change (not a copy out of date)
                self.hooks.save_conflict(room_code)
                await asyncio.sleep(random.uniform(0, 0.002 * min(attempt + 1, 10)))
        raise RoomBusy(room_code)


def room_deadline(doc: RoomDoc) -> int | None:
    """When the room next needs the scheduler: the engine's next deadline or the
    next computer move, whichever is first."""
    times = [t for t in (engine.next_deadline(doc.state), computer.next_move_ms(doc.computer))
             if t is not None]
    return min(times) if times else None


def _seat_holders(doc: RoomDoc, state: State) -> RoomDoc:
    """`doc` with `state`, and tokens and connections only for the human seats left:
    a seat removed in the lobby is gone, one removed during a game is the
    computer's now and its token is revoked (R17.5: its hello gets 4403)."""
    humans = {p.id for p in state.players if p.bot_level is None}
    token_hashes = {k: v for k, v in doc.token_hashes.items() if k in humans}
    seated = {p.id for p in state.players}
    revoked = doc.revoked | {
        v for k, v in doc.token_hashes.items() if k in seated and k not in humans
    }
    conns = {k: v for k, v in doc.conns.items() if k in humans}
    return doc.with_(state=state, token_hashes=token_hashes, conns=conns, revoked=revoked)


_PLAYER_EVENTS = {
    "joined": ("player_joined", "joined"),
    "left": ("player_kicked", "was kicked"),
    "timeout": ("timeout", "ran out of time"),
    "bot_added": ("bot_added", "was added, a computer player"),
    "took_over": ("took_over", "is played by the computer now"),
    "host_changed": ("host_changed", "is the host now"),
    "away": ("away", "is away: the computer plays the seat"),
    "back": ("back", "is back"),
}
_DEBUG_EVENTS = frozenset({"timeout", "away", "back"})


def _log_events(room_code: str, doc: RoomDoc, events: list[Event]) -> None:
    """One log line per event worth an operator's attention (after its save)."""
    for ev in events:
        data = ev.data
        who = data.get("player")
        level, name, text, more = logging.DEBUG, "", "", dict[str, Any]()
        if ev.kind in _PLAYER_EVENTS:
            name, verb = _PLAYER_EVENTS[ev.kind]
            level = logging.DEBUG if ev.kind in _DEBUG_EVENTS else logging.INFO
            text, more = f"{who} {verb}", {"player": who}
        elif ev.kind == "round_started":
            rnd = data.get("round")
            if rnd == 1:
                level, name = logging.INFO, "game_started"
                text = f"game started with {len(doc.state.players)} players"
            else:
                name, text = "round_started", f"round {rnd} started"
            more = {"round": rnd}
        elif ev.kind == "round_over":
            level, name = logging.INFO, "round_over"
            more = {"round": doc.state.round, "caller": data.get("caller"),
                    "totals": data.get("totals")}
            text = f"round {more['round']} over (caller {more['caller']}, totals {more['totals']})"
        elif ev.kind == "game_over":
            level, name = logging.INFO, "game_over"
            more = {"winners": data.get("winners"), "totals": data.get("totals")}
            text = f"game over (winners {more['winners']})"
        else:
            continue
        log.log(level, "room %s: %s", room_code, text, extra=fields(room_code, name, **more))
