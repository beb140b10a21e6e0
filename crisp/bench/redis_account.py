"""Which calls make Redis's commands: a `MONITOR` of a run's window, each command
counted under the call that sent it (issue 27).

Redis's own counters (INFO commandstats) say how many of each command ran; this
says why. Every top-level command is one round trip's worth of work sent by a
client: an `EVALSHA` is named after its script (the store's Lua scripts, by
their SHA-1), a plain command after itself (`HMGET`: a load, `ZADD`: leases put,
...). The commands a script runs inside (MONITOR shows them as `lua`) are
counted under that script, and so are a pipeline's commands each on its own.

    crisp bench --store redis --redis-account ...       (the report's `redis.by_call`)
    python -m crisp.bench.redis_account URL SECONDS      (any Redis, for SECONDS)

MONITOR costs Redis (and the reader) work of its own: take CPU figures from a
run without it.
"""

from __future__ import annotations

import hashlib
import sys
import threading
import time
from collections import Counter
from typing import Any

import redis


def script_names() -> dict[str, str]:
    """The store's Lua scripts' names by their SHA-1 (what EVALSHA sends)."""
    from crisp.store import redis_logs, redis_scripts

    names: dict[str, str] = {}
    for module in (redis_scripts, redis_logs):
        for name, value in vars(module).items():
            if name.isupper() and isinstance(value, str) and "redis.call" in value:
                names[hashlib.sha1(value.encode()).hexdigest()] = name.lower()
    return names


class Account:
    """Counts of one MONITOR: per call (`calls`: round trips' top-level commands) and
    per call with what it ran inside (`commands`)."""

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()
        self.commands: Counter[str] = Counter()
        self.inner: Counter[str] = Counter()  # "call: COMMAND" for the commands inside

    def add(self, command: str, client_type: str, current: str) -> str:
        """Count one MONITOR line; returns the call that later `lua` lines belong to."""
        words = command.split(" ", 2)
        name = words[0].upper()
        if client_type == "lua":
            self.commands[current] += 1
            self.inner[f"{current}: {name}"] += 1
            return current
        if name in ("EVALSHA", "EVAL") and len(words) > 1:
            call = "script " + self._names.get(words[1].lower(), words[1][:8])
        else:
            call = name.lower()
        self.calls[call] += 1
        self.commands[call] += 1
        return call

    _names: dict[str, str] = {}

    def per(self, count: int) -> dict[str, Any]:
        """The counts per `count` (the run's answered actions)."""

        def each(counter: Counter[str]) -> dict[str, float]:
            return {k: round(v / count, 3) for k, v in counter.most_common()}

        return {"calls": each(self.calls), "commands": each(self.commands),
                "calls_total": round(sum(self.calls.values()) / count, 2),
                "commands_total": round(sum(self.commands.values()) / count, 2),
                "inside": each(self.inner)}  # fmt: skip


def merged(accounts: list[Account]) -> Account:
    """Several masters' accounts as one."""
    out = Account()
    for a in accounts:
        out.calls.update(a.calls)
        out.commands.update(a.commands)
        out.inner.update(a.inner)
    return out


class Monitor:
    """MONITOR on `url` in a thread of its own, from `start()` to `stop()`."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.account = Account()
        Account._names = script_names()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="redis-monitor", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> Account:
        self._stop.set()
        self._thread.join(timeout=10)
        return self.account

    def _run(self) -> None:
        client = redis.Redis.from_url(self.url, socket_timeout=0.5)
        current = "?"
        try:
            with client.monitor() as m:  # type: ignore[no-untyped-call]
                while not self._stop.is_set():
                    try:
                        line = m.next_command()
                    except redis.TimeoutError:
                        continue
                    current = self.account.add(str(line["command"]),
                                               str(line.get("client_type", "")), current)
        except redis.ConnectionError:
            pass  # Redis stopped
        finally:
            client.close()


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__)
        return 2
    monitor = Monitor(argv[0])
    monitor.start()
    time.sleep(float(argv[1]))
    account = monitor.stop()
    for call, n in account.commands.most_common():
        print(f"{n:8d}  {call}  ({account.calls[call]} calls)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
