"""`crisp bench`: load-test a Crisp server with websocket clients playing random legal
moves at a table's pace.

It starts the server itself (`--store memory|redis`, `--cluster` for a Redis
Cluster; one process, or `--server-procs N` on one store, optionally behind the
shipped nginx example with `--proxy nginx`), or targets a running one (`--url`),
opens `--rooms` rooms of `--players` clients in batches, plays for `--duration`
seconds and reports the action-to-update latency, throughput, the action mix,
errors, the server's (and Redis's) RSS and CPU, Redis's work per action, and the
generator's own CPU. `--floor` runs the floor (the stack with no rules) under the
same load next and prints the ratios. Loopback only. See docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import resource
import sys
from typing import Any
from urllib.parse import urlsplit

from crisp.engine.vocabulary import BotLevel

from .gameclient import game_for
from .pacing import PACES
from .report import compare, medians, table
from .run import resolve_pace, run_target


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="crisp bench", description=__doc__.split("\n\n")[0])
    add = p.add_argument
    add("--store", choices=("memory", "redis"), default="memory")
    add("--cluster", action="store_true",
        help="a Redis Cluster on loopback (--cluster-masters, --cluster-replicas) as the store")
    add("--cluster-masters", type=int, default=3, metavar="N")
    add("--cluster-replicas", type=int, default=0, metavar="N")
    add("--floor", action="store_true",
        help="then run the floor (crisp/bench/floor.py: the stack with no rules) under the "
             "same load, and print both rows and the ratios (Redis or a cluster only)")
    add("--outside-floor", action="store_true",
        help="then also the outside floor (crisp/bench/outside_floor.py: the same definition, "
             "written apart, no code shared) under the same load: the floor must cost what it "
             "costs (Redis only)")
    add("--no-crisp", action="store_true",
        help="with --floor / --outside-floor: run only the floor(s), not `crisp serve`")
    add("--repeat", type=int, default=1, metavar="N",
        help="run the targets N times, interleaved (crisp, floor, outside, crisp, ...), and "
             "print the medians of each figure beside every run (a noisy machine)")
    add("--aof", action="store_true", help="Redis with append-only on (appendfsync everysec)")
    add("--url", help="target a running server (http://127.0.0.1:PORT) instead")
    add("--server-workers", type=int, default=1, metavar="N", help="uvicorn workers per process")
    add("--server-procs", type=int, default=1, metavar="N",
        help="server processes on one store; without --proxy the seats are spread over them")
    add("--proxy", choices=("none", "nginx"), default="none",
        help="nginx with deploy/nginx.conf (TLS) in front of the server processes")
    add("--port", type=int, default=0, help="port for the server (default: free)")
    add("--server-env", action="append", default=[], metavar="KEY=VALUE",
        help="extra environment for the server (repeatable)")
    add("--redis-max-connections", type=int, metavar="N",
        help="append ?max_connections=N to the server's Redis URL (its pool size)")
    add("--server-log", metavar="PATH", help="keep the server's output in PATH")
    add("--rooms", type=int, default=10)
    add("--players", type=int, default=4, choices=range(2, 9), metavar="2-8")
    add("--duration", type=float, default=30.0, metavar="S")
    add("--pace", choices=sorted(PACES), default="table",
        help="table: a real table (time scale 1, ~1 s per move, no refusals); fast: the "
             "stress load of issue 13 (200 ms, time scale 0.05). docs/benchmarks.md")
    add("--think-ms", type=float, default=None,
        help="the pace's base think time per move (each uniform in 0.5x-1.5x of it)")
    add("--time-scale", type=float, default=None, help="CRISP_TIME_SCALE (the pace's if unset)")
    add("--crisp-chance", type=float, default=None,
        help="probability of calling crisp in one's own window (the pace's if unset)")
    add("--refused", type=float, default=0.0, metavar="P",
        help="after each answered action, with probability P another seat sends a draw "
             "out of turn (refused: not_your_turn), to measure the error path; 0: none")
    add("--ramp-batch", type=int, default=25, help="rooms opened at once")
    add("--ramp-pause", type=float, default=0.05, metavar="S")
    add("--ramp-timeout", type=float, default=300.0, metavar="S")
    add("--warmup", type=float, default=None, metavar="S",
        help="hosts start their games in its first half, then the window opens "
             "(default: 2 s + 10 mean think times)")
    add("--redis-account", action="store_true",
        help="MONITOR Redis during the window: its commands per action by the call that "
             "sent them (redis_account.py; costs Redis work: not for CPU figures)")
    add("--game", metavar="ID",
        help="rooms of this registered game (POST /api/rooms with \"game\"), each seat played "
             "by the game's own computer player (gameclient.py); the floors keep their protocol")
    add("--bot-level", default=BotLevel.EASY, help="with --game: the level of the seats' bots")
    add("--seed", type=int, default=None)
    add("--no-uvloop", action="store_true")
    add("--json", action="store_true", help="print the report as JSON")
    return p


def _invalid(args: argparse.Namespace) -> str | None:
    """Why these options cannot run, or None."""
    if min(args.rooms, args.ramp_batch, args.server_workers, args.server_procs) < 1 \
            or args.duration <= 0:  # fmt: skip
        return "--rooms, --duration, --ramp-batch, --server-workers, --server-procs must be > 0"
    if args.url and urlsplit(args.url).hostname not in ("127.0.0.1", "localhost", "::1"):
        return "loopback targets only"
    if args.floor and (args.url or (args.store != "redis" and not args.cluster)):
        return "--floor needs --store redis or --cluster (and no --url)"
    if args.outside_floor and (args.url or args.store != "redis" or args.cluster):
        return "--outside-floor needs --store redis (one Redis, no --url)"
    if args.no_crisp and not (args.floor or args.outside_floor):
        return "--no-crisp runs the floors only: give --floor or --outside-floor"
    if (args.server_procs > 1 or args.proxy != "none") and args.url:
        return "--server-procs and --proxy start the servers: not with --url"
    if args.server_procs > 1 and args.store != "redis" and not args.cluster:
        return "several processes share rooms through Redis: --store redis or --cluster"
    if not 0 <= args.refused <= 1:
        return "--refused is a probability"
    if args.game:
        try:
            game = game_for(args.game, args.players)
        except ValueError as exc:
            return str(exc)
        if args.bot_level not in game.bot_levels:
            return f"--bot-level: {args.game}'s levels are {', '.join(game.bot_levels)}"
        if args.refused:
            return "--refused sends Crisp's draw: not with --game"
    return None


def main(argv: list[str]) -> int:
    """`crisp bench ARGS` (also `crisp bench -- ARGS` and `python -m crisp.bench ARGS`);
    `crisp bench soak ARGS` is the soak of issue 23 (soak/run.py)."""
    if argv[:1] == ["soak"]:
        from .soak import main as soak_main

        return soak_main(argv[1:])
    args = parser().parse_args(argv[1:] if argv[:1] == ["--"] else argv)
    args.pace_obj = resolve_pace(args)
    if args.warmup is None:
        args.warmup = round(2 + 10 * args.pace_obj.think_ms / 1000, 2)
    problem = _invalid(args)
    if problem:
        print(f"crisp bench: {problem}", file=sys.stderr)
        return 2
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    kinds = ([] if args.no_crisp else ["crisp"]) + (["floor"] if args.floor else []) \
        + (["outside"] if args.outside_floor else [])  # fmt: skip
    try:
        runs = [[run_target(args, kind) for kind in kinds] for _ in range(max(1, args.repeat))]
    except RuntimeError as exc:
        print(f"crisp bench: {exc}", file=sys.stderr)
        return 2
    finally:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    reports = runs[0]
    if args.json:
        out: Any = reports[0] if len(reports) == 1 else dict(zip(kinds, reports, strict=True))
        if len(runs) > 1:
            out = {kind: [run[i] for run in runs] for i, kind in enumerate(kinds)}
        print(json.dumps(out, indent=2))
    else:
        for n, run in enumerate(runs):
            if len(runs) > 1:
                print(f"\n=== run {n + 1} of {len(runs)}")
            print("\n\n".join(table(r) for r in run))
            if len(run) > 1:
                print("\n" + compare(*run))
        if len(runs) > 1:
            print("\n" + medians(runs))
    return 0 if all(r["answered"] > 0 for run in runs for r in run) else 1
