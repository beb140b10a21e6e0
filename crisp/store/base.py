"""The room store's contract: one versioned JSON document per room, pub/sub of room
updates, a schedule of room deadlines, presence leases, marks, budgets,
one-time tickets and each room's log; the values and errors it speaks in. It imports no backend (the
factory that picks one is `factory.py`). See docs/store.md."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass

Handler = Callable[[str], Awaitable[None]]
GapHandler = Callable[[], Awaitable[None]]
Unsubscribe = Callable[[], Awaitable[None]]

DEFAULT_IDLE_TTL_S = 6 * 3600
MAX_DEBT_S = 24 * 3600  # the most a forced `spend` can push a budget into debt


class StoreError(Exception):
    """Base class of the errors a store raises."""


class StoreUnavailable(StoreError):
    """The backend could not be reached: the request never got to it (connection
    refused, no connection to be had, a read that failed). Nothing was written."""


class OutcomeUnknown(StoreUnavailable):
    """A write (create, save, delete, publish, claim_due, claim_mark, ...) was sent to the
    backend but its answer never came (a timeout, or the connection dropped after
    the request went out): it may or may not have been applied. Reload the room once
    the store answers again to learn which."""


@dataclass(frozen=True, order=True)
class Lease:
    """One live connection's claim on a seat (R17.3): room `code`, player `seat`,
    connection id `conn`. Each field is a short id without spaces."""

    code: str
    seat: str
    conn: str


@dataclass(frozen=True)
class Versioned:
    """A room document and its version (1 after create, +1 on every successful save)."""

    version: int
    doc: str


@dataclass(frozen=True, slots=True)
class LogWrite:
    """What a `save` does to the room's log, in the same atomic step (docs/store.md,
    "Room logs"): `reset` empties it first, then `trim` entries are dropped from its
    start, then each text of `append` is added at its end, one entry each. A save
    that carries a LogWrite (even an empty one) also gives the log the room's idle
    expiry, so a log kept this way expires with its room."""

    append: tuple[str, ...] = ()
    trim: int = 0
    reset: bool = False


@dataclass(frozen=True, slots=True)
class NewVersion:
    """What a successful `save` writes: the room's next document, the message that
    announces it (published in the same step; None: none), the room's next
    deadline (None: none) and what it does to the room's log (None: nothing)."""

    doc: str
    message: str | None
    deadline_ms: int | None
    log: LogWrite | None = None


class Store(ABC):
    """One JSON document per room, with a version, an idle expiry, a deadline schedule
    and a pub/sub channel. All methods are safe to call concurrently."""

    @abstractmethod
    async def start(self) -> None:
        """Start background tasks (expiry sweep, pub/sub reader). Idempotent."""

    @abstractmethod
    async def close(self) -> None:
        """Stop background tasks, drop local subscribers, release connections."""

    @abstractmethod
    async def ping(self) -> bool:
        """True when the backend answers (quickly); never raises. For /readyz."""

    @abstractmethod
    async def create(self, code: str, doc: str, deadline_ms: int | None = None) -> bool:
        """Store `doc` as version 1 of a new room. False if a live room has that code."""

    @abstractmethod
    async def load(self, code: str) -> Versioned | None:
        """The room's current version and document, or None if there is no live room."""

    async def save(
        self,
        code: str,
        expected_version: int,
        doc: str,
        *,
        message: str | None = None,
        deadline_ms: int | None = None,
        log: LogWrite | None = None,
    ) -> int | None:
        """Compare-and-set, atomically: if the stored version is `expected_version`,
        store `doc` as version + 1, refresh the idle expiry, set the room's deadline
        (clear it when None), apply `log` to the room's log (`LogWrite`) and publish
        `message` (if not None) on the room's channel.
        Returns the new version, or None (nothing changed) if the version did not match
        or the room is gone. (Written once, here: a backend implements `_save`.)"""
        return await self._save(
            code, expected_version, NewVersion(doc, message, deadline_ms, log))

    async def _save(self, code: str, expected_version: int, new: NewVersion) -> int | None:
        """The backend's half of `save` (every backend overrides it; a wrapper that
        overrides `save` itself need not)."""
        raise NotImplementedError(f"{type(self).__name__} does not implement _save")

    @abstractmethod
    async def claim_mark(self, code: str, name: str, value: int) -> int | None:
        """Raise the room's mark `name` (an integer that only grows, kept with the
        room and gone with it; 0 until set) to `value` if it is lower, atomically.
        Returns the mark as it was, or None if there is no live room. Two callers
        claiming the same value: exactly one sees a previous value below it. Cheap:
        the room's version does not change and nothing is published."""

    @abstractmethod
    async def claim_marks(self, code: str, marks: Mapping[str, int]) -> dict[str, int] | None:
        """`claim_mark` of each of `marks` (name -> value), all in one atomic step (one
        store call): each mark is raised to its value if that is higher. Returns each
        mark as it was before (0 if never set), or None if there is no live room. A
        value of 0 only reads its mark."""

    @abstractmethod
    async def return_mark(self, code: str, name: str, claimed: int, previous: int) -> None:
        """Give back a claim that could not be used: if the mark is still `claimed`,
        set it to `previous` (else, or without a live room, change nothing)."""

    @abstractmethod
    async def delete(self, code: str) -> None:
        """Remove the room and its deadline. No-op if absent."""

    @abstractmethod
    async def publish(self, code: str, message: str) -> None:
        """Send `message` to every subscriber of the room, in every process."""

    @abstractmethod
    async def subscribe(
        self, code: str, handler: Handler, on_gap: GapHandler | None = None
    ) -> Unsubscribe:
        """Call `handler(message)` for every message published on the room from now on
        (once this returns, the subscription is active), one at a time and in order.
        Each subscriber has its own queue, so a slow handler delays only itself; an
        exception in a handler is logged and does not stop later calls.
        Returns an idempotent async function that ends the subscription; after it
        returns the handler is not called again. Messages published while a backend
        connection was down are lost (pub/sub is at most once): once the subscription
        is active again after such a loss, `on_gap()` is called, in order with the
        messages (after those received before the loss, before those received after
        it), so the subscriber can reload what it may have missed."""

    @abstractmethod
    async def claim_due(self, now_ms: int, lease_ms: int, limit: int = 100) -> list[str]:
        """Codes of up to `limit` live rooms whose deadline is <= now_ms. Each returned
        room's deadline becomes now_ms + lease_ms (a lease: if the claimer dies, the
        room falls due again after the lease), atomically, so two callers never get
        the same due deadline. Entries of rooms that are gone are dropped. The caller
        then advances the room and save()s it, which sets the real next deadline."""

    @abstractmethod
    async def next_due_ms(self, *, known_ms: int = 0) -> int | None:
        """The earliest scheduled deadline (possibly already past), or None.
        (RedisClusterStore: as this process knows it; a deadline another process
        set is seen within a second, docs/store.md "Redis Cluster".) `known_ms`: it
        may answer from what this process read of the schedule in the last `known_ms`
        ms and its own changes since, without asking the backend again (the
        scheduler, right after its claim read the schedule: issue 27)."""

    @abstractmethod
    async def put_leases(self, leases: Sequence[Lease], until_ms: int) -> None:
        """Hold each lease until `until_ms`, created or extended (a live connection)."""

    @abstractmethod
    async def renew_leases(self, leases: Sequence[Lease], until_ms: int) -> list[bool]:
        """Extend each lease that is still held to `until_ms`, in one step; per lease,
        False if it was not held any more (expired and claimed, or dropped): it is
        not created again."""

    @abstractmethod
    async def drop_lease(self, lease: Lease) -> None:
        """Forget a lease (its connection ended in order). No-op if absent."""

    @abstractmethod
    async def claim_expired_leases(
        self, now_ms: int, claim_ms: int, limit: int = 100
    ) -> list[Lease]:
        """Up to `limit` leases whose time is <= now_ms, each moved to now_ms +
        claim_ms atomically, so two callers never get the same expired lease and a
        claimer that dies leaves it to be claimed again after `claim_ms`. Leases of
        rooms that are gone are dropped instead. The claimer handles each lease (the
        seat's connection is gone) and then drops it."""

    @abstractmethod
    async def read_log(self, code: str, start: int, count: int) -> list[str]:
        """Up to `count` entries of the room's log from index `start` (0 = its first
        entry now), in order; [] past its end, without a log or without a live room.
        The log is written only by `save` (`LogWrite`): a round's record (R18.2)."""

    @abstractmethod
    async def put_ticket(self, key: str, value: str, ttl_ms: int) -> bool:
        """Keep `value` under `key` for `ttl_ms` of real time (the backend's clock),
        unless a live ticket has that key already (then False, nothing changes). A
        ticket is a one-time code (moving a seat, R18.5): taken once, or never."""

    @abstractmethod
    async def take_ticket(self, key: str) -> str | None:
        """The ticket's value, removed in the same atomic step; None if there is no
        live ticket (never put, taken already, or expired). Of two callers taking the
        same ticket, on any processes, exactly one gets it."""

    @abstractmethod
    async def room_count(self) -> int:
        """The number of live rooms."""

    @abstractmethod
    async def exists(self, code: str) -> bool:
        """True if a live room has this code."""

    @abstractmethod
    async def spend(
        self, key: str, cost: float = 1.0, *, per_s: float, burst: float, force: bool = False
    ) -> float:
        """Spend `cost` units of the budget `key`, atomically: a bucket that holds
        `burst` units and refills at `per_s` units per second (a leaky bucket kept as
        its "theoretical arrival time", GCRA). Returns 0.0 when the units were spent,
        else the seconds until they could be (and nothing is spent).

        `force` spends even beyond the bucket (the debt then delays later spending,
        at most `MAX_DEBT_S`), and returns 0.0. A negative `cost` gives units back
        (never more than a full bucket). Budgets are shared by every process on the
        same backend and forgotten once full again; keys are the caller's (e.g.
        `"lookup:203.0.113.7"`)."""


def spend_at(
    tat_ms: float, now_ms: float, cost: float, per_s: float, burst: float, force: bool
) -> tuple[float | None, float]:
    """The arithmetic of `Store.spend` (GCRA), for a backend that keeps a budget's
    theoretical arrival time `tat_ms` itself: (the new tat, or None to leave it as
    it is; the seconds to wait, 0.0 when spent). A tat at or before `now_ms` means
    a full bucket."""
    interval = 1000.0 / per_s
    capacity = burst * interval
    # The debt is what is owed ahead of now plus the cost, never `(tat + cost) - now`:
    # with a full bucket (tat == now) that sum rounds at some readings of the clock, and
    # a bucket of `burst` refused a spend of `burst` by a hair (issue 34: the first
    # flood counted as a second one).
    debt = max(max(tat_ms - now_ms, 0.0) + cost * interval, 0.0)
    if debt > capacity and not force:
        return None, (debt - capacity) / 1000.0
    return now_ms + min(debt, max(capacity, MAX_DEBT_S * 1000.0)), 0.0
