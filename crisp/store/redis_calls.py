"""How the Redis store sends its scripts: one call directly, several (one per shard)
in one pipeline, one round trip per node, whose failures on some shards can be
taken in part (a cluster node is down: the other shards' answers are used); and
a room write followed by `WAIT` on the same connection (`?wait=N`). A mixin of
`RedisStore`, which provides the client, the pipeline semaphore and the settings
named below."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from redis.exceptions import NoScriptError

from crisp.store.redis_schedule import Calls

log = logging.getLogger("crisp.store.redis")


class ScriptCalls:
    """`_each` (a script over several shards) and `_write` (a room write, then WAIT);
    `_node_failed` and `_wait_options` are what a cluster store does differently."""

    if TYPE_CHECKING:  # provided by RedisStore
        _r: Any
        _pipelines: asyncio.Semaphore
        _wait: int
        _wait_ms: int
        _partial_failures: int
        unreplicated: int

    async def _each(self, script: Any, calls: Calls, *, partial: bool = False) -> list[Any]:
        """`script` once per (keys, args) of `calls`, all at once: directly for one
        call, else in one pipeline (on a cluster: one round trip per node). The
        first error is raised, or with `partial` each call's error is returned in
        its place (the caller decides); a script a node does not know yet (a new
        master) is loaded on every master and the pipeline sent again."""
        if len(calls) == 1:
            keys, args = calls[0]
            try:
                return [await script(keys=keys, args=args)]
            except Exception as e:
                if not partial:
                    raise
                self._partly_failed(e, 1, 1)
                return [e]
        for attempt in (1, 2):
            pipe = self._r.pipeline(transaction=False)
            for keys, args in calls:
                pipe.execute_command("EVALSHA", script.sha, len(keys), *keys, *args)
            async with self._pipelines:
                try:
                    results = list(await pipe.execute(raise_on_error=False))
                except Exception as e:  # a node refused the connection: all its calls
                    if not partial:
                        raise
                    results = [e] * len(calls)
            if attempt == 1 and any(isinstance(r, NoScriptError) for r in results):
                await self._r.script_load(script.script)
                continue
            failed = [r for r in results if isinstance(r, Exception)]
            if failed and not partial:
                raise failed[0]
            if failed:
                self._partly_failed(failed[0], len(failed), len(results))
            elif self._partial_failures:
                log.info("redis: every call of a pipeline answers again")
                self._partial_failures = 0
            return results
        raise AssertionError("unreachable")

    def _partly_failed(self, error: Exception, failed: int, calls: int) -> None:
        """Calls of several shards failed (a cluster node is down): the others' answers
        are used; say so once per run of such failures."""
        if not self._partial_failures:
            log.warning("redis: %d of %d shard calls failed (%s); using the others",
                        failed, calls, error)  # fmt: skip
        self._partial_failures += 1
        self._node_failed()

    def _node_failed(self) -> None:
        """A connection to Redis failed (a cluster reads its slot map again)."""

    def _wait_options(self, key: str) -> dict[str, Any]:
        """How WAIT reaches the connection that wrote `key` (one Redis: the same
        pipeline's connection, nothing to add)."""
        return {}

    async def _write(self, script: Any, keys: list[str], args: list[Any]) -> Any:
        """Run a room write's script; with `?wait=N`, followed on the same connection by
        `WAIT N wait_ms`, so that the answer comes once N replicas have the write (or
        the time is up: the write stands, unconfirmed, counted in `unreplicated`)."""
        if not self._wait:
            return await script(keys=keys, args=args)
        for attempt in (1, 2):
            pipe = self._r.pipeline(transaction=False)
            pipe.execute_command("EVALSHA", script.sha, len(keys), *keys, *args)
            pipe.execute_command("WAIT", self._wait, self._wait_ms, **self._wait_options(keys[0]))
            async with self._pipelines:
                result, acks = await pipe.execute(raise_on_error=False)
            if attempt == 1 and isinstance(result, NoScriptError):
                await self._r.script_load(script.script)
                continue
            if isinstance(result, Exception):
                raise result
            if not isinstance(acks, int) or acks < self._wait:
                self.unreplicated += 1
                if self.unreplicated == 1 or self.unreplicated % 1000 == 0:
                    log.warning("redis: %d room write(s) not confirmed by %d replica(s) within "
                                "%d ms (WAIT answered %r)", self.unreplicated, self._wait,
                                self._wait_ms, acks)  # fmt: skip
            return result
        raise AssertionError("unreachable")
