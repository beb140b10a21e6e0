"""Fixtures for the browser tests: a real `crisp serve` process and Debian's Chromium.

The server runs with CRISP_TEST_HOOKS=1 (test decks) and CRISP_TIME_SCALE=0.1
(every game duration ten times shorter) on the in-memory store (`real_time_server`:
1.0). Without Chromium the browser tests skip, except under CI (env CI set),
where they fail. Every page reports each Content-Security-Policy violation as a
console error, which fails the test.

Safe under pytest-xdist (`-n 2`): each worker is its own process with its own
servers, on ports the OS gave them (checked to be the server's own, else another
port is taken: `serve`), its own Chromium (`browser`, one per test module: the
sync Playwright API keeps its event loop marked as running between calls, which
an asyncio test of another module in the same worker must not meet), and its
own files: server logs are named after the worker (`artifact`), screenshots
after the test that takes them (`browser_kit.snap`: each name is used by one
test only), temporary folders come from `tmp_path`.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import socket
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.servers import ProcServer

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = os.environ.get("CRISP_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
# Every wait of a browser test is for what the page shows; this is only the safety
# timeout of a real hang (page actions and `expect` alike), generous for a busy machine.
SAFETY_MS = 20_000
PHONE: dict[str, Any] = {
    "viewport": {"width": 360, "height": 640},
    "is_mobile": True,
    "has_touch": True,
    "device_scale_factor": 2,
    "locale": "en-US",
}


WORKER = os.environ.get("PYTEST_XDIST_WORKER", "main")


def artifact(name: str) -> Path:
    """A path under test-artifacts/ that no other xdist worker writes: `name` with
    the worker's id before its suffix (`web-server.log` -> `web-server-gw1.log`)."""
    ARTIFACTS.mkdir(exist_ok=True)
    stem, dot, suffix = name.rpartition(".")
    return ARTIFACTS / (f"{stem}-{WORKER}.{suffix}" if dot else f"{name}-{WORKER}")


def _missing(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI is set: browser tests must run)")
    pytest.skip(reason)


class Server(ProcServer):
    """A running `crisp serve` and small helpers for its HTTP API."""

    def post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        req = urllib.request.Request(
            self.base + path,
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(req, timeout=5) as res:
            assert res.status == 201, res.status
            return dict(json.load(res))

    def get(self, path: str) -> dict[str, Any]:
        with urllib.request.urlopen(self.base + path, timeout=5) as res:
            return dict(json.load(res))


def _listening_inode(port: int) -> str | None:
    """The socket inode listening on 127.0.0.1:`port` (/proc/net/tcp), if any."""
    want = f"0100007F:{port:04X}"
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if fields[1] == want and fields[3] == "0A":  # local address, state LISTEN
            return fields[9]
    return None


def _holds_socket(pid: int, inode: str) -> bool:
    """Whether process `pid` or one of its children holds socket `inode`."""
    pids = [pid]
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == pid:
                pids.append(int(stat.parent.name))
    for p in pids:
        for fd in Path(f"/proc/{p}/fd").glob("*"):
            with contextlib.suppress(OSError):
                if os.readlink(fd) == f"socket:[{inode}]":
                    return True
    return False


def owns_its_port(server: Server) -> bool:
    """True if the process answering on the server's port is that server: a port
    the OS gave us a moment ago may have been taken by another worker's process."""
    proc = server.proc
    inode = _listening_inode(server.port)
    alive = proc is not None and proc.poll() is None
    return alive and inode is not None and _holds_socket(proc.pid, inode)


def _another_port() -> int:
    """A free port chosen at random (in the worker's range, CRISP_TEST_PORTS, when the
    suite set one): after a port was taken under us, another session handing out
    the same range in the same order is not followed in step."""
    span = os.environ.get("CRISP_TEST_PORTS")
    low, high = (int(p) for p in span.split("-")) if span else (20_000, 30_000)
    for _ in range(200):
        port = random.randint(low, high)
        with socket.socket() as s, contextlib.suppress(OSError):
            s.bind(("127.0.0.1", port))
            return port
    raise RuntimeError("no free port")


def start_owned(server: Server, tries: int = 5) -> Server:
    """Start `server`, on another free port when its port turns out taken (by
    another worker's or another test session's process)."""
    for attempt in range(tries):
        try:
            server.start()
        except RuntimeError:
            if attempt == tries - 1:
                raise
        else:
            if owns_its_port(server):
                return server
            server.stop()
            if attempt == tries - 1:
                raise RuntimeError(f"port {server.port} is another process's")
        server.port = _another_port()
        server.base = f"http://127.0.0.1:{server.port}"
    raise AssertionError("unreachable")


@contextlib.contextmanager
def serve(time_scale: str, log_name: str, **settings: str) -> Iterator[Server]:
    """`crisp serve` with test hooks and `time_scale` (and any other `CRISP_*`
    `settings`), until the block ends; its log is test-artifacts/`log_name` with
    the worker's id in it."""
    try:
        import crisp.cli  # noqa: F401
    except ImportError as e:  # pragma: no cover - the server is part of this repo
        pytest.fail(f"crisp server not importable: {e}")
    # Every test of the session creates rooms from this one address: HTTP limits off.
    # The tests stand in for a TLS proxy on loopback (X-Forwarded-Proto): trusted.
    env = {"CRISP_TEST_HOOKS": "1", "CRISP_HTTP_LIMITS": "off", "CRISP_TIME_SCALE": time_scale,
           "CRISP_TRUSTED_PROXIES": "127.0.0.1", "PYTHONUNBUFFERED": "1"}
    env.update(settings)
    server = Server(env, log_path=artifact(log_name))
    try:
        start_owned(server)
    except RuntimeError as exc:
        pytest.fail(str(exc))
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def server() -> Iterator[Server]:
    """The server of most browser tests: game time ten times faster."""
    with serve("0.1", "web-server.log") as s:
        yield s


@pytest.fixture(scope="module")
def real_time_server(request: pytest.FixtureRequest) -> Iterator[Server]:
    """A server on real game time, for tests that need a screen to stay (the peek
    phase lasts 10 s, R16.2); its log is named after the module."""
    module = request.module.__name__.rsplit(".", 1)[-1]
    with serve("1.0", f"web-server-real-time-{module}.log") as s:
        yield s


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Headless Chromium, one per test module (Playwright's sync API runs its own
    event loop while it is open: kept short so it never meets other tests' loops)."""
    if not Path(CHROMIUM).exists():
        _missing(f"Chromium not found at {CHROMIUM}")
    try:
        from playwright.sync_api import expect, sync_playwright
    except ImportError:
        _missing("playwright is not installed")
    expect.set_options(timeout=SAFETY_MS)
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield b
        finally:
            b.close()


# What the browser itself logs about refused requests and failed sockets: the page
# shows its own message for those, so they are not errors of the page.
NETWORK_NOISE = ("Failed to load resource", "WebSocket connection to")


# Run in every page before its own scripts: a refused script, style, connection
# or frame (the page's Content-Security-Policy) becomes a console error.
REPORT_CSP_VIOLATIONS = """
window.cspViolations = [];
document.addEventListener('securitypolicyviolation', (e) => {
  console.error(`CSP violation: ${e.violatedDirective} blocked ${e.blockedURI || 'inline'}`
    + ` at ${e.sourceFile}:${e.lineNumber}`);
  window.cspViolations.push(e.violatedDirective);
});
"""


def _console(page: Any, message: Any) -> None:
    if message.type == "error" and not message.text.startswith(NETWORK_NOISE):
        page.errors.append(f"console: {message.text}")


@pytest.fixture
def phone(browser: Any, server: Server) -> Iterator[Callable[..., Any]]:
    """Open a new phone (its own browser context, so its own localStorage).

    Each page gets `page.errors`, the page's uncaught errors and console errors;
    the test fails if any were seen.
    """
    contexts: list[Any] = []
    pages: list[Any] = []

    def open_phone(**extra: Any) -> Any:
        ctx = browser.new_context(**{**PHONE, **extra})
        ctx.set_default_timeout(SAFETY_MS)
        ctx.add_init_script(REPORT_CSP_VIOLATIONS)
        contexts.append(ctx)
        page = ctx.new_page()
        page.errors = []
        page.on("pageerror", lambda e: page.errors.append(f"pageerror: {e}"))
        page.on("console", lambda m: _console(page, m))
        pages.append(page)
        return page

    yield open_phone
    errors = [e for p in pages for e in p.errors]
    for ctx in contexts:
        ctx.close()
    assert not errors, errors
