"""The shards of the Redis store and the claim of their schedules.

A `Shard` is one part of the rooms with its own key prefix: one Redis has one
(the plain layout); on a cluster each shard's keys share one hash slot
(`redis_cluster.py`). Each shard has two schedules, sorted sets claimed the same
way: `deadlines` (members: room codes, docs/store.md "The scheduler claim") and
`leases` (members: "code seat conn", "Presence leases").

`ShardSchedules` keeps what this process knows of each schedule's first entry
(`Head`), so that a claim reads only the shards that may have something due:
those whose first entry is due, or that were last read `known_for_s` ago or more
(0 on one Redis: always read, exact; 1 s on a cluster: a deadline another
process set is seen within a second)."""

from __future__ import annotations

import math
import time
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any

# (keys, args) of one script call; `each(script, calls, partial=...)` runs them all at
# once (redis.py: RedisStore._each).
Calls = Sequence[tuple[list[str], list[Any]]]
Each = Callable[..., Awaitable[list[Any]]]
# guard(write=...): the store's mapping of connection errors (redis.py).
Guard = Callable[..., AbstractAsyncContextManager[None]]
KINDS = ("deadlines", "leases")


class Shard:
    """One shard of the rooms: its key prefix, schedule and indexes. One Redis has one
    shard (the plain layout); on a cluster each shard's keys share one hash slot."""

    __slots__ = ("deadlines", "leases", "prefix", "rooms")

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.deadlines = prefix + "deadlines"
        self.rooms = prefix + "rooms"
        self.leases = prefix + "leases"

    def room(self, code: str) -> str:
        """The room's key, which is also its channel."""
        return self.prefix + "room:" + code


class Head:
    """What this process knows of one shard's schedule: its first entry (score inf
    and member None when empty), when that was read (monotonic; -inf: read it
    again), and a count of this process's own changes to it."""

    __slots__ = ("changes", "member", "read_at", "score")

    def __init__(self) -> None:
        self.score: float = math.inf
        self.member: str | None = None
        self.read_at = -math.inf
        self.changes = 0

    def learn(self, first: tuple[str, float] | None, read_at: float, changes: int) -> None:
        """The schedule's first entry, as read at `read_at` when `changes` own changes
        were known. Own changes since then: read it again (keeping the earlier)."""
        score, member = (math.inf, None) if first is None else (first[1], first[0])
        if changes != self.changes:
            if score < self.score:
                self.score, self.member = score, member
            self.read_at = -math.inf
            return
        self.score, self.member, self.read_at = score, member, read_at


class ShardSchedules:
    """The `deadlines` and `leases` schedules of every shard, as this process knows
    them, and their claim (the scripts `heads` and `claim` of redis_scripts.py, run
    through the store's `each` and `guard`)."""

    def __init__(
        self,
        shards: list[Shard],
        known_for_s: float,
        *,
        heads: Any,
        claim: Any,
        each: Each,
        guard: Guard,
        shard_index: Callable[[str], int],
    ) -> None:
        self._shards = shards
        self._known_for_s = known_for_s
        self._heads_script = heads
        self._claim_script = claim
        self._each = each
        self._guard = guard
        self._shard_index = shard_index
        self._known = {kind: [Head() for _ in shards] for kind in KINDS}

    def note(self, kind: str, code: str, member: str, score: float | None) -> None:
        """This process set `member`'s entry in its shard's schedule `kind` to `score`
        (None: removed): keep what this process knows of the shard's first entry."""
        head = self._known[kind][self._shard_index(code)]
        head.changes += 1
        if score is not None and score < head.score:
            head.score, head.member = score, member
        elif member == head.member:  # the first entry moved later or left: read it again
            head.read_at = -math.inf

    def _raise_if_all_failed(self, answers: list[Any], asked: int) -> None:
        """A whole outage is an error: every one of `asked` calls failed and they were
        all the shards there are. (A part that fails reads as empty, and is read
        again next time.)"""
        failed = [a for a in answers if isinstance(a, Exception)]
        if failed and len(failed) == len(answers) and asked == len(self._shards):
            raise failed[0]

    async def _read_heads(
        self, kind: str, which: list[int], now: str | int, limit: int
    ) -> list[list[tuple[str, float]]]:
        """Read shards `which` of schedule `kind`: per shard, its due (member, score)
        pairs (at most `limit`), else its first entry; and remember each first entry.
        A shard that does not answer (its master is down, and others answer) reads
        as empty and is read again next time."""
        heads = self._known[kind]
        before = [heads[i].changes for i in which]
        started = time.monotonic()
        calls = [([getattr(self._shards[i], kind)], [now, limit]) for i in which]
        answers = await self._each(self._heads_script, calls, partial=True)
        self._raise_if_all_failed(answers, len(which))
        out: list[list[tuple[str, float]]] = []
        for i, changes, flat in zip(which, before, answers, strict=True):
            if isinstance(flat, Exception):
                heads[i].read_at = -math.inf
                out.append([])
                continue
            pairs = [(str(m), float(sc)) for m, sc in zip(flat[::2], flat[1::2], strict=True)]
            out.append(pairs)
            heads[i].learn(pairs[0] if pairs else None, started, changes)
        return out

    async def claim(self, kind: str, now_ms: int, until_ms: int, limit: int) -> list[str]:
        """Claim up to `limit` due members of the shards' schedules `kind`
        ("deadlines" or "leases"), earliest first. Each shard is claimed on its own:
        read only if its first entry is known to be due or was last read
        `known_for_s` ago or more (0 on one Redis), then one claim script with the
        due members' room keys (it leases what is still due, drops the members of
        gone rooms, and returns the shard's new first entry). One shard's master
        being down does not hold up the others': their due members are claimed (a
        claim whose answer was lost leaves its members leased: due again after the
        lease)."""
        if limit <= 0:
            return []
        heads = self._known[kind]
        stale = time.monotonic() - self._known_for_s
        which = [i for i, h in enumerate(heads) if h.score <= now_ms or h.read_at <= stale]
        if not which:
            return []
        async with self._guard():
            pairs = await self._read_heads(kind, which, now_ms, limit)
        due = sorted(
            ((score, member, i)
             for i, shard_pairs in zip(which, pairs, strict=True)
             for member, score in shard_pairs if score <= now_ms),
            key=lambda x: x[0])[:limit]  # fmt: skip
        by_shard: dict[int, list[str]] = {}
        for _, member, i in due:
            by_shard.setdefault(i, []).append(member)
        if not by_shard:
            return []

        calls = []
        for i, members in by_shard.items():
            shard = self._shards[i]
            rooms = [shard.room(m.split(" ", 1)[0]) for m in members]
            calls.append(([getattr(shard, kind), *rooms], [now_ms, until_ms, *members]))
        changes, started = [heads[i].changes for i in by_shard], time.monotonic()
        async with self._guard(write=True):
            answers = await self._each(self._claim_script, calls, partial=True)
            self._raise_if_all_failed(answers, len(self._shards))
        claimed = []
        for i, before, answer in zip(by_shard, changes, answers, strict=True):
            if isinstance(answer, Exception):
                heads[i].read_at = -math.inf
                continue
            got, first = answer
            heads[i].learn((str(first[0]), float(first[1])) if first else None, started, before)
            claimed += [str(m) for m in got]
        return claimed

    async def next_due_ms(self, known_s: float = 0.0) -> int | None:
        """The earliest deadline this process knows of (reading the shards it last
        read `known_for_s`, or `known_s` if longer, ago or more), or None."""
        heads = self._known["deadlines"]
        stale = time.monotonic() - max(self._known_for_s, known_s)
        which = [i for i, h in enumerate(heads) if h.read_at <= stale]
        if which:
            async with self._guard():
                await self._read_heads("deadlines", which, "-inf", 1)
        first = min(h.score for h in heads)
        return None if first == math.inf else int(first)
