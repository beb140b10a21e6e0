"""The report of a `crisp bench` run: the figures of the measured window as a dict
(printed as JSON with --json) and as a table."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .procs.readings import Watched
from .stats import Stats

ANSWER_TIMEOUT_S = 5.0  # as client.py gives up on an action


def pct(sorted_ms: list[float], p: float) -> float | None:
    """The `p`-th percentile of sorted values (None without values)."""
    if not sorted_ms:
        return None
    return round(sorted_ms[min(len(sorted_ms) - 1, int(p / 100 * len(sorted_ms)))], 2)


@dataclass
class Window:
    """What was measured from the end of the warm-up to the end of the run."""

    ramp_s: float
    seconds: float
    generator_cpu_s: float
    process_cpu_s: list[float]  # one per watched process, in the same order
    machine_busy_s: float  # all cores, all processes
    loop_lags_ms: list[float]
    event_loop: str
    server_lags_ms: list[float] = field(default_factory=list)  # the server's probe
    idle_rss_per_conn: int | None = None  # bytes of server RSS per open, idle socket
    redis_bytes_per_room: int | None = None  # Redis MEMORY USAGE of all keys, per room
    redis_delta: dict[str, int] = field(default_factory=dict)  # Redis counters over the window


def _per(total: float | None, count: int, scale: float = 1.0, digits: int = 3) -> float | None:
    return None if total is None or not count else round(total * scale / count, digits)


def _redis(delta: dict[str, int], answered: int, window: float) -> dict[str, Any] | None:
    """Redis's work over the window: per second and per answered action."""
    if not delta:
        return None
    top = sorted(((k[4:], v) for k, v in delta.items() if k.startswith("cmd:") and v > 0),
                 key=lambda kv: -kv[1])[:8]  # fmt: skip
    return {
        "commands_per_s": round(delta.get("commands", 0) / window, 1),
        "commands_per_action": _per(delta.get("commands", 0), answered, digits=2),
        "net_in_bytes_per_action": _per(delta.get("net_in", 0), answered, digits=0),
        "net_out_bytes_per_action": _per(delta.get("net_out", 0), answered, digits=0),
        # None when the AOF was rewritten in the window (it shrank)
        "aof_bytes_per_action": _per(delta["aof"], answered, digits=0)
        if delta.get("aof", 0) >= 0 else None,
        "top_commands_per_action": {k: _per(v, answered, digits=2) for k, v in top},
    }


def build(
    a: argparse.Namespace, url: str, st: Stats, watched: list[Watched], w: Window
) -> dict[str, Any]:
    """The report as a JSON-ready dict."""
    lat = sorted(x for xs in st.latencies.values() for x in xs)
    by_type = {k: sorted(v) for k, v in sorted(st.latencies.items())}
    lags = sorted(w.loop_lags_ms)
    hs = sorted(st.handshakes)
    slags = sorted(w.server_lags_ms)
    window = w.seconds
    servers = [cpu for p, cpu in zip(watched, w.process_cpu_s, strict=True)
               if p.name.startswith("server")]  # fmt: skip
    server_cpu = sum(servers) if servers else None
    ours = w.generator_cpu_s + sum(w.process_cpu_s)
    pace = a.pace_obj
    return {
        "config": {"url": url, "store": ("cluster" if a.cluster else a.store) if not a.url
                   else None,
                   "server_workers": a.server_workers if not a.url else None,
                   "server_procs": a.server_procs, "proxy": a.proxy, "aof": bool(a.aof),
                   "cluster": {"masters": a.cluster_masters, "replicas": a.cluster_replicas}
                   if a.cluster else None,
                   "rooms": a.rooms, "players": a.players, "duration_s": a.duration,
                   "pace": pace.name, "think_ms": pace.think_ms, "time_scale": pace.time_scale,
                   "crisp_chance": round(pace.crisp_chance, 4), "refused": a.refused,
                   "warmup_s": a.warmup, "redis_max_connections": a.redis_max_connections},
        "ramp_s": round(w.ramp_s, 2),
        "window_s": round(window, 2),
        "connections": {"opened": st.opened, "failed": st.failed,
                        "fail_reasons": dict(st.fail_reasons),
                        "closed_by_server": dict(st.closes),
                        "handshake_ms_p50": pct(hs, 50), "handshake_ms_p99": pct(hs, 99)},
        "actions": st.sent, "answered": st.answered, "unanswered": st.unanswered,
        "actions_per_s": round(st.sent / window, 1),
        "answered_per_s": round(st.answered / window, 1),
        "updates_per_s": round(st.updates / window, 1),
        "rounds_started": st.rounds, "games_over": st.games,
        "changes_per_s": round(st.changes / window, 1),
        "changes_per_action": _per(st.changes, st.answered, digits=2),
        "mix": {k: round(v / st.sent, 3) for k, v in sorted(st.sent_by_type.items())}
        if st.sent else {},
        "refused": {"sent": st.refused_sent,
                    "p50_ms": pct(sorted(st.refusals_ms), 50),
                    "p99_ms": pct(sorted(st.refusals_ms), 99)},
        "latency_ms": {"n": len(lat), "p50": pct(lat, 50), "p95": pct(lat, 95),
                       "p99": pct(lat, 99), "max": round(lat[-1], 2) if lat else None},
        "latency_ms_by_action": {k: {"n": len(v), "p50": pct(v, 50), "p99": pct(v, 99)}
                                 for k, v in by_type.items()},
        "errors": dict(st.errors),
        "errors_by_action": dict(st.errors_by_action),
        "processes": {p.name: {"peak_rss_mb": round(p.peak_rss / 2**20, 1),
                               "cpu_pct": round(cpu / window * 100, 1)}
                      for p, cpu in zip(watched, w.process_cpu_s, strict=True)},
        "server": {
            "cpu_ms_per_action": _per(server_cpu, st.answered, 1000),
            "cpu_ms_per_change": _per(server_cpu, st.changes, 1000),
            "cpu_ms_per_update": _per(server_cpu, st.updates, 1000),
            "cpu_ms_per_action_per_process": [_per(c, st.answered, 1000) for c in servers],
            "loop_lag_ms": {"n": len(slags), "p50": pct(slags, 50), "p99": pct(slags, 99),
                            "max": pct(slags, 100),
                            "over_10ms": sum(1 for x in slags if x > 10)},
            "idle_rss_kib_per_conn": None if w.idle_rss_per_conn is None
            else round(w.idle_rss_per_conn / 1024, 1),
            "redis_bytes_per_room": w.redis_bytes_per_room,
        },
        "redis": _redis(w.redis_delta, st.answered, window),
        "generator": {"cpu_pct": round(w.generator_cpu_s / window * 100, 1),
                      "loop_lag_ms_p99": pct(lags, 99), "loop_lag_ms_max": pct(lags, 100),
                      "event_loop": w.event_loop},
        "machine": {"cores": os.cpu_count(), "busy_pct": round(w.machine_busy_s / window * 100, 1),
                    "others_pct": round(max(0.0, w.machine_busy_s - ours) / window * 100, 1),
                    "loadavg_1m": round(os.getloadavg()[0], 2)},
    }  # fmt: skip


def table(r: dict[str, Any]) -> str:
    c, lat, conn, gen = r["config"], r["latency_ms"], r["connections"], r["generator"]
    procs = f"{c['server_procs']} process(es) x {c['server_workers']} worker(s)" + (
        f" behind {c['proxy']}" if c.get("proxy") not in (None, "none") else "")
    target = f"{c['store']} store, {procs}" if c["store"] else c["url"]
    if c.get("target") == "floor":
        target = f"the floor (crisp/bench/floor.py), {procs}, {c['store']}"
    elif c.get("target") == "outside":
        target = f"the outside floor (crisp/bench/outside_floor.py), {procs}, {c['store']}"
    rows = [
        ("target", target),
        ("rooms x players", f"{c['rooms']} x {c['players']}  (pace {c['pace']}: think "
                            f"{c['think_ms']} ms, time scale {c['time_scale']}, crisp chance "
                            f"{c['crisp_chance']})"),
        ("ramp / window", f"{r['ramp_s']} s, then {c['warmup_s']} s warm-up / {r['window_s']} s"),
        ("connections", f"{conn['opened']} opened, {conn['failed']} failed"
                        + (f" {conn['fail_reasons']}" if conn["fail_reasons"] else "")),
        ("handshake p50/p99", f"{conn['handshake_ms_p50']} / {conn['handshake_ms_p99']} ms"),
        ("closed by server", str(conn["closed_by_server"] or "none")),
        ("actions", f"{r['actions']} sent, {r['answered']} answered, "
                    f"{r['unanswered']} unanswered after {ANSWER_TIMEOUT_S:g} s"),
        ("actions/s", f"{r['actions_per_s']} sent, {r['answered_per_s']} answered by an update"),
        ("updates/s received", str(r["updates_per_s"])),
        ("rounds / games", f"{r['rounds_started']} rounds started, {r['games_over']} games over"),
        ("room changes", f"{r['changes_per_s']}/s, {r['changes_per_action']} per answered action"),
        ("action mix", ", ".join(f"{k} {v:.0%}" for k, v in r["mix"].items()) or "-"),
        ("latency p50", f"{lat['p50']} ms"),
        ("latency p95", f"{lat['p95']} ms"),
        ("latency p99", f"{lat['p99']} ms"),
        ("latency max", f"{lat['max']} ms  (n={lat['n']})"),
        ("errors", str(r["errors"] or "none")),
    ]  # fmt: skip
    if r["refused"]["sent"]:
        ref = r["refused"]
        rows.append(("refused on purpose", f"{ref['sent']} sent, answered p50 {ref['p50_ms']} / "
                                           f"p99 {ref['p99_ms']} ms"))  # fmt: skip
    for name, p in r["processes"].items():
        rows.append((f"{name} peak RSS / CPU", f"{p['peak_rss_mb']} MB / {p['cpu_pct']} %"))
    srv = r["server"]
    lag = srv["loop_lag_ms"]
    rows += [
        ("server CPU per action", f"{srv['cpu_ms_per_action']} ms (per change "
                                  f"{srv['cpu_ms_per_change']} ms, per update "
                                  f"{srv['cpu_ms_per_update']} ms)"),
        ("server loop lag", f"p50 {lag['p50']} / p99 {lag['p99']} / max {lag['max']} ms, "
                            f"{lag['over_10ms']} of {lag['n']} wake-ups over 10 ms"),
        ("server RSS per idle conn", f"{srv['idle_rss_kib_per_conn']} KiB"),
        ("Redis memory per room", f"{srv['redis_bytes_per_room']} bytes"),
    ]  # fmt: skip
    if len(srv["cpu_ms_per_action_per_process"]) > 1:
        rows.append(("per process", " / ".join(f"{x} ms" for x in
                                               srv["cpu_ms_per_action_per_process"])))
    red = r.get("redis")
    if red:
        rows.append(("Redis per action", f"{red['commands_per_action']} commands, "
                     f"{red['net_in_bytes_per_action']} B in, {red['net_out_bytes_per_action']} B"
                     f" out, {red['aof_bytes_per_action']} B of AOF ({red['commands_per_s']}"
                     f" commands/s)"))  # fmt: skip
        by = red.get("by_call")
        if by:
            rows.append(("Redis by call", f"{by['calls_total']} round trips' commands, "
                         f"{by['commands_total']} commands per action (inside included):"))
            rows += [(f"  {call}", f"{n} commands ({by['calls'].get(call, 0)} calls)")
                     for call, n in by["commands"].items()]  # fmt: skip
    rows.append(("generator CPU", f"{gen['cpu_pct']} % of one core ({gen['event_loop']}; "
                                  f"loop lag p99 {gen['loop_lag_ms_p99']} ms)"))  # fmt: skip
    m = r["machine"]
    rows.append(("machine CPU", f"{m['busy_pct']} % busy of {m['cores']} cores x 100 %, "
                                f"{m['others_pct']} % by other processes"))  # fmt: skip
    width = max(len(k) for k, _ in rows)
    note = ""
    if gen["cpu_pct"] >= 85:
        note += "\nnote: the generator used most of a core; latencies include its own queuing."
    if m["others_pct"] >= 20:
        note += "\nnote: other processes used the CPU during the window; figures are disturbed."
    return "\n".join(f"{k.ljust(width)}  {v}" for k, v in rows) + note


# (label, how to read it from a report, unit); the ratio is Crisp's over the floor's.
COMPARED: list[tuple[str, Callable[[dict[str, Any]], Any], str]] = [
    ("actions/s answered", lambda r: r["answered_per_s"], ""),
    ("latency p50", lambda r: r["latency_ms"]["p50"], " ms"),
    ("latency p95", lambda r: r["latency_ms"]["p95"], " ms"),
    ("latency p99", lambda r: r["latency_ms"]["p99"], " ms"),
    ("server CPU per action", lambda r: r["server"]["cpu_ms_per_action"], " ms"),
    ("server CPU per room change", lambda r: r["server"]["cpu_ms_per_change"], " ms"),
    ("server CPU per update", lambda r: r["server"]["cpu_ms_per_update"], " ms"),
    ("room changes per action", lambda r: r["changes_per_action"], ""),
    ("server loop lag p99", lambda r: r["server"]["loop_lag_ms"]["p99"], " ms"),
    ("server loop lag max", lambda r: r["server"]["loop_lag_ms"]["max"], " ms"),
    ("loop wake-ups over 10 ms", lambda r: r["server"]["loop_lag_ms"]["over_10ms"], ""),
    ("server peak RSS", lambda r: r["processes"]["server"]["peak_rss_mb"], " MB"),
    ("server RSS per idle conn", lambda r: r["server"]["idle_rss_kib_per_conn"], " KiB"),
    ("Redis memory per room", lambda r: r["server"]["redis_bytes_per_room"], " B"),
    ("server CPU", lambda r: r["processes"]["server"]["cpu_pct"], " %"),
    ("Redis commands per action", lambda r: (r.get("redis") or {}).get("commands_per_action"),
     ""),
    ("others' CPU on the machine", lambda r: r["machine"]["others_pct"], " %"),
]
LOAD: tuple[str, Callable[[dict[str, Any]], Any], str] = (
    "load average (1 min, at the end)", lambda r: r["machine"]["loadavg_1m"], "")


def compare(*reports: dict[str, Any]) -> str:
    """Reports side by side (Crisp, the floor, the outside floor: whichever ran, in
    that order), and each one's figure over the last one's: Crisp over the floor,
    the floor over the outside floor (docs/benchmarks.md, "The floor")."""
    names = [r["config"].get("target") or "crisp" for r in reports]
    pairs = [(i, i + 1) for i in range(len(reports) - 1)]
    rows = [("", *names, *(f"{names[a]} / {names[b]}" for a, b in pairs))]
    for label, get, unit in [*COMPARED, LOAD]:
        values = [get(r) for r in reports]
        ratios = []
        for a, b in pairs:
            x, y = values[a], values[b]
            ok = isinstance(x, int | float) and isinstance(y, int | float) and y
            ratios.append(f"{x / y:.2f}x" if ok else "-")
        rows.append((label, *(f"{v}{unit}" for v in values), *ratios))
    n = len(rows[0])
    widths = [max(len(row[i]) for row in rows) for i in range(n)]
    lines = ["  ".join(cell.ljust(widths[i]) if i == 0 else cell.rjust(widths[i])
                       for i, cell in enumerate(row)) for row in rows]  # fmt: skip
    return "side by side (same driver, same load, one after the other):\n" + "\n".join(lines)


def medians(runs: list[list[dict[str, Any]]]) -> str:
    """`--repeat`: each target's median of the main figures over the runs, and the
    ratios of those medians (each target over the next, as `compare`)."""
    names = [r["config"].get("target") or "crisp" for r in runs[0]]
    pairs = [(i, i + 1) for i in range(len(names) - 1)]
    rows = [("median of " + str(len(runs)), *names, *(f"{names[a]} / {names[b]}"
                                                      for a, b in pairs))]
    for label, get, unit in [*COMPARED[:5], COMPARED[15], LOAD]:
        values: list[float | None] = []
        for i in range(len(names)):
            xs = sorted(x for run in runs if isinstance(x := get(run[i]), int | float))
            values.append(xs[len(xs) // 2] if xs else None)
        ratios = []
        for a, b in pairs:
            x, y = values[a], values[b]
            ratios.append(f"{x / y:.2f}x" if x is not None and y else "-")
        rows.append((label, *(f"{v}{unit}" for v in values), *ratios))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(cell.ljust(widths[i]) if i == 0 else cell.rjust(widths[i])
                               for i, cell in enumerate(row)) for row in rows)  # fmt: skip
