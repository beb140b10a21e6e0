"""Sum a py-spy profile of `crisp serve` by area and by function.

    py-spy record --nonblocking -r 50 -d 25 --format raw -o prof.txt -p SERVER_PID
    python -m crisp.bench.profile prof.txt [CPU_MS_PER_ACTION]

The raw format is one line per distinct stack, `frame;frame;...;leaf COUNT`, each
frame `function (file:line)`. Prints the share of samples per area (the leaf's,
and any frame's), the functions with the most samples of their own, and Crisp's
functions with the most samples under them (docs/benchmarks.md, "Where Crisp's
CPU per action goes")."""

from __future__ import annotations

import re
import sys
from collections import Counter

AREAS = [
    ("crisp/engine", "engine"), ("crisp/server/wire", "server/wire"),
    ("crisp/server/rooms", "server/rooms"), ("crisp/server/sockets", "server/sockets"),
    ("crisp/server/edge", "server/edge"), ("crisp/server/ops", "server/ops"),
    ("crisp/server/http", "server/http"), ("crisp/server", "server"), ("crisp/store", "store"),
    ("redis/", "redis-py"), ("websockets/", "websockets"), ("uvicorn/", "uvicorn"),
    ("starlette/", "starlette/fastapi"), ("fastapi/", "starlette/fastapi"),
    ("pydantic", "pydantic"), ("asyncio/", "asyncio (uvloop's C under Runner.run)"),
    ("prometheus_client", "prometheus"),
]  # fmt: skip
# Issue 38's breakdown of an action: each sample goes to one category (`category`),
# named by a path fragment of a frame's file, tried in this order on that frame.
CATEGORIES: list[tuple[str, str]] = [
    ("crisp/bench/floor.py:view_for", "views per seat and encoding"),
    ("crisp/bench/floor.py:Seat.send", "socket writes (per seat)"),
    ("crisp/bench/floor.py:Floor.change", "Redis commands (the store)"),
    ("crisp/bench/floor.py:Floor._", "pub/sub receive and fan-out"),
    ("crisp/bench/floor.py:play", "rules (engine, game, table)"),
    ("crisp/bench/floor.py:create_app", "socket reads (endpoint)"),
    ("crisp/server/wire/client.py", "parsing (client message)"),
    ("pydantic", "parsing (client message)"),
    ("crisp/server/rooms/round_record.py", "the round record"),
    ("crisp/store/redis_logs.py", "the round record"),
    ("crisp/server/rooms/leases.py", "presence leases"),
    ("crisp/store/redis_leases.py", "presence leases"),
    ("crisp/server/rooms/doccache.py", "the room's load and save (document)"),
    ("crisp/server/rooms/document.py", "the room's load and save (document)"),
    ("crisp/server/rooms/changes.py", "the room's load and save (document)"),
    ("crisp/server/rooms/look_ledger.py", "owed looks"),
    ("crisp/server/rooms/scheduler.py", "timers (deadline schedule)"),
    ("crisp/server/rooms/loops.py", "timers (deadline schedule)"),
    ("crisp/server/rooms/serverclock.py", "timers (deadline schedule)"),
    ("crisp/store/redis_schedule.py", "timers (deadline schedule)"),
    ("crisp/server/rooms/computer_seats.py", "computer seats"),
    ("crisp/bots", "computer seats"),
    ("crisp/server/wire/projection.py", "views per seat and encoding"),
    ("crisp/engine/view.py", "views per seat and encoding"),
    ("crisp/table/view.py", "views per seat and encoding"),
    ("crisp/server/wire/frames.py", "views per seat and encoding"),
    ("crisp/engine", "rules (engine, game, table)"),
    ("crisp/games", "rules (engine, game, table)"),
    ("crisp/table", "rules (engine, game, table)"),
    ("crisp/store/redis_pubsub.py", "pub/sub receive and fan-out"),
    ("crisp/store/redis_link.py", "pub/sub receive and fan-out"),
    ("crisp/store/fanout.py", "pub/sub receive and fan-out"),
    ("crisp/server/sockets/hub.py", "pub/sub receive and fan-out"),
    ("crisp/server/sockets/connection.py", "socket writes (per seat)"),
    ("crisp/server/edge/pings.py", "pings and network delay"),
    ("crisp/server/sockets/lag.py", "pings and network delay"),
    ("crisp/server/edge/ratelimit.py", "rate limits"),
    ("crisp/server/edge/limits.py", "rate limits"),
    ("crisp/server/ops/metrics.py", "metrics"),
    ("prometheus_client", "metrics"),
    ("crisp/store/timed.py", "metrics"),
    ("crisp/server/ops/hooks.py", "metrics"),
    ("crisp/server/ops/looplag.py", "the bench's loop-lag probe"),
    ("crisp/server/ops/throttle.py", "logging"),
    ("crisp/server/ops/logs.py", "logging"),
    ("logging/", "logging"),
    ("crisp/store", "Redis commands (the store)"),
    ("redis/", "Redis commands (the store)"),
    ("crisp/server/rooms/service.py", "the change (service)"),
    ("crisp/server/sockets", "socket reads (endpoint)"),
    ("crisp/server/edge", "websocket and HTTP edge"),
    ("crisp/server", "server, other"),
    ("websockets/", "websocket protocol (stack)"),
    ("uvicorn/", "websocket protocol (stack)"),
    ("starlette/", "ASGI (stack)"),
    ("fastapi/", "ASGI (stack)"),
    ("asyncio/", "event loop (stack)"),
    ("uvloop", "event loop (stack)"),
    ("gc", "garbage collector"),
]  # fmt: skip
PREFIXES = re.compile(r"/\S*?/(site-packages|python3\.\d+)/|/\S*?/(?=crisp/)")


def area(frame: str) -> str:
    found = re.search(r"\((.*?):\d+\)", frame)
    path = found.group(1) if found else frame
    return next((name for key, name in AREAS if key in path), "other")


STICKY = ("pydantic", "prometheus_client", "logging/")  # theirs wherever called from
ENTRY = ("crisp/__main__.py", "crisp/cli.py", "crisp/server/main.py",  # under every sample
         "crisp/bench/floor.py:main", "crisp/bench/floor.py:<module>")
FLOOR = "crisp/bench/floor.py"


def category(frames: list[str]) -> str:
    """The category (CATEGORIES) of a sample: that of its innermost frame of the
    parser, the metrics or logging libraries if any, else of its innermost frame of
    Crisp's (what Crisp called, the stack's time included: a socket write's, a Redis
    call's), else of its innermost frame of the stack (the event loop's own time)."""
    paths = []
    for frame in reversed(frames):
        found = re.search(r"\((.*?):\d+\)", frame)
        path = found.group(1) if found else frame
        if path.endswith(FLOOR):  # the floor's own functions, in the same categories
            path = FLOOR + ":" + frame.split(" (", 1)[0].split(".<locals>", 1)[0]
        if not path.endswith(ENTRY):
            paths.append(path)
    for keys in (STICKY, ("crisp/",), ("",)):
        for path in paths:
            if not any(k in path for k in keys):
                continue
            for key, name in CATEGORIES:
                if key in path:
                    return name
    return "other"


def categories(lines: list[str]) -> tuple[int, Counter[str]]:
    """Samples in all, and by category."""
    total = 0
    out: Counter[str] = Counter()
    for line in lines:
        stack, _, count = line.rstrip("\n").rpartition(" ")
        if stack and count.isdigit():
            total += int(count)
            out[category(stack.split(";"))] += int(count)
    return total, out


def summary(lines: list[str], top: int = 25, cpu_ms: float | None = None) -> str:
    total = 0
    own: Counter[str] = Counter()
    under: Counter[str] = Counter()
    own_area: Counter[str] = Counter()
    any_area: Counter[str] = Counter()
    for line in lines:
        stack, _, count = line.rstrip("\n").rpartition(" ")
        if not stack or not count.isdigit():
            continue
        n = int(count)
        total += n
        frames = stack.split(";")
        own[frames[-1]] += n
        own_area[area(frames[-1])] += n
        for frame in set(frames):
            under[frame] += n
        for name in {area(f) for f in frames}:
            any_area[name] += n
    if not total:
        return "no samples"

    def pct(n: int) -> str:
        return f"{100 * n / total:5.1f} %"

    _, cats = categories(lines)
    out = [f"{total} samples", "", "by category (issue 38; the innermost frame that names one)"
           + (f", ms of {cpu_ms} ms CPU per action:" if cpu_ms else ":")]
    out += [f"  {pct(n)}" + (f"  {cpu_ms * n / total:6.3f} ms" if cpu_ms else "") + f"  {name}"
            for name, n in cats.most_common()]  # fmt: skip
    out += ["", "own time by area:"]
    out += [f"  {pct(n)}  {name}" for name, n in own_area.most_common()]
    out += ["", "any frame in the area:"]
    out += [f"  {pct(n)}  {name}" for name, n in any_area.most_common()]
    out += ["", "functions, own time:"]
    out += [f"  {pct(n)}  {PREFIXES.sub('', f)}" for f, n in own.most_common(top)]
    out += ["", "Crisp's functions, time under them:"]
    mine = [(f, n) for f, n in under.most_common() if "crisp/" in f][:top]
    out += [f"  {pct(n)}  {PREFIXES.sub('', f)}" for f, n in mine]
    return "\n".join(out)


def main(argv: list[str]) -> int:
    """`python -m crisp.bench.profile PROFILE [CPU_MS_PER_ACTION]`."""
    if len(argv) not in (1, 2):
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[0]) as f:
        print(summary(f.readlines(), cpu_ms=float(argv[1]) if len(argv) == 2 else None))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
