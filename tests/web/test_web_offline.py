"""The offline shell (web/sw.js, docs/web-client.md "Offline shell"): with the
server down, a reload shows the page from the service worker's copy, the client
runs from its cached files and waits for the connection; when the server is back
the seat reconnects. A new deploy (any file of web/ changed) is picked up by the
next load: the page names the new version and its files are taken and kept.

The server keeps its rooms in Redis here, so the room outlives the restart."""

from __future__ import annotations

import re
import shutil
import time
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.web.browser_kit import open_seat
from tests.web.conftest import PHONE, ROOT, serve

pytestmark = pytest.mark.browser

CACHES = "async () => await caches.keys()"


def page_version(page: Page) -> str:
    href = page.evaluate(
        "() => document.querySelector('link[rel=stylesheet]').getAttribute('href')"
    )
    m = re.fullmatch(r"/v/([0-9a-f]+)/css/app\.css", href)
    assert m, href
    return m.group(1)


def wait_for_cache(page: Page, version: str, files: tuple[str, ...], timeout: float = 15) -> None:
    """Until the worker has kept `files` of `version` (it keeps them after the page arrives)."""
    deadline = time.monotonic() + timeout
    check = """async ([version, files]) => {
      const cache = await caches.open('crisp-v-' + version);
      const kept = await Promise.all(files.map((f) => cache.match(`/v/${version}/${f}`)));
      return kept.every(Boolean);
    }"""
    while not page.evaluate(check, [version, list(files)]):
        assert time.monotonic() < deadline, (version, page.evaluate(CACHES))
        page.wait_for_timeout(100)


FILES = ("js/app.js", "js/render/table.js", "css/app.css", "i18n/en.json", "js/qr.js")


def test_the_shell_works_offline_and_a_new_version_is_taken_on_the_next_load(
    browser: Any, tmp_path: Path, redis_url: str
) -> None:
    web = tmp_path / "web"
    shutil.copytree(ROOT / "web", web)
    settings = {"CRISP_WEB_DIR": str(web), "CRISP_REDIS_URL": redis_url}
    with serve("0.1", "web-server-offline.log", **settings) as server:
        seat = server.post("/api/rooms", {"name": "Ana"})
        code = seat["code"]
        ctx = browser.new_context(**PHONE)
        try:
            page = ctx.new_page()
            open_seat(page, server.base, code, seat)
            page.wait_for_function("() => !!navigator.serviceWorker.controller", timeout=15000)
            first = page_version(page)
            page.reload()  # this load goes through the worker, which keeps the page and its files
            expect(page.get_by_test_id("connection-status")).to_have_attribute("data-state", "open")
            wait_for_cache(page, first, FILES)

            # --- the server is down: a reload still shows the room's page at once
            server.stop()
            page.reload()
            # no table yet (no update came), but the page, its header and its client
            expect(page.locator("header.topbar")).to_be_visible()
            page.wait_for_function("() => !!window.crisp && window.crisp.state.screen === 'room'")
            status = page.get_by_test_id("connection-status")
            expect(status).not_to_have_attribute("data-state", "open")
            assert page_version(page) == first

            # --- a new deploy: one file of web/ changed, the server back on the same port
            css = web / "css" / "app.css"
            css.write_text(css.read_text() + "\n/* a new deploy */\n")
            server.start()
            # the page that was waiting reconnects to its seat by itself
            expect(page.get_by_test_id("connection-status")).to_have_attribute(
                "data-state", "open", timeout=20000
            )
            expect(page.get_by_test_id("start-game")).to_be_visible()
            page.reload()
            second = page_version(page)
            assert second != first
            expect(page.get_by_test_id("connection-status")).to_have_attribute("data-state", "open")
            wait_for_cache(page, second, FILES)
            css_now = page.evaluate(
                "async (v) => (await (await fetch(`/v/${v}/css/app.css`)).text())"
                ".includes('a new deploy')",
                second,
            )
            assert css_now
        finally:
            ctx.close()
