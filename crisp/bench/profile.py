"""Sum a py-spy profile of `crisp serve` by area and by function.

    py-spy record --nonblocking -r 50 -d 25 --format raw -o prof.txt -p SERVER_PID
    python -m crisp.bench.profile prof.txt

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
PREFIXES = re.compile(r"/\S*?/(site-packages|python3\.\d+)/|/\S*?/(?=crisp/)")


def area(frame: str) -> str:
    found = re.search(r"\((.*?):\d+\)", frame)
    path = found.group(1) if found else frame
    return next((name for key, name in AREAS if key in path), "other")


def summary(lines: list[str], top: int = 25) -> str:
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

    out = [f"{total} samples", "", "own time by area:"]
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
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[0]) as f:
        print(summary(f.readlines()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
