"""`crisp bench soak`: rooms of websocket players on two `crisp serve` processes
sharing one Redis, for minutes, while a schedule of faults hits them (issue 23),
then an account of every action sent. docs/benchmarks.md, "Soak".

    crisp bench soak --rooms 250 --duration 1800 --out soak.json     # the 30 minutes
    crisp bench soak --rooms 40 --duration 60                        # the CI minute

1. Redis with an append-only file (fsync before each reply), the witness
   (record.py) subscribed to every room, two servers (production settings;
   the players come through a trusted proxy header, each room from an address of
   its own, so the per-client limits are the real ones).
2. The rooms are opened and every seat connects; the hosts start their games;
   the seats play the bots' random legal moves at the pace (client.py).
3. The faults run at their times (faults.py); memory is sampled throughout.
4. At the end the seats stop sending; once every seat is settled on the stored
   version (or the settle time ran out) the run checks which rooms progressed
   after the last fault, then the accounting (account.py) and the table.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import sys
import time
from collections import Counter
from collections.abc import Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from crisp import engine
from crisp.engine import State, Status

from ..client import Room
from ..pacing import PACES, pace_for
from ..procs.readings import machine_busy
from ..procs.services import start_crisp, start_redis
from ..stats import Stats
from .account import account
from .client import SoakSeat
from .faults import Fault, Stack, default_faults, parse_faults
from .ramp import open_rooms, server_env
from .record import Recorder, stored_rooms
from .report import (
    Sampler,
    by_kind,
    flatness,
    machine,
    seat_figures,
    table,
    timeline,
    unanswered,
    verdict,
)


@dataclass
class SoakConfig:
    rooms: int = 250
    players: int = 4
    duration_s: float = 1800.0
    servers: int = 2
    pace: str = "table"
    think_ms: float | None = None
    time_scale: float | None = None
    seed: int | None = None
    faults: list[Fault] | None = None  # default_faults(duration_s) if None
    sample_s: float = 30.0
    warm_s: float = 180.0  # memory is judged after this
    settle_s: float = 120.0  # the most the end waits for every seat to settle
    recover_s: float = 15.0  # rooms must progress from this long after the last fault
    progress_s: float = 10.0  # and have at least this long to (the run is longer if need be)
    work: Path | None = None  # logs and Redis's files (a temporary directory if None)
    server_log_level: str = "warning"


class Soak:
    """One soak run; the seats' driver (client.SoakDriver)."""

    def __init__(self, cfg: SoakConfig, work: Path) -> None:
        self.cfg = cfg
        self.work = work
        self.pace = pace_for(cfg.pace, think_ms=cfg.think_ms, time_scale=cfg.time_scale)
        self.rng = random.Random(cfg.seed)
        self.stats = Stats(measuring=True)
        self.t_measure, self.t_stop, self.refused = 0.0, float("inf"), 0.0
        self.quiet = False
        self.finished = False
        self.seats: list[SoakSeat] = []
        self.rooms: list[Room] = []
        self.recorder = Recorder()
        self.sampler = Sampler()
        self._tasks: set[asyncio.Task[Any]] = set()

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._sent)

    def _sent(self, task: asyncio.Task[Any]) -> None:
        """A send's end: a send on a socket that died meanwhile raises, and the seat's
        reader sees that socket lost (client.py); retrieved here, not logged as lost."""
        self._tasks.discard(task)
        if not task.cancelled():
            task.exception()

    async def run(self) -> dict[str, Any]:
        cfg, work = self.cfg, self.work
        (work / "redis").mkdir(parents=True, exist_ok=True)
        redis = await asyncio.to_thread(start_redis, appendonly_dir=work / "redis",
                                        max_clients=20000)  # fmt: skip
        await self.recorder.attach(redis.port)
        env = server_env(redis.url, self.pace.time_scale, cfg.server_log_level)
        stack = Stack(work, redis, redis.port, [], env, self.recorder)
        try:
            for i in range(cfg.servers):
                stack.servers.append(await asyncio.to_thread(
                    start_crisp, env, ready="/readyz", timeout=120, log=stack.server_log(i)))
            return await self._play(stack)
        finally:
            self.finished = True
            await self.recorder.detach()
            await asyncio.to_thread(stack.stop)

    async def _play(self, stack: Stack) -> dict[str, Any]:
        cfg = self.cfg
        load0, busy0, cpu0 = os.getloadavg()[0], machine_busy(), time.process_time()
        t_ramp = time.monotonic()
        self.rooms, self.seats = await open_rooms(self, [s.base for s in stack.servers],
                                                  cfg.rooms, cfg.players)  # fmt: skip
        stack.codes = [r.code for r in self.rooms]
        runs: list[asyncio.Task[None]] = []
        for first in range(0, len(self.seats), 100):  # 100 sockets at a time
            batch = self.seats[first : first + 100]
            runs += [asyncio.create_task(seat.run()) for seat in batch]
            await self._wait(batch, 120)
        ramp_s = round(time.monotonic() - t_ramp, 1)
        loop = asyncio.get_running_loop()
        for seat in self.seats:
            if seat.counter:
                seat.room.go = True
                loop.call_later(self.rng.uniform(0, 2), seat.replan)
        stack.t0 = t0 = time.monotonic()
        wall0 = time.time_ns() // 1_000_000
        faults = cfg.faults if cfg.faults is not None else default_faults(cfg.duration_s)
        marks: dict[str, int] = {}
        marks_at = [0.0]
        over = asyncio.Event()  # every fault has ended
        chores = [asyncio.create_task(self._faults(stack, faults, marks, marks_at, over)),
                  asyncio.create_task(self._chores(stack, t0))]  # fmt: skip
        await asyncio.sleep(cfg.duration_s)  # the run's length, real time
        await over.wait()  # a fault still running ends first (a restart, a frozen Redis)
        await chores[0]  # the rooms' versions after the faults (`marks`)
        await asyncio.sleep(max(0.0, marks_at[0] + cfg.progress_s - time.monotonic()))
        chores[1].cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await chores[1]
        at_quiet = {code: self.recorder.trace(code).version for code in stack.codes}
        self.quiet = True
        for seat in self.seats:
            seat.cancel()
        t_settle = time.monotonic()
        stored = await self._settle(stack)
        settle_s = round(time.monotonic() - t_settle, 1)
        rooms = self._rooms(stored, marks, at_quiet)
        clients = seat_figures(self.seats, stored, self.stats.errors)
        self.finished = True
        for seat in self.seats:
            if seat.ws is not None:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(seat.ws.close(), 2)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.gather(*runs, return_exceptions=True), 30)
        elapsed = time.monotonic() - t0
        acc = account({(s.room.code, s.pid): s.records for s in self.seats}, self.recorder)
        restarts = {f"server-{int(float(f['fault'].split(':')[2]))}": f["end_s"]
                    for f in stack.done if ":server:" in f["fault"]}  # fmt: skip
        report: dict[str, Any] = {
            "config": {"rooms": cfg.rooms, "players": cfg.players, "servers": cfg.servers,
                       "duration_s": cfg.duration_s, "pace": cfg.pace,
                       "think_ms": self.pace.think_ms, "time_scale": self.pace.time_scale,
                       "seed": cfg.seed, "faults": [f.text() for f in faults]},
            "machine": {**machine(load0, busy0, cpu0, elapsed),
                        "cpu_pct": self.sampler.cpu_pct(elapsed)},
            "ramp_s": ramp_s, "settle_s": settle_s, "faults": stack.done,
            "accounting": acc.to_json(), "clients": clients, "rooms": rooms,
            "not_acked_by_10s": timeline(self.seats, wall0),
            "not_acked_by_kind": by_kind(self.seats),
            "unanswered": unanswered(self.seats, stack.done, wall0),
            "witness_losses": self.recorder.losses,
            "garbage": {k: dict(v) for k, v in stack.garbage_seen.items()},
            "memory": {"samples": self.sampler.samples,
                       "flatness": flatness(self.sampler.samples, cfg.warm_s, restarts)},
        }
        report["ok"] = verdict(report)
        return report

    async def _faults(self, stack: Stack, faults: list[Fault], marks: dict[str, int],
                      marks_at: list[float], over: asyncio.Event) -> None:  # fmt: skip
        running = []
        try:
            for fault in faults:
                await asyncio.sleep(max(0.0, stack.t0 + fault.at_s - time.monotonic()))  # at
                running.append(asyncio.create_task(stack.run(fault)))
            await asyncio.gather(*running)
        finally:
            over.set()
        await asyncio.sleep(self.cfg.recover_s)  # rooms must progress from here on
        marks.update({code: self.recorder.trace(code).version for code in stack.codes})
        marks_at[0] = time.monotonic()
        stack.done.append({"fault": "mark (rooms must progress from here)",
                           "start_s": stack.now(), "end_s": stack.now()})

    async def _chores(self, stack: Stack, t0: float) -> None:
        """Every second: unanswered actions, the witness's health; every sample_s:
        memory."""
        next_sample = 0.0
        while True:
            now = time.monotonic()
            for seat in self.seats:
                seat.sweep(time.perf_counter())
            if self.recorder.lost() and not self.recorder.expect_loss:
                with contextlib.suppress(Exception):
                    await self.recorder.attach(stack.redis_port, stack.codes)
            if now - t0 >= next_sample:
                next_sample += self.cfg.sample_s
                await self.sampler.sample(now - t0, [s.pid for s in stack.servers],
                                          stack.redis.pid, stack.redis_port)  # fmt: skip
            await asyncio.sleep(1.0)  # a poll of the seats' clocks

    async def _settle(self, stack: Stack) -> dict[str, tuple[int, dict[str, Any]]]:
        """Wait (polling, at most settle_s) until every seat has its answer and the
        stored version of its room, and the witness has it too: the stored rooms."""
        deadline = time.monotonic() + self.cfg.settle_s
        while True:
            stored = await stored_rooms(stack.redis_port, stack.codes)
            behind = [s for s in self.seats if not s.settled
                      or s.version != stored.get(s.room.code, (0, {"version": -1}))[1]["version"]]
            witness = [c for c, (_, st) in stored.items()
                       if self.recorder.trace(c).version != st["version"]]  # fmt: skip
            if (not behind and not witness) or time.monotonic() > deadline:
                return stored
            await asyncio.sleep(0.5)  # a poll of Redis and the seats for that state

    def _rooms(self, stored: dict[str, tuple[int, dict[str, Any]]], marks: dict[str, int],
               at_quiet: dict[str, int]) -> dict[str, Any]:  # fmt: skip
        out: Counter[str] = Counter()
        detail: list[dict[str, Any]] = []
        now = time.time_ns() // 1_000_000
        for room in self.rooms:
            if at_quiet.get(room.code, 0) > marks.get(room.code, 0):
                out["progressed"] += 1
                continue
            state = State.from_json(stored[room.code][1]) if room.code in stored else None
            humans = [] if state is None else [p.id for p in state.players
                                               if p.bot_level is None and not p.away]
            waiting = state is not None and (
                state.status in (Status.LOBBY, Status.GAME_OVER)
                or any(engine.legal(state, pid, now) for pid in humans))
            out["waiting_for_human" if waiting else "stuck"] += 1
            if len(detail) < 20:
                detail.append({"room": room.code, "status": None if state is None
                               else str(state.status), "version": at_quiet.get(room.code),
                               "waiting": waiting})  # fmt: skip
        return {"total": len(self.rooms), "progressed": out["progressed"],
                "waiting_for_human": out["waiting_for_human"], "stuck": out["stuck"],
                "not_progressed": detail}  # fmt: skip

    async def _wait(self, seats: list[SoakSeat], timeout: float) -> None:
        """Until every seat of `seats` has its first update (RuntimeError after
        `timeout`)."""
        deadline = time.monotonic() + timeout
        while not all(s.connected for s in seats):
            if time.monotonic() > deadline:
                raise RuntimeError(f"seats not connected after {timeout:g} s")
            await asyncio.sleep(0.2)  # a poll of the seats for that state


def run_soak(cfg: SoakConfig) -> dict[str, Any]:
    """Run one soak (its own event loop) and return its report."""
    import tempfile

    work = cfg.work or Path(tempfile.mkdtemp(prefix="crisp-soak-"))
    soak = Soak(cfg, work)
    factory = None
    with contextlib.suppress(ImportError):
        import uvloop

        factory = uvloop.new_event_loop
    with asyncio.Runner(loop_factory=factory) as runner:
        report = runner.run(soak.run())
    report["work"] = str(work)
    return report


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="crisp bench soak", description=__doc__.split("\n\n")[0])
    add = p.add_argument
    add("--rooms", type=int, default=250)
    add("--players", type=int, default=4, choices=range(2, 9), metavar="2-8")
    add("--duration", type=float, default=1800.0, metavar="S")
    add("--pace", choices=sorted(PACES), default="table")
    add("--think-ms", type=float, default=None)
    add("--time-scale", type=float, default=None)
    add("--faults", default=None, metavar="AT:KIND[:ARG],...",
        help="e.g. 240:garbage:60,360:freeze:10,600:redis,840:server:0 (default: by duration)")
    add("--sample-s", type=float, default=None, help="memory sample interval (duration/60)")
    add("--warm-s", type=float, default=None, help="memory judged after (duration/10)")
    add("--settle-s", type=float, default=120.0)
    add("--seed", type=int, default=None)
    add("--work", type=Path, default=None, help="keep logs and Redis's files here")
    add("--server-log-level", default="warning")
    add("--out", type=Path, default=Path("soak.json"), help="the report as JSON")
    return p


def main(argv: list[str]) -> int:
    """`crisp bench soak ARGS`: 0 when the accounting holds, 1 when it does not."""
    a = parser().parse_args(argv)
    cfg = SoakConfig(rooms=a.rooms, players=a.players, duration_s=a.duration, pace=a.pace,
                     think_ms=a.think_ms, time_scale=a.time_scale, seed=a.seed,
                     faults=None if a.faults is None else parse_faults(a.faults),
                     sample_s=a.sample_s or max(5.0, a.duration / 60),
                     warm_s=a.warm_s if a.warm_s is not None else a.duration / 10,
                     settle_s=a.settle_s, recover_s=min(15.0, a.duration / 12),
                     work=a.work, server_log_level=a.server_log_level)  # fmt: skip
    report = run_soak(cfg)
    a.out.write_text(json.dumps(report, indent=1))
    print(table(report))
    print(f"report: {a.out}  (logs and Redis's files: {report['work']})")
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
