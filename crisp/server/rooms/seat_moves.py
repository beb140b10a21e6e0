"""Moving a seat to another device (R18.5; protocol.md v1.2, "Moving a seat").

A seated player asks for a one-time **move code** for their own seat; the host may
ask for one for a seat that is away (R17.2). The code is `MOVE_CODE_LEN` characters
of the room-code alphabet from the CSPRNG (31^10, about 49.5 bits), kept in the
store as a ticket (`Store.put_ticket`, shared by every process) for `MOVE_TTL_MS`:
2 minutes on the server's clock, real time, never scaled by the time scale. The
ticket names the seat and the token hash the seat had when the code was made.

Taking the code (`take`, any process) is single use: the ticket is taken from the
store atomically, then the room changes in one compare-and-set:
- the seat gets a new token (its hash replaces the old one: the old token is
  refused at hello from then on, 4401, like any unknown token);
- the seat's `conns` entry becomes `MOVED` numbered above every connection the
  room has given, so each process closes the old token's sockets with 4403 when
  the change reaches it (hub.py), and no socket of the old token can take the seat
  again (`Rooms.connect` checks the token it said hello with);
- a connected seat is marked disconnected (the new device connects next).
A code made before the seat last moved is void (its token hash is not the seat's
any more), and so is one whose seat is the computer's now (R17.5). The new device
connects like a reconnection: the looks it is owed, once (R16.3).
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass

from crisp.server.rooms.changes import Outcome
from crisp.server.rooms.codes import ALPHABET, hash_token, new_token, player_of_token
from crisp.server.rooms.document import ConnRef, RoomDoc
from crisp.server.rooms.service import Rooms, SeatCredentials
from crisp.server.wire import rules
from crisp.server.wire.failures import RoomNotFound
from crisp.store import Store

MOVE_TTL_MS = 120_000  # R18.5: 2 minutes, real time
MOVE_CODE_LEN = 10  # 31^10 = 8.2e14, about 49.5 bits (R18.5: at least 40)
MOVED = "moved"  # the `conns` id of a seat that moved (a real id is 16 hex digits)
PUT_TRIES = 4  # a clash of two live codes of one room: practically never


class MoveNotFound(RoomNotFound):
    """No such move code: never made, used, expired, or void (404 `no_move`). A
    `RoomNotFound`, so a failed look-up keeps its look-up unit spent (limits.py)."""


class BadToken(Exception):
    """The `Authorization` token is no seat's (401)."""


class NotHost(Exception):
    """A player other than the host asked to move another seat (403 `not_host`)."""


class NotAway(Exception):
    """The host asked to move a seat that is not away, or a computer's (403
    `not_away`)."""


class NoSuchSeat(Exception):
    """`player` names no seat of the room (422)."""


@dataclass(frozen=True)
class MoveCode:
    """A move code and when it expires (ms, the server's clock)."""

    move_code: str
    expires_at: int


def new_move_code() -> str:
    """`MOVE_CODE_LEN` characters of the room-code alphabet, from the CSPRNG."""
    return "".join(secrets.choice(ALPHABET) for _ in range(MOVE_CODE_LEN))


def normalize_move_code(raw: str) -> str | None:
    """A move code as typed or linked (case and dashes ignored), or None if no code
    can look like it."""
    code = raw.replace("-", "").replace(" ", "").upper()
    if len(code) != MOVE_CODE_LEN or not set(code) <= set(ALPHABET):
        return None
    return code


def _key(room_code: str, move_code: str) -> str:
    return f"move:{room_code}:{move_code}"


class SeatMoves:
    """Move codes of the rooms of `rooms`, kept in `store`."""

    def __init__(self, rooms: Rooms, store: Store) -> None:
        self.rooms = rooms
        self.store = store

    async def create(self, room_code: str, token: str, player: str | None = None) -> MoveCode:
        """A move code for the token's own seat (`player` None or its own id), or, for
        the host, for the away seat `player`. Raises RoomNotFound, BadToken,
        NotHost, NotAway, NoSuchSeat."""
        doc = await self.rooms.load(room_code)
        if doc is None:
            raise RoomNotFound(room_code)
        caller = player_of_token(doc.token_hashes, token)
        if caller is None:
            raise BadToken()
        now = self.rooms.clock.now_ms()
        target = caller if player is None else player
        if target != caller:
            _check_host_may_move(doc, caller, target, now)
        value = json.dumps({"player": target, "from": doc.token_hashes[target],
                            "expires_at": now + MOVE_TTL_MS})  # fmt: skip
        for _ in range(PUT_TRIES):
            move_code = new_move_code()
            if await self.store.put_ticket(_key(room_code, move_code), value, MOVE_TTL_MS):
                return MoveCode(move_code, now + MOVE_TTL_MS)
        raise RuntimeError("no free move code")  # only a broken random source gets here

    async def take(self, room_code: str, raw_code: str) -> SeatCredentials:
        """The seat of a move code, with a new token (R18.5). Raises MoveNotFound (also
        for a room that is gone), once the code was looked up."""
        move_code = normalize_move_code(raw_code)
        found = None if move_code is None else await self.store.take_ticket(
            _key(room_code, move_code))  # fmt: skip
        if found is None:
            raise MoveNotFound(raw_code)
        ticket = json.loads(found)
        if int(ticket["expires_at"]) <= self.rooms.clock.now_ms():
            raise MoveNotFound(raw_code)
        pid, was = str(ticket["player"]), str(ticket["from"])
        token = new_token()

        def fn(doc: RoomDoc, now: int) -> Outcome:
            if doc.token_hashes.get(pid) != was:  # moved since, or removed (R17.5)
                raise MoveNotFound(raw_code)
            state, events = rules.set_connected(doc.state, pid, False, now)
            last = max([doc.conn_seq, *(c.n for c in doc.conns.values())])
            new = doc.with_(state=state, token_hashes={**doc.token_hashes, pid: hash_token(token)},
                            conns={**doc.conns, pid: ConnRef(MOVED, last + 1)}, conn_seq=last + 1)
            return Outcome(new, list(events))  # fmt: skip

        try:
            await self.rooms.mutate(room_code, fn)
        except MoveNotFound:
            raise
        except RoomNotFound as exc:
            raise MoveNotFound(raw_code) from exc
        return SeatCredentials(room_code, pid, token)


def _check_host_may_move(doc: RoomDoc, caller: str, target: str, now: int) -> None:
    """R18.5: only the host moves another seat, and only a human seat that is away."""
    state = rules.at_moment(doc.state, now)
    if caller != state.host or state.host_pending:
        raise NotHost()
    player = next((p for p in state.players if p.id == target), None)
    if player is None:
        raise NoSuchSeat(target)
    if player.bot_level is not None or not player.away or target not in doc.token_hashes:
        raise NotAway()
