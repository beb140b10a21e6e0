"""Shared fixtures; the shared helpers are in tests/support/ (and the process helpers
in crisp/bench/procs/).

    redis_server  (session) the URL of a redis-server started for this test run
    redis_url     (function) the same URL, after FLUSHALL
    redis_cluster (session) a 3-master Redis Cluster on loopback (tests/support/cluster.py)
    cluster_url   (function) its store URL (redis+cluster://), after FLUSHALL on every master
    redis_unix_server (session) a redis-server on a unix socket only (tests/support/unix_redis.py)
    redis_unix_url    (function) its store URL (unix:///.../redis.sock), after FLUSHALL
    spawn_crisp   factory: `crisp serve` subprocesses (tests.support.servers.ProcServer),
                  all stopped at the end of the test

For a redis-server of your own (e.g. to kill it), use crisp.bench.procs.start_redis."""

from __future__ import annotations

import fcntl
import os
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # `crisp` and `tests.support` importable however pytest runs
    sys.path.insert(0, str(ROOT))

from crisp.bench.procs import PORTS_ENV, start_redis  # noqa: E402
from tests.support import cpu, hangs  # noqa: E402
from tests.support.cluster import RedisClusterProcs, start_redis_cluster  # noqa: E402
from tests.support.servers import KIT_CLIENT_RATE_PER_S, KIT_RATE_PER_S, ProcServer  # noqa: E402
from tests.support.unix_redis import UnixRedis, start_unix_redis  # noqa: E402

PORT_SLICES = 20  # slices of 500 ports in 12000-21999: a cluster node's bus port
PORT_SLICE = 500  # (its port + 10000) stays below the ephemeral ports (32768 on) too
_held_slice: list[object] = []  # the lock file of this process's slice, open for life


def _worker_ports() -> str:
    """A range of TCP ports of this process's own for the servers the tests start
    (crisp.bench.procs.free_port): the first of `PORT_SLICES` slices that no other
    process holds, held by an exclusive lock on a file for the life of this process,
    so that neither another worker of this run nor another test run on the machine
    can hand out the same ports; all below the system's ephemeral ports."""
    folder = Path(tempfile.gettempdir()) / "crisp-test-ports"
    folder.mkdir(exist_ok=True)
    for index in range(PORT_SLICES):
        handle = open(folder / f"slice-{index}.lock", "w")  # noqa: SIM115 (held for life)
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.close()
            continue
        _held_slice.append(handle)
        low = 12_000 + PORT_SLICE * index
        return f"{low}-{low + PORT_SLICE - 1}"
    raise RuntimeError(f"all {PORT_SLICES} port slices are held by other test processes")


os.environ[PORTS_ENV] = _worker_ports()  # not inherited: the workers are the controller's children


# The suite mostly waits (browsers, processes, sockets): one and a half workers a core
# keep both cores busy (tests/README.md, "Parallel").
WORKERS_PER_CORE = 1.5
# The most expensive modules first (CPU and wall, docs/testing.md "Where the suite's
# time goes"), longest first, so that they spread over the workers instead of one of
# them finishing the run alone; everything else after them in its usual order.
FIRST = (
    "tests/web/test_web_layout.py",
    "tests/web/test_web_computer.py",
    "tests/web/test_web_a11y.py",
    "tests/server/test_server_leak.py",
    "tests/server/test_server_computer_procs.py",
    "tests/server/test_server_table_seats.py",  # two crisp serve processes, a restart
    "tests/server/test_edge_slowread.py",  # real sockets that stop reading
    "tests/server/test_server_table_rooms.py",
    "tests/web/",
    "tests/server/test_server_procs.py",
    "tests/ops/test_compose.py",
    "tests/test_soak.py",  # in `pytest -m soak`, the minute first, the bench's runs beside it
)
# Modules whose tests go to one worker together (pytest_xdist_make_scheduler): their
# module-scoped fixtures (a Chromium and its Playwright driver, `real_time_server`)
# are then made once per run, not once on each worker that runs one of their tests.
# xdist (`--dist loadgroup`) hands out every other test on its own, one at a time.
TOGETHER = ("tests/web/",)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: WORKERS_PER_CORE workers a core."""
    return max(2, round((os.cpu_count() or 1) * WORKERS_PER_CORE))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests marked `soak` (minutes of load, run as a step of their own: `-m soak`,
    .ci/run) left out unless the `-m` expression names them; then the long modules
    (FIRST) first, everything else in its usual order."""
    if "soak" not in (config.getoption("markexpr") or ""):
        soaks = [item for item in items if item.get_closest_marker("soak")]
        if soaks:
            config.hook.pytest_deselected(items=soaks)
            items[:] = [item for item in items if not item.get_closest_marker("soak")]

    def rank(item: pytest.Item) -> int:
        path = item.nodeid.split("::", 1)[0]
        return next((i for i, prefix in enumerate(FIRST) if path.startswith(prefix)), len(FIRST))

    items.sort(key=rank)  # stable: a module's tests keep their order


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """`--dist loadgroup` with each module of TOGETHER one unit of work (one worker
    runs all its tests, in order); every other test is a unit of its own, as before.
    Not with `xdist_group` marks: pytest 9 keeps a node's id in `Node._id`, and
    xdist 3.8 still appends the group to `item._nodeid`, which nothing reads."""
    if config.getoption("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadGroupScheduling

    class Together(LoadGroupScheduling):
        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::", 1)[0]
            return path if path.startswith(TOGETHER) else super()._split_scope(nodeid)

    return Together(config, log)


_cpu: list[cpu.Recorder] = []  # with CRISP_TEST_CPU=1: this process's (support/cpu.py)


def pytest_sessionstart(session: pytest.Session) -> None:
    if not hasattr(session.config, "workerinput"):  # the controller (or a run without xdist)
        hangs.clear()
        if cpu.enabled():
            cpu.clear()
    runs_tests = hasattr(session.config, "workerinput") or session.config.getoption("dist") == "no"
    if cpu.enabled() and runs_tests:
        _cpu.append(cpu.Recorder())


def pytest_sessionfinish(session: pytest.Session) -> None:
    for recorder in _cpu:
        recorder.write()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """Each test watched: a hang leaves its stacks in test-artifacts (support/hangs.py);
    with CRISP_TEST_CPU=1 its CPU seconds are recorded (support/cpu.py)."""
    with hangs.watched(item.nodeid):
        if _cpu:
            with _cpu[0].measure(item.nodeid):
                yield
        else:
            yield


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """The hung tests' stacks at the end of the run's output."""
    if hasattr(terminalreporter.config, "workerinput"):
        return
    if cpu.enabled() and cpu.report():
        terminalreporter.write_line(f"CPU per test, module and folder: {cpu.REPORT}")
    found = hangs.report()
    if found:
        terminalreporter.section("hung tests (tests/support/hangs.py)")
        terminalreporter.write_line(found)


@pytest.fixture(scope="session")
def redis_server() -> Iterator[str]:
    proc = start_redis()  # raises (the tests error, never skip) without redis-server
    try:
        yield proc.url
    finally:
        proc.stop()


@pytest.fixture
def redis_url(redis_server: str) -> Iterator[str]:
    client = redis.Redis.from_url(redis_server)
    try:
        client.flushall()
    finally:
        client.close()
    yield redis_server


@pytest.fixture(scope="session")
def redis_cluster() -> Iterator[RedisClusterProcs]:
    cluster = start_redis_cluster()  # raises (the tests error, never skip) without redis
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture
def cluster_url(redis_cluster: RedisClusterProcs) -> str:
    redis_cluster.flush()
    return redis_cluster.url


@pytest.fixture(scope="session")
def redis_unix_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[UnixRedis]:
    server = start_unix_redis(tmp_path_factory.mktemp("redis-unix"))  # errors, never skips
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def redis_unix_url(redis_unix_server: UnixRedis) -> str:
    redis_unix_server.flush()
    return redis_unix_server.url


@pytest.fixture
def spawn_crisp(tmp_path: Path) -> Iterator[Callable[..., ProcServer]]:
    """`spawn_crisp(log=None, **env)` starts `crisp serve` with the CRISP_* settings
    `env` (test hooks on, a manual clock, HTTP limits off, the kit's message rates
    and log level info unless given), logging to `log` or tmp_path/server-N.log.
    Every server is stopped at the end (SIGTERM; the test fails if one ignores it),
    the ones already killed too.
    Several processes on one store each have their own manual clock: move them
    together (`tests.support.servers.advance_all`)."""
    started: list[ProcServer] = []

    def spawn(log: Path | None = None, **env: str) -> ProcServer:
        values = {
            "CRISP_TEST_HOOKS": "1",
            "CRISP_HTTP_LIMITS": "off",  # many rooms from one address; edge tests turn it on
            "CRISP_CLOCK": "manual",
            "CRISP_CONNECT_RATE_PER_S": "0",  # one address opens every connection
            # and sends every message, faster than people (a game played to its end
            # went over the production 10/s of a seat on a quiet machine: closed 4429)
            "CRISP_RATE_PER_S": str(KIT_RATE_PER_S),
            "CRISP_CLIENT_RATE_PER_S": str(KIT_CLIENT_RATE_PER_S),
            "CRISP_LOG_LEVEL": "info",
            **env,
        }
        server = ProcServer(values, log_path=log or tmp_path / f"server-{len(started)}.log")
        started.append(server)
        return server.start()

    yield spawn
    for server in started:
        server.stop()
