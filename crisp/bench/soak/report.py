"""The soak's memory series and its final table (issue 23).

`Sampler` reads, every few seconds, the RSS of each server process (its process
tree: a restarted process is a new series from its restart), Redis's RSS and its
own count of used memory (`INFO memory`), and the machine's load. `flatness`
says per series how it moved after the first minutes: the first and last values,
the least-squares slope in MB per 10 minutes, and the growth. `table` prints
the accounting; the rest are the figures of the seats and the verdict."""

from __future__ import annotations

import contextlib
import os
import time
from collections import Counter
from typing import Any

from redis.asyncio import Redis

from crisp.server.wire.vocabulary import ServerErrorCode

from ..procs.readings import machine_busy, process_tree, usage
from .account import VIOLATIONS
from .client import SoakSeat

MB = 1024 * 1024


class Sampler:
    """The memory series of a soak."""

    def __init__(self) -> None:
        self.samples: list[dict[str, Any]] = []
        self.cpu: dict[int, tuple[str, float]] = {}  # pid -> (servers | redis, CPU s)

    def cpu_pct(self, seconds: float) -> dict[str, float]:
        """CPU of the servers (all their processes, the killed ones up to their last
        sample) and of Redis over `seconds`, 100 = one core."""
        out: dict[str, float] = {}
        for what, cpu in self.cpu.values():
            out[what] = out.get(what, 0.0) + cpu
        return {k: round(100 * v / seconds, 1) for k, v in out.items()}

    async def sample(self, t: float, servers: list[int], redis_pid: int, redis_port: int) -> None:
        row: dict[str, Any] = {"t": round(t, 1), "load1": round(os.getloadavg()[0], 2)}
        for i, pid in enumerate(servers):
            rss, cpu = usage(process_tree(pid))
            row[f"server-{i}"] = round(rss / MB, 1)
            self.cpu[pid] = ("servers", cpu)
        rss, cpu = usage([redis_pid])
        row["redis_rss"] = round(rss / MB, 1)
        self.cpu[redis_pid] = ("redis", cpu)
        row["redis_used"] = None
        client = Redis(host="127.0.0.1", port=redis_port, socket_timeout=2,
                       socket_connect_timeout=2)  # fmt: skip
        with contextlib.suppress(Exception):  # frozen or down: no figure this time
            row["redis_used"] = round(int((await client.info("memory"))["used_memory"]) / MB, 2)
        with contextlib.suppress(Exception):
            await client.aclose()
        self.samples.append(row)


def flatness(samples: list[dict[str, Any]], warm_s: float,
             restarts: dict[str, float]) -> dict[str, Any]:  # fmt: skip
    """Per series, after `warm_s` (for a server, after its last restart plus `warm_s`
    / 2 too): first, last, min, max (MB), slope (MB per 10 min), growth (%)."""
    out: dict[str, Any] = {}
    keys = [k for k in (samples[0] if samples else {}) if k not in ("t", "load1")]
    for key in keys:
        start = max(warm_s, restarts.get(key, 0.0) + warm_s / 2)
        points = [(s["t"], s[key]) for s in samples if s["t"] >= start and s[key] is not None]
        if len(points) < 2:
            out[key] = None
            continue
        values = [v for _, v in points]
        out[key] = {"from_s": points[0][0], "first": values[0], "last": values[-1],
                    "min": min(values), "max": max(values),
                    "slope_mb_per_10min": round(_slope(points) * 600, 2),
                    "growth_pct": round(100 * (values[-1] - values[0]) / values[0], 1)
                    if values[0] else None}  # fmt: skip
    return out


def _slope(points: list[tuple[float, float]]) -> float:
    n = len(points)
    mx = sum(t for t, _ in points) / n
    my = sum(v for _, v in points) / n
    den = sum((t - mx) ** 2 for t, _ in points)
    return 0.0 if den == 0 else sum((t - mx) * (v - my) for t, v in points) / den


def _n(x: Any) -> str:
    return f"{x:,}" if isinstance(x, int) else str(x)


def table(report: dict[str, Any]) -> str:
    """The final accounting, for a person."""
    cfg, acc, clients, rooms = (report["config"], report["accounting"], report["clients"],
                                report["rooms"])  # fmt: skip
    lines = [
        f"soak: {cfg['rooms']} rooms x {cfg['players']} seats, {cfg['servers']} crisp serve on "
        f"one Redis (append-only, fsync always), {cfg['duration_s']:g} s, pace {cfg['pace']} "
        f"(think {cfg['think_ms']:g} ms, time scale {cfg['time_scale']:g})",
        f"machine: {report['machine']['cores']} cores, load average {report['machine']['load']} "
        f"(start, end), busy {report['machine']['busy_pct']} % of a core: servers "
        f"{report['machine']['cpu_pct'].get('servers')} %, Redis "
        f"{report['machine']['cpu_pct'].get('redis')} %, the soak's players and witness "
        f"{report['machine']['generator_cpu_pct']} %",
        "faults:",
    ]
    for f in sorted(report["faults"], key=lambda f: f["start_s"]):
        more = f" (down {f['down_s']} s)" if "down_s" in f else ""
        lines.append(f"  {f['start_s']:>8.1f}-{f['end_s']:<8.1f} {f['fault']}{more}")
    lines += ["", f"{'actions sent':<46}{_n(acc['sent']):>10}"]
    for key, n in acc["outcomes"].items():
        lines.append(f"  {_describe(key):<44}{_n(n):>10}")
    lines += ["violations (each must be 0):"]
    for key in VIOLATIONS:
        lines.append(f"  {key:<44}{_n(acc['violations'][key]):>10}")
    lines += [
        f"  {'unanswered, no fault near (events lost)':<44}"
        f"{_n(report['unanswered']['outside_faults']):>10}",
        f"  {'tables older than one already sent':<44}{_n(clients['backwards']):>10}",
        f"  {'witness losses (pub/sub while Redis lived)':<44}{_n(report['witness_losses']):>10}",
        f"gaps (stored, never published; replayed)  {acc['gaps']} ({acc['gap_changes']} changes)",
        f"computer moves for away seats (R17.2)     {acc['computer_events']}",
        f"clients on the stored version             {clients['on_stored']}/{clients['total']}"
        f" (settled in {report['settle_s']} s)",
        f"rooms: progressed after the last fault {rooms['progressed']}, waiting for a human "
        f"{rooms['waiting_for_human']}, stuck {rooms['stuck']} (of {rooms['total']})",
        f"sockets: {clients['connects']} opened, closes {clients['closes']}, "
        f"removed {clients['fatal']}",
    ]
    for kind, seen in report["garbage"].items():
        lines.append(f"garbage {kind:<10} {seen}")
    lines += ["", "memory after the first minutes (MB: first -> last, min-max, slope per 10 min):"]
    for key, f in report["memory"]["flatness"].items():
        if f:
            lines.append(f"  {key:<11} {f['first']} -> {f['last']} ({f['min']}-{f['max']}), "
                         f"{f['slope_mb_per_10min']:+} MB/10 min from {f['from_s']:g} s")
    lines.append(f"verdict: {'PASS' if report['ok'] else 'FAIL'}")
    return "\n".join(lines)


def _describe(key: str) -> str:
    if key == "acked":
        return "applied, acknowledged (found once)"
    if key.startswith("refused:"):
        return f"refused {key.removeprefix('refused:')} (not applied)"
    why, _, verdict = key.partition(":")
    return f"{WHY.get(why, why)} -> {verdict.replace('_', ' ')}"


WHY = {ServerErrorCode.OUTCOME_UNKNOWN: ServerErrorCode.OUTCOME_UNKNOWN.value,
       "lost": "socket lost before the answer",
       "unanswered": "unanswered for 10 s",
       "no_answer": "no answer at the end"}  # fmt: skip


# ---- the figures of the seats ----

Stored = dict[str, tuple[int, dict[str, Any]]]  # room -> (store version, table)


def seat_figures(seats: list[SoakSeat], stored: Stored, errors: Counter[str]) -> dict[str, Any]:
    """How the seats ended: on the stored version or not (and why), tables that went
    back, connections, closes by code, removals, errors by code."""
    closes: Counter[str] = Counter()
    for s in seats:
        closes.update(s.log.closes)
    on_stored = [s for s in seats if s.settled and s.room.code in stored
                 and s.version == stored[s.room.code][1]["version"]]  # fmt: skip
    return {"total": len(seats), "on_stored": len(on_stored),
            "off": [_off(s, stored) for s in seats if s not in on_stored][:20],
            "backwards": sum(s.log.backwards for s in seats),
            "connects": sum(s.log.connects for s in seats),
            "failed_connects": sum(s.log.failed_connects for s in seats),
            "closes": dict(closes), "fatal": sum(s.log.fatal is not None for s in seats),
            "errors": dict(errors)}  # fmt: skip


def _off(seat: SoakSeat, stored: Stored) -> dict[str, Any]:
    """A seat not on the stored version at the end, and why."""
    last = seat.records[-1] if seat.records else None
    return {"room": seat.room.code, "seat": seat.pid, "server": seat.ws_url,
            "version": seat.version,
            "stored": stored.get(seat.room.code, (0, {}))[1].get("version"),
            "connected": seat.connected, "waiting": seat.waiting,
            "last_action": None if last is None else {
                "kind": last.kind, "sent_ms": last.sent_ms, "code": last.code,
                "acked": last.acked, "base": last.base},
            "trail": list(seat.trail)}  # fmt: skip


def timeline(seats: list[SoakSeat], wall0: int) -> dict[str, dict[int, int]]:
    """The actions not acknowledged, by outcome and the 10 s of the run they were
    sent in (which fault they met)."""
    out: dict[str, Counter[int]] = {}
    for seat in seats:
        for r in seat.records:
            if r.outcome() != "acked":
                key = r.outcome().split(":", 1)[1]
                out.setdefault(key, Counter())[(r.sent_ms - wall0) // 10_000 * 10] += 1
    return {k: dict(sorted(v.items())) for k, v in sorted(out.items())}


def by_kind(seats: list[SoakSeat]) -> dict[str, dict[str, int]]:
    """The actions not acknowledged, by outcome and type."""
    out: dict[str, Counter[str]] = {}
    for seat in seats:
        for r in seat.records:
            if r.outcome() != "acked":
                out.setdefault(r.outcome().split(":", 1)[1], Counter())[r.kind] += 1
    return {k: dict(v) for k, v in sorted(out.items())}


def unanswered(seats: list[SoakSeat], faults: list[dict[str, Any]],
               wall0: int) -> dict[str, Any]:  # fmt: skip
    """Actions neither announced nor refused within client.ANSWER_S on an open
    socket: during a fault (from its start to 10 s after its end: the event went with
    a lost pub/sub message) or outside any (a defect; examples kept)."""
    spans = [(f["start_s"] - 1, f["end_s"] + 10) for f in faults]
    during = outside = 0
    examples: list[dict[str, Any]] = []
    for seat in seats:
        for r in seat.records:
            if r.code == "unanswered":
                t = (r.sent_ms - wall0) / 1000
                if any(a <= t <= b for a, b in spans):
                    during += 1
                    continue
                outside += 1
                if len(examples) < 10:
                    examples.append({"room": seat.room.code, "seat": seat.pid, "kind": r.kind,
                                     "sent_s": round(t, 2), "base": r.base, "applied": r.applied,
                                     "server": seat.ws_url, "trail": r.trail})  # fmt: skip
    return {"during_faults": during, "outside_faults": outside, "examples": examples}


def machine(load0: float, busy0: float, cpu0: float, elapsed: float) -> dict[str, Any]:
    """The machine during the run: cores, load average at the start and the end, its
    busy CPU (100 = one core) and the soak's own (the players, the witness)."""
    return {"cores": os.cpu_count(), "load": [round(load0, 2), round(os.getloadavg()[0], 2)],
            "busy_pct": round(100 * (machine_busy() - busy0) / elapsed, 1),
            "generator_cpu_pct": round(100 * (time.process_time() - cpu0) / elapsed, 1)}


def verdict(report: dict[str, Any]) -> bool:
    """Every action accounted for, every seat on the stored version, no stuck room."""
    acc, clients = report["accounting"], report["clients"]
    garbage_ok = all(k not in ("1011", "exception:TimeoutError")
                     for seen in report["garbage"].values() for k in seen)  # fmt: skip
    return (not any(acc["violations"].values())
            and report["unanswered"]["outside_faults"] == 0
            and clients["backwards"] == 0 and clients["on_stored"] == clients["total"]
            and clients["fatal"] == 0 and report["witness_losses"] == 0
            and report["rooms"]["stuck"] == 0 and garbage_ok)  # fmt: skip
