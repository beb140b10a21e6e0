"""The offline shell (web/sw.js, docs/web-client.md "Offline shell"): with the
server down, a reload shows the page from the service worker's copy, the client
runs from its cached files and waits for the connection; when the server is back
the seat reconnects. A new deploy (any file of web/ changed) is picked up by the
next load: the page names the new version and its files are taken and kept.

The server keeps its rooms in Redis here, so the room outlives the restart."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, Route, expect

from tests.web.browser_kit import open_seat, settle, wait_for_kept, wait_for_worker, wait_js
from tests.web.conftest import PHONE, ROOT, owns_its_port, serve

pytestmark = pytest.mark.browser


def page_version(page: Page) -> str:
    href = page.evaluate(
        "() => document.querySelector('link[rel=stylesheet]').getAttribute('href')"
    )
    m = re.fullmatch(r"/v/([0-9a-f]+)/css/app\.css", href)
    assert m, href
    return m.group(1)


# The files of `version` missing from the worker's cache of that version.
MISSING = """async ([version, files]) => {
  const cache = await caches.open('crisp-v-' + version);
  const kept = await Promise.all(files.map((f) => cache.match(`/v/${version}/${f}`)));
  return files.filter((f, i) => !kept[i]);
}"""


def wait_for_cache(page: Page, version: str, files: tuple[str, ...]) -> None:
    """Until the page says the worker has kept `version` (it keeps its files after
    the page arrives); then every one of `files` is there."""
    wait_for_kept(page, version)
    missing = settle(page, MISSING, [version, list(files)],
                     what=f"the files of version {version} looked up in the worker's cache")
    assert missing == [], f"version {version} kept without {missing}"


# Every module of the client, those in sub-folders (render/table/, net/, replay/)
# and the lobby's QR code (loaded late) too, besides the stylesheet and a language.
MODULES = tuple(sorted((ROOT / "web" / "js").rglob("*.js")))
FILES = (
    *(str(m.relative_to(ROOT / "web")) for m in MODULES),
    "vendor/qrcode-generator/qrcode.mjs",
    "css/app.css",
    "i18n/en.json",
)


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
            wait_for_worker(page)
            first = page_version(page)
            page.reload()  # this load goes through the worker, which keeps the page and its files
            expect(page.get_by_test_id("connection-status")).to_have_attribute("data-state", "open")
            wait_for_cache(page, first, FILES)

            # --- a seated player's link: the worker marks its page seated, so that
            # its first screen is the room's ("Connecting…"), never a stranger's join
            # form, even before the client runs (issue 21; the first screen's CSS
            # for it: test_a_seated_first_screen_shows_no_join_form)
            html = settle(page, "async (c) => (await fetch(`/r/${c}`)).text()", code,
                          what="the worker's answer for the room's page")
            assert re.search(r'<html lang="en" dir="ltr" class="seated">', html), html[:300]
            other = settle(page, "async () => (await fetch('/r/K7QXM3RT')).text()",
                           what="the worker's answer for another room's page")
            assert 'class="seated"' not in other  # no seat there: the join form as it came

            # --- the server is down: a reload still shows the room's page at once
            server.stop()
            page.reload()
            # the page, its header, its client, and the room as last seen (storage.js):
            # its code, its players, nothing to tap until the connection is back
            expect(page.locator("header.topbar")).to_be_visible()
            wait_js(page, "() => !!window.crisp && window.crisp.state.screen === 'room'",
                    "the client run from the kept files, on the room's screen")
            status = page.get_by_test_id("connection-status")
            expect(status).not_to_have_attribute("data-state", "open")
            expect(page.get_by_test_id("room-code")).to_have_text(code)
            expect(page.get_by_test_id("reconnecting")).to_contain_text("as you last saw it")
            expect(page.get_by_test_id("start-game")).to_be_disabled()
            assert page_version(page) == first

            # --- a new deploy: one file of web/ changed, the server back on the same port
            css = web / "css" / "app.css"
            css.write_text(css.read_text() + "\n/* a new deploy */\n")
            server.start()
            assert owns_its_port(server)
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
            css_now = settle(
                page,
                "async (v) => (await (await fetch(`/v/${v}/css/app.css`)).text())"
                ".includes('a new deploy')",
                second, what="the new version's stylesheet fetched")
            assert css_now
        finally:
            ctx.close()


def test_a_seated_first_screen_shows_no_join_form(browser: Any, server: Any) -> None:
    """The page of a link, as the server sends it, before the client runs: the join
    form; marked `seated` (sw.js does, for a room this phone has a seat in), the
    room's "Connecting…" instead, the join form hidden."""
    ctx = browser.new_context(**PHONE, service_workers="block")
    try:
        page = ctx.new_page()
        held: list[Route] = []
        page.route("**/js/app.js", lambda route: held.append(route))  # the client waits
        page.goto(server.base + "/r/K7QXM3RT", wait_until="commit")
        expect(page.get_by_test_id("name-input")).to_be_visible()
        expect(page.locator(".seated-only")).to_be_hidden()
        page.evaluate("() => document.documentElement.classList.add('seated')")
        expect(page.locator(".seated-only")).to_be_visible()
        expect(page.locator(".seated-only")).to_have_text("Connecting…")
        expect(page.get_by_test_id("name-input")).to_be_hidden()
        assert len(held) == 1
        held[0].continue_()
        # the client runs: the mark goes, and it draws the screen itself (no seat here)
        expect(page.get_by_test_id("join-room")).to_be_enabled()
        expect(page.locator("html")).not_to_have_class(re.compile(r"\bseated\b"))
    finally:
        ctx.close()
