"""Presence leases in the Redis store (docs/store.md, "Presence leases"): each
shard's `leases` schedule, member "code seat conn", score the lease's end. Put
and drop are plain sorted-set writes (one pipeline over several shards), a
renewal is one script per shard that extends only what is still held, and an
expired lease is claimed like a deadline (`ShardSchedules.claim`)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

from crisp.store.base import Lease
from crisp.store.redis_schedule import Each, Guard, Shard, ShardSchedules


def member(lease: Lease) -> str:
    """The lease as its schedule member."""
    return f"{lease.code} {lease.seat} {lease.conn}"


def lease(member: str) -> Lease:
    """The lease a schedule member stands for."""
    code, seat, conn = member.split(" ")
    return Lease(code, seat, conn)


class ShardLeases:
    """The presence leases of every shard, through the store's client `r`."""

    def __init__(
        self,
        r: Any,
        shards: list[Shard],
        schedules: ShardSchedules,
        *,
        renew: Any,
        each: Each,
        guard: Guard,
        shard_index: Callable[[str], int],
        pipelines: asyncio.Semaphore,
    ) -> None:
        self._r = r
        self._shards = shards
        self._schedules = schedules
        self._renew_script = renew
        self._each = each
        self._guard = guard
        self._shard_index = shard_index
        self._pipelines = pipelines

    def _by_shard(self, leases: Sequence[Lease]) -> dict[int, list[int]]:
        """The indexes of `leases` grouped by their room's shard."""
        groups: dict[int, list[int]] = {}
        for i, one in enumerate(leases):
            groups.setdefault(self._shard_index(one.code), []).append(i)
        return groups

    async def put(self, leases: Sequence[Lease], until_ms: int) -> None:
        if not leases:
            return
        groups = self._by_shard(leases)
        async with self._guard():
            if len(groups) == 1:  # a single command: no pipeline
                ((shard, group),) = groups.items()
                await self._r.zadd(self._shards[shard].leases,
                                   {member(leases[i]): int(until_ms) for i in group})  # fmt: skip
            else:
                pipe = self._r.pipeline(transaction=False)
                for shard, group in groups.items():
                    pipe.zadd(self._shards[shard].leases,
                              {member(leases[i]): int(until_ms) for i in group})  # fmt: skip
                async with self._pipelines:
                    await pipe.execute()
        for one in leases:
            self._schedules.note("leases", one.code, member(one), until_ms)

    async def renew(self, leases: Sequence[Lease], until_ms: int) -> list[bool]:
        if not leases:
            return []
        groups = self._by_shard(leases)
        calls = [
            ([self._shards[shard].leases], [int(until_ms), *(member(leases[i]) for i in group)])
            for shard, group in groups.items()
        ]
        async with self._guard():
            answers = await self._each(self._renew_script, calls)
        held = [False] * len(leases)
        for group, answer in zip(groups.values(), answers, strict=True):
            for i, h in zip(group, answer, strict=True):
                held[i] = bool(h)
        for one, h in zip(leases, held, strict=True):
            if h:
                self._schedules.note("leases", one.code, member(one), until_ms)
        return held

    async def drop(self, one: Lease) -> None:
        async with self._guard():
            await self._r.zrem(self._shards[self._shard_index(one.code)].leases, member(one))
        self._schedules.note("leases", one.code, member(one), None)

    async def claim_expired(self, now_ms: int, claim_ms: int, limit: int) -> list[Lease]:
        members = await self._schedules.claim("leases", now_ms, now_ms + claim_ms, limit)
        return [lease(m) for m in members]
