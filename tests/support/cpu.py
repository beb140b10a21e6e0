"""Where the suite's CPU goes (issue 34, docs/testing.md "Where the suite's time goes").

With `CRISP_TEST_CPU=1` in the environment, every test's CPU seconds are recorded:
the pytest process's own (`RUSAGE_SELF`) plus its children's, the reaped ones
(`RUSAGE_CHILDREN`) and the ones still running (servers, Chromium and its
Playwright driver, redis-server: every living descendant's utime+stime+cutime+cstime,
read from /proc through `/proc/<pid>/task/<tid>/children`), as the difference
between before and after the test's setup, call and teardown. A session fixture's
server is thus counted to the tests that make it work, and its start and stop to
the tests whose setup and teardown run them. The recording process makes itself its
descendants' reaper, so that Chromium's processes that outlive their parent when a
browser closes (half a browser's CPU) stay in the sum, as zombies, instead of
leaving it with init; a test's figure is never below 0. Wall time is recorded too,
but on a shared machine it is the CPU that says what a test costs.

Each process (every xdist worker, or the one process of `-n 0`) writes
`test-artifacts/cpu/<worker>.json`, with its time outside the tests (start-up,
collection); the controller merges them into `test-artifacts/cpu.txt`: per folder,
per module and the slowest tests, by CPU seconds. Off by default (a /proc walk
per test costs ~1 ms)."""

from __future__ import annotations

import ctypes
import json
import os
import resource
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ENV = "CRISP_TEST_CPU"
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
FOLDER = ARTIFACTS / "cpu"
REPORT = ARTIFACTS / "cpu.txt"
_TICK = os.sysconf("SC_CLK_TCK")


def enabled() -> bool:
    return os.environ.get(ENV, "") not in ("", "0")


def _tag() -> str:
    """`CRISP_TEST_CPU=1`: each run starts its table afresh. Any other value is a tag:
    runs with different tags add up into one table (the suite measured a folder at a
    time: `CRISP_TEST_CPU=web pytest -n 2 tests/web`, ...; `rm -r test-artifacts/cpu`
    to start again); a run replaces its own tag's files."""
    value = os.environ.get(ENV, "")
    return "" if value == "1" else value


def _children(pid: int) -> list[int]:
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                found.extend(int(c) for c in f.read().split())
        except OSError:
            continue
    return found


def _living_descendants_s(pid: int) -> float:
    """utime+stime+cutime+cstime of every living descendant of `pid`, in seconds."""
    ticks = 0
    todo = _children(pid)
    while todo:
        child = todo.pop()
        try:
            with open(f"/proc/{child}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        ticks += sum(int(x) for x in fields[11:15])  # utime stime cutime cstime
        todo.extend(_children(child))
    return ticks / _TICK


def cpu_s() -> float:
    """This process's CPU seconds with all of its children's, reaped or running."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    reaped = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (own.ru_utime + own.ru_stime + reaped.ru_utime + reaped.ru_stime
            + _living_descendants_s(os.getpid()))  # fmt: skip


def _adopt_orphans() -> None:
    """Make this process its descendants' reaper (PR_SET_CHILD_SUBREAPER): a process
    whose parent exits first (Chromium's, when a browser closes: half the browser's
    CPU) becomes this process's child instead of init's, and stays, a zombie with
    its CPU times in /proc, in the sum. Nothing here reaps it: the zombies stay
    until the worker ends (a few per browser closed)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER (Linux 3.4)
    except (OSError, AttributeError):
        pass


class Recorder:
    """One process's per-test CPU and wall seconds."""

    def __init__(self) -> None:
        _adopt_orphans()
        self.tests: dict[str, list[float]] = {}
        self.started_cpu = cpu_s()
        self.started_wall = time.monotonic()

    @contextmanager
    def measure(self, nodeid: str) -> Iterator[None]:
        cpu, wall = cpu_s(), time.monotonic()
        try:
            yield
        finally:
            # never below 0: a descendant that leaves the tree unreaped by it takes
            # its CPU out of the sum (Chromium's processes when a browser closes),
            # which is no refund of what the earlier tests were counted
            spent = max(0.0, cpu_s() - cpu)
            self.tests[nodeid] = [round(spent, 3), round(time.monotonic() - wall, 3)]

    def write(self) -> None:
        FOLDER.mkdir(parents=True, exist_ok=True)
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        if _tag():
            worker = f"{_tag()}-{worker}"
        total_cpu = cpu_s()  # this process from its start (imports, collection) on
        in_tests = sum(cpu for cpu, _ in self.tests.values())
        data = {"tests": self.tests, "cpu": round(total_cpu, 3),
                "outside": round(total_cpu - in_tests, 3),
                "wall": round(time.monotonic() - self.started_wall, 3)}  # fmt: skip
        (FOLDER / f"{worker}.json").write_text(json.dumps(data))


def clear() -> None:
    for path in FOLDER.glob(f"{_tag()}-*.json" if _tag() else "*.json"):
        path.unlink()


def report() -> str:
    """The merged table of every process's file, written to test-artifacts/cpu.txt."""
    tests: dict[str, list[float]] = {}
    processes = []
    for path in sorted(FOLDER.glob("*.json")):
        data = json.loads(path.read_text())
        tests.update({k: [max(0.0, cpu), wall] for k, (cpu, wall) in data["tests"].items()})
        processes.append((path.stem, data["cpu"], data["outside"], data["wall"]))
    if not tests:
        return ""
    by_module: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0])
    by_folder: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0])
    for nodeid, (cpu, wall) in tests.items():
        module = nodeid.split("::", 1)[0]
        folder = module.rsplit("/", 1)[0] if module.count("/") > 1 else module
        for table in (by_module[module], by_folder[folder]):
            table[0] += cpu
            table[1] += wall
            table[2] += 1
    total = sum(cpu for cpu, _ in tests.values())
    lines = [f"CPU seconds (the test process and all its children), {len(tests)} tests: "
             f"{total:.1f} s in tests"]  # fmt: skip
    for name, cpu, outside, wall in processes:
        lines.append(f"  process {name}: {cpu:.1f} s CPU, {outside:.1f} s outside tests, "
                     f"{wall:.1f} s wall")  # fmt: skip

    def table(title: str, rows: dict[str, list[float]], limit: int) -> None:
        lines.extend(["", f"{title:<70} {'CPU s':>8} {'wall s':>8} {'tests':>6}"])
        for name, (cpu, wall, count) in sorted(rows.items(), key=lambda r: -r[1][0])[:limit]:
            lines.append(f"{name:<70} {cpu:8.1f} {wall:8.1f} {int(count):6d}")

    table("folder", by_folder, 100)
    table("module", by_module, 200)
    lines.extend(["", f"{'test':<100} {'CPU s':>8} {'wall s':>8}"])
    for nodeid, (cpu, wall) in sorted(tests.items(), key=lambda r: -r[1][0])[:60]:
        lines.append(f"{nodeid[:100]:<100} {cpu:8.1f} {wall:8.1f}")
    text = "\n".join(lines) + "\n"
    REPORT.write_text(text)
    return text
