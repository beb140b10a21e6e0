"""A room's log on Redis (`LogWrite` in `Store.save`, `Store.read_log`; the round
records of R18.2): the list `{room key}:log`, one entry per appended text.

A save that carries a `LogWrite` runs `SAVE_LOG`: the save script itself, then, in
the same atomic step, the log's reset (`DEL`), trim (`LTRIM`), appends (`RPUSH`:
an append is replicated and written to the AOF as itself, never as the whole log)
and the room's idle expiry (`PEXPIRE`). The log key starts with the room key, so
on a Redis Cluster it has the room's shard tag and lives in the room's slot: the
script's keys stay in one slot. A mixin of `RedisStore`: it uses the store's
client, `_guard` and `_key`. See docs/store.md, "Room logs"."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

from crisp.store import redis_scripts as lua
from crisp.store.base import LogWrite

# KEYS: room, deadlines, rooms, log.  ARGV: those of SAVE, then reset ('1'/'0'),
# trim, entries...  (The log part runs only when the compare-and-set succeeded.)
# The log's expiry follows the room's: set when SAVE pushes the room's back
# (`refresh`) and when this save made the log (reset, or a first append).
_LOG_PART = """
local made = ARGV[9] == '1'
if made then redis.call('DEL', KEYS[4]) end
if tonumber(ARGV[10]) > 0 then redis.call('LTRIM', KEYS[4], tonumber(ARGV[10]), -1) end
for k = 11, #ARGV do
  if redis.call('RPUSH', KEYS[4], ARGV[k]) == 1 then made = true end
end
if (refresh or made) and redis.call('EXISTS', KEYS[4]) == 1 then
  redis.call('PEXPIRE', KEYS[4], ttl)
end
return nv
"""
assert lua.SAVE.rstrip().endswith("return nv")
SAVE_LOG = lua.SAVE.rstrip().removesuffix("return nv") + _LOG_PART


def log_args(log: LogWrite) -> list[str | int]:
    """The arguments SAVE_LOG takes after SAVE's."""
    return ["1" if log.reset else "0", int(log.trim), *log.append]


class RedisLogs:
    """`read_log` of a Redis store, and the key its save script writes."""

    if TYPE_CHECKING:  # provided by RedisStore
        _r: Any

        def _guard(self, *, write: bool = False) -> contextlib.AbstractAsyncContextManager[None]:
            ...

        def _key(self, code: str) -> str: ...

    def _log_key(self, code: str) -> str:
        return self._key(code) + ":log"

    async def read_log(self, code: str, start: int, count: int) -> list[str]:
        if start < 0 or count <= 0:
            return []
        async with self._guard():
            entries = await self._r.lrange(self._log_key(code), start, start + count - 1)
        return [str(e) for e in entries]
