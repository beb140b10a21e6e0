"""The soak's memory series and its final table (issue 23).

`Sampler` reads, every few seconds, the RSS of each server process (its process
tree: a restarted process is a new series from its restart), Redis's RSS and its
own count of used memory (`INFO memory`), and the machine's load. `flatness`
says per series how it moved after the first minutes: the first and last values,
the least-squares slope in MB per 10 minutes, and the growth. `table` prints
the accounting."""

from __future__ import annotations

import contextlib
import os
from typing import Any

from redis.asyncio import Redis

from .readings import process_tree, usage
from .soak_account import VIOLATIONS

MB = 1024 * 1024


class Sampler:
    """The memory series of a soak."""

    def __init__(self) -> None:
        self.samples: list[dict[str, Any]] = []

    async def sample(self, t: float, servers: list[int], redis_pid: int, redis_port: int) -> None:
        row: dict[str, Any] = {"t": round(t, 1), "load1": round(os.getloadavg()[0], 2)}
        for i, pid in enumerate(servers):
            row[f"server-{i}"] = round(usage(process_tree(pid))[0] / MB, 1)
        row["redis_rss"] = round(usage([redis_pid])[0] / MB, 1)
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
        f"(start, end), busy {report['machine']['busy_pct']} % of a core, the soak's players "
        f"and witness {report['machine']['generator_cpu_pct']} %",
        "faults:",
    ]
    for f in report["faults"]:
        more = f" (down {f['down_s']} s)" if "down_s" in f else ""
        lines.append(f"  {f['start_s']:>8.1f}-{f['end_s']:<8.1f} {f['fault']}{more}")
    lines += ["", f"{'actions sent':<46}{_n(acc['sent']):>10}"]
    for key, n in acc["outcomes"].items():
        lines.append(f"  {_describe(key):<44}{_n(n):>10}")
    lines += ["violations (each must be 0):"]
    for key in VIOLATIONS:
        lines.append(f"  {key:<44}{_n(acc['violations'][key]):>10}")
    lines += [
        f"  {'unanswered on an open socket':<44}{_n(report['unanswered']):>10}",
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


WHY = {"outcome_unknown": "outcome_unknown", "lost": "socket lost before the answer",
       "reloaded": "only a reloaded table came", "unanswered": "unanswered for 30 s",
       "no_answer": "no answer at the end"}  # fmt: skip
