"""The rooms service: every change to a room goes through here.

A change is: load the document -> engine call -> the computer seats follow it
(computer_seats.py) -> compare-and-set save with the change message (published to
every process) and the room's next deadline (the engine's or a computer move's)
-> retry on a version conflict (bounded). A change is only visible to the table
once the save succeeded, because sockets are fed from the published message.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from crisp.engine import Action, ErrorCode, IllegalAction
from crisp.engine.vocabulary import LOBBY
from crisp.games.registry import DEFAULT
from crisp.server.edge.names import name_key
from crisp.server.ops.hooks import NOOP_HOOKS, ServerHooks
from crisp.server.ops.logs import fields
from crisp.server.rooms import computer_seats
from crisp.server.rooms.changes import (
    NO_EVENTS,
    Lifetimes,
    Mutation,
    Outcome,
    RoomChanges,
    RoomEvents,
    UnknownSave,
    room_deadline,
    unopened_end,
)
from crisp.server.rooms.codes import hash_token, new_code, new_token, player_of_token
from crisp.server.rooms.doccache import DocCache
from crisp.server.rooms.document import RoomDoc
from crisp.server.rooms.serverclock import Clock
from crisp.server.rooms.summary import room_summary
from crisp.server.rooms.watch_count import closed_to_watchers
from crisp.server.wire import rules
from crisp.server.wire.failures import NameTaken, RoomBusy, RoomLocked, RoomNotFound, SeatGone
from crisp.store import Store, StoreUnavailable

log = logging.getLogger("crisp.server.rooms.service")

CODE_TRIES = 16  # a collision among 8.5e11 codes is already rare
SETTLE_TRIES = 40  # loads tried (backing off to 2 s) to learn whether a save landed


class _Unopened(Exception):
    """A room no seat ever connected to, or a lobby nobody is connected to any more,
    is past its time (`unopened_end`); `why`: which, for the log."""

    def __init__(self, room_code: str, why: str) -> None:
        super().__init__(room_code)
        self.why = why


@dataclass(frozen=True)
class SeatCredentials:
    """What the creator or a new player of a room gets (the HTTP answer)."""

    room_code: str
    player_id: str
    token: str


class Rooms:
    """Room operations over a `Store`, shared by HTTP handlers, sockets and the scheduler."""

    def __init__(
        self,
        store: Store,
        *,
        clock: Clock | None = None,
        time_scale: float = 1.0,
        hooks: ServerHooks = NOOP_HOOKS,
        docs: DocCache | None = None,
        events: RoomEvents = NO_EVENTS,
        lifetimes: Lifetimes | None = None,
    ) -> None:
        self.store = store
        self.clock = clock or Clock()
        self.time_scale = time_scale
        self.hooks = hooks
        self.docs = docs or DocCache()
        self.lifetimes = lifetimes or Lifetimes()
        self._settling: set[asyncio.Task[None]] = set()  # saves whose outcome is unknown
        self.changes = RoomChanges(
            store, self.clock, hooks, self.docs, events, time_scale, self.lifetimes
        )

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
        return room_summary(room_code, doc.state, self.clock.now_ms(), doc.locked,
                            len(doc.watchers), doc.game)

    # ---- creating and joining ----

    async def create(
        self, name: str, *, deck: list[str] | None = None, dealer: int | None = None,
        game: str = DEFAULT, decks: list[list[str]] | None = None,
    ) -> SeatCredentials:
        """A new room of `game` (http/games.py) in the lobby, its creator host p1
        (`deck`: Crisp's test deck; `decks`: another game's, protocol v2)."""
        state = rules.new_room(
            game, name, time_scale=self.time_scale, deck=deck, decks=decks, dealer=dealer,
            now=self.clock.now_ms(),  # R17.2: a host who never connects is away 20 s later
        )
        token = new_token()
        host = state.host
        for _ in range(CODE_TRIES):
            room_code = new_code()
            doc = RoomDoc(
                room_code=room_code, state=state, token_hashes={host: hash_token(token)},
                created_ms=self.clock.now_ms(), game=game,
            )
            if await self.store.create(room_code, doc.dumps(),
                                       room_deadline(doc, self.lifetimes)):
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
            if doc.locked and rules.status(doc.state, now) == LOBBY:  # a started game: game_started
                raise RoomLocked(room_code)
            if any(name_key(p.name) == key for p in doc.state.players):
                raise NameTaken(name)
            state, pid, events = rules.add_player(doc.state, name, now)
            token_hashes = {**doc.token_hashes, pid: hash_token(token)}
            return Outcome(doc.with_(state=state, token_hashes=token_hashes), list(events), pid)

        out = await self.mutate(room_code, fn)
        assert out is not None
        self.hooks.player_joined(room_code, out.result)
        return SeatCredentials(room_code, out.result, token)

    # ---- presence ----

    async def connect(
        self, room_code: str, pid: str, conn_id: str, token: str | None = None
    ) -> tuple[RoomDoc, int]:
        """Make `conn_id` the seat's newest connection and mark it connected.

        Returns the saved document and the connection's number. Raises RoomNotFound,
        or SeatGone if the seat is gone (kicked meanwhile) or no longer holds `token`
        (moved to another device meanwhile, R18.5).
        """

        def fn(doc: RoomDoc, now: int) -> Outcome:
            if pid not in doc.token_hashes or (
                token is not None and player_of_token({pid: doc.token_hashes[pid]}, token) != pid
            ):
                raise SeatGone(pid)
            state, events = rules.set_connected(doc.state, pid, True, now)
            new = doc.next_conn(pid, conn_id).with_(state=state)
            return Outcome(new, list(events), new.conns[pid].n)

        out = await self.mutate(room_code, fn)
        assert out is not None
        return out.doc, int(out.result)

    async def reclaim(self, room_code: str, pid: str, conn_id: str) -> int | None:
        """A live socket whose lease ran out (leases.py) takes its seat back: it is
        made the seat's newest connection again and marked connected, unless another
        connection holds the seat now. Returns its new connection number, or None."""

        def fn(doc: RoomDoc, now: int) -> Outcome | None:
            old = doc.conns.get(pid)
            if pid not in doc.token_hashes or (old is not None and old.id != conn_id):
                return None
            player = next((p for p in doc.state.players if p.id == pid), None)
            if old is not None and player is not None and player.connected:
                return Outcome(doc, [], old.n)  # nothing was lost
            state, events = rules.set_connected(doc.state, pid, True, now)
            new = doc.next_conn(pid, conn_id).with_(state=state)
            return Outcome(new, list(events), new.conns[pid].n)

        try:
            out = await self.mutate(room_code, fn)
        except RoomNotFound:
            return None
        return None if out is None else int(out.result)

    async def disconnect(
        self, room_code: str, pid: str, conn_id: str, since: int | None = None
    ) -> None:
        """Mark the seat disconnected, unless a newer connection holds it; `since`:
        the connection's last sign of life, when it ended before it was noticed."""

        def fn(doc: RoomDoc, now: int) -> Outcome | None:
            ref = doc.conns.get(pid)
            if ref is None or ref.id != conn_id:
                return None
            conns = {k: v for k, v in doc.conns.items() if k != pid}
            state = doc.state
            events: list[Any] = []
            if pid in doc.token_hashes and any(p.id == pid for p in state.players):
                state, evs = rules.set_connected(state, pid, False, now, since)
                events = list(evs)
            return Outcome(doc.with_(state=state, conns=conns), events)

        with contextlib.suppress(RoomNotFound):
            await self.mutate(room_code, fn)

    # ---- game actions and timers ----

    async def act(
        self, room_code: str, pid: str, action: Action | Mapping[str, Any]
    ) -> int | None:
        """Apply an engine action (the client message's `to_action()`), or for a table
        room the client message itself (game_table.apply); raises IllegalAction or
        GameError, RoomNotFound, SeatGone, RoomBusy. Returns the state version it
        was saved as.

        Seats the action removed (kick, leave) lose their token: in the lobby the seat
        is gone, in a game the computer plays it (R17.5). A human's kick locks the room,
        so that neither the kicked player nor anyone else can take the free seat until
        the host opens the room again (`set_locked`); removing a computer player does
        not lock it.
        """
        kicked = rules.kicked(action)  # a human's kick locks the room; a bot's removal not

        def fn(doc: RoomDoc, now: int) -> Outcome:
            if pid not in doc.token_hashes:
                raise SeatGone(pid)
            state, events = rules.apply(doc.state, pid, action, now)
            new = _seat_holders(doc, state)
            if not state.options.watchers:  # R18.1: watching off, nobody counted
                new = closed_to_watchers(new)
            locks = kicked is not None and kicked in doc.token_hashes
            return Outcome(new.with_(locked=True) if locks else new, list(events))

        saved = await self.changes.mutate(room_code, fn, publish_later=True)
        if saved is None:
            return None
        if saved.outcome.doc.state.abandoned:
            await self._delete_abandoned(room_code)
            if saved.message is not None:  # its sockets hear of it once it is gone
                await self.store.publish(room_code, saved.message)
        return int(saved.outcome.doc.state.version)

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
        has come (called by the scheduler); delete a room no seat ever connected to
        or an empty lobby once its time is up (`unopened_end`)."""

        def fn(doc: RoomDoc, now: int) -> Outcome:
            end = unopened_end(doc, self.lifetimes)
            if end is not None and end <= now:
                raise _Unopened(room_code, "room_unopened" if doc.conn_seq == 0
                                else "room_empty_lobby")
            due = rules.next_deadline(doc.state)
            state, events = rules.advance(doc.state, now)
            if due is not None and state.version != doc.state.version:
                self.hooks.timer_fired(room_code, max(0, now - due))
            seats = computer_seats.follow(state, doc.computer, list(events), now, self.time_scale)
            played = computer_seats.play_due(state, seats, now, self.time_scale)
            return Outcome(doc.with_(state=played.state, computer=played.computer),
                           [*events, *played.events], result=played.moves, followed=True)

        try:
            out = await self.mutate(room_code, fn, timer=True)
        except RoomNotFound:
            return
        except _Unopened as gone:
            await self.store.delete(room_code)
            said = ("no seat ever connected" if gone.why == "room_unopened"
                    else "a lobby nobody was connected to")
            log.info("room %s: deleted, %s", room_code, said,
                     extra=fields(room_code, gone.why))
            return
        except UnknownSave as exc:  # counted once the store says the save landed
            self._settling.add(task := asyncio.create_task(
                self._count_if_saved(room_code, exc), name=f"settle-{room_code}"))
            task.add_done_callback(self._settling.discard)
            log.warning("room %s: a timer's save has an unknown outcome: %s", room_code, exc)
            return
        # counted once saved: a move whose save lost the race was never made
        self._count_moves(room_code, out)

    def _count_moves(self, room_code: str, out: Outcome | None) -> None:
        for seat, kind in [] if out is None else out.result:
            self.hooks.computer_moved(room_code, seat, kind)

    async def _count_if_saved(self, room_code: str, unknown: UnknownSave) -> None:
        """After a save of computer moves whose outcome was unknown: once the store
        answers, count the moves if that save landed (its id is among the room's
        last saves), else nothing (they were not made; the scheduler makes them
        again, and counts them then)."""
        for attempt in range(SETTLE_TRIES):
            try:
                found = await self.store.load(room_code)
            except StoreUnavailable:
                await asyncio.sleep(min(0.05 * 2**attempt, 2.0))  # real time: the store's
                continue
            if found is not None and unknown.save_id in self.docs.parse(room_code, found).saves:
                self._count_moves(room_code, unknown.outcome)
            return
        log.warning("room %s: the outcome of a save stayed unknown", room_code)

    # ---- the compare-and-set loop ----

    async def mutate(
        self, room_code: str, fn: Mutation, *, timer: bool = False
    ) -> Outcome | None:
        """`RoomChanges.mutate` (changes.py): the outcome, or None if nothing changed."""
        saved = await self.changes.mutate(room_code, fn, timer=timer)
        return None if saved is None else saved.outcome


def _seat_holders(doc: RoomDoc, state: rules.RoomState) -> RoomDoc:
    """`doc` with `state`, and tokens and connections only for the human seats left:
    a seat removed in the lobby is gone, one removed during a game is the
    computer's now and its token is revoked (R17.5: its hello gets 4403)."""
    humans = {p.id for p in state.players if p.bot_level is None}
    if humans.issuperset(doc.token_hashes) and humans.issuperset(doc.conns):
        return doc.with_(state=state)  # every token's seat is still a human's: as it was
    token_hashes = {k: v for k, v in doc.token_hashes.items() if k in humans}
    seated = {p.id for p in state.players}
    revoked = doc.revoked | {
        v for k, v in doc.token_hashes.items() if k in seated and k not in humans
    }
    conns = {k: v for k, v in doc.conns.items() if k in humans}
    return doc.with_(state=state, token_hashes=token_hashes, conns=conns, revoked=revoked)
