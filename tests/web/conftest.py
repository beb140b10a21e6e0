"""Fixtures for the browser tests: a real `crisp serve` process and Debian's Chromium.

The server runs with CRISP_TEST_HOOKS=1 (test decks) and CRISP_TIME_SCALE=0.1
(every game duration ten times shorter) on the in-memory store (`real_time_server`:
1.0). Without Chromium the browser tests skip, except under CI (env CI set),
where they fail. Every page reports each Content-Security-Policy violation as a
console error, which fails the test.
"""

from __future__ import annotations

import contextlib
import json
import os
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
PHONE: dict[str, Any] = {
    "viewport": {"width": 360, "height": 640},
    "is_mobile": True,
    "has_touch": True,
    "device_scale_factor": 2,
    "locale": "en-US",
}


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


@contextlib.contextmanager
def serve(time_scale: str, log_name: str, **settings: str) -> Iterator[Server]:
    """`crisp serve` with test hooks and `time_scale` (and any other `CRISP_*`
    `settings`), until the block ends."""
    try:
        import crisp.cli  # noqa: F401
    except ImportError as e:  # pragma: no cover - the server is part of this repo
        pytest.fail(f"crisp server not importable: {e}")
    ARTIFACTS.mkdir(exist_ok=True)
    # Every test of the session creates rooms from this one address: HTTP limits off.
    # The tests stand in for a TLS proxy on loopback (X-Forwarded-Proto): trusted.
    env = {"CRISP_TEST_HOOKS": "1", "CRISP_HTTP_LIMITS": "off", "CRISP_TIME_SCALE": time_scale,
           "CRISP_TRUSTED_PROXIES": "127.0.0.1", "PYTHONUNBUFFERED": "1"}
    env.update(settings)
    server = Server(env, log_path=ARTIFACTS / log_name)
    try:
        server.start()
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
def real_time_server() -> Iterator[Server]:
    """A server on real game time, for tests that need a screen to stay (the peek
    phase lasts 10 s, R16.2)."""
    with serve("1.0", "web-server-real-time.log") as s:
        yield s


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Headless Chromium, one per test module (Playwright's sync API runs its own
    event loop while it is open: kept short so it never meets other tests' loops)."""
    if not Path(CHROMIUM).exists():
        _missing(f"Chromium not found at {CHROMIUM}")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("playwright is not installed")
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
document.addEventListener('securitypolicyviolation', (e) => {
  console.error(`CSP violation: ${e.violatedDirective} blocked ${e.blockedURI || 'inline'}`
    + ` at ${e.sourceFile}:${e.lineNumber}`);
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
        ctx.set_default_timeout(8000)
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
