"""What a run reads from /proc: a process tree, its RSS and CPU seconds, and the
whole machine's busy CPU seconds."""

from __future__ import annotations

import os
from dataclasses import dataclass

PAGE = os.sysconf("SC_PAGE_SIZE")
TICK = os.sysconf("SC_CLK_TCK")


def process_tree(root: int) -> list[int]:
    """`root` and all its descendants, from /proc."""
    kids: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as f:
                    ppid = int(f.read().rsplit(b")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            kids.setdefault(ppid, []).append(int(entry))
    out: list[int] = []
    todo = [root]
    while todo and len(out) < 10_000:
        pid = todo.pop()
        out.append(pid)
        todo.extend(kids.get(pid, ()))
    return out


def machine_busy() -> float:
    """CPU seconds spent by all cores (not idle, not iowait) since boot, from /proc/stat."""
    with open("/proc/stat", "rb") as f:
        ticks = [int(x) for x in f.readline().split()[1:9]]
    return (sum(ticks) - ticks[3] - ticks[4]) / TICK


def usage(pids: list[int]) -> tuple[int, float]:
    """(RSS bytes, CPU seconds) summed over `pids`."""
    rss, cpu = 0, 0.0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/statm", "rb") as f:
                rss += int(f.read().split()[1]) * PAGE
            with open(f"/proc/{pid}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
            cpu += (int(fields[11]) + int(fields[12])) / TICK
        except (OSError, IndexError, ValueError):
            continue
    return rss, cpu


@dataclass
class Watched:
    """A process tree whose RSS is sampled (peak kept) and whose CPU is read."""

    name: str
    pid: int
    peak_rss: int = 0

    def sample(self) -> tuple[int, float]:
        rss, cpu = usage(process_tree(self.pid))
        self.peak_rss = max(self.peak_rss, rss)
        return rss, cpu
