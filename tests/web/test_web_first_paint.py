"""The page's start in Chromium (docs/web-client.md, "Delivery"):

- without any script the page already shows the brand, the home form and
  "Loading…" in the reader's language (the first screen is in the HTML);
- the client takes that screen over: what was typed before it ran is kept, the
  buttons come alive, nothing moves;
- every module of the start is requested at once (modulepreload), none later,
  the QR code's modules only for the lobby;
- the language switch tells the server (cookie), whose next page is in it;
- the Content-Security-Policy is enforced and its violations are caught (the
  `phone` fixture turns each into a test failure, so every browser test, a whole
  game included, runs with no violation).
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Route, expect

from tests.web.browser_kit import wait_js
from tests.web.conftest import PHONE, REPORT_CSP_VIOLATIONS

pytestmark = pytest.mark.browser


def script_requests(page: Any) -> list[str]:
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url) if r.resource_type == "script" else None)
    return requests


def test_the_first_screen_shows_without_javascript(browser: Any, server: Any) -> None:
    for locale, lang, loading, create in (
        ("en-US", "en", "Loading…", "Create a room"),
        ("ar-EG", "ar", "جارٍ التحميل…", "أنشئ غرفة"),
    ):
        ctx = browser.new_context(**{**PHONE, "locale": locale}, java_script_enabled=False)
        page = ctx.new_page()
        response = page.goto(server.base + "/")
        assert response is not None
        assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
        expect(page.locator("html")).to_have_attribute("lang", lang)
        expect(page.locator(".brand")).to_contain_text("Crisp")
        expect(page.get_by_role("status")).to_contain_text(loading)
        expect(page.get_by_test_id("name-input")).to_be_visible()
        expect(page.get_by_test_id("create-room")).to_have_text(create)
        expect(page.get_by_test_id("create-room")).to_be_disabled()
        page.goto(server.base + "/r/k7qx")
        expect(page.get_by_test_id("room-code-input")).to_have_value("K7QX")
        ctx.close()


def test_the_client_takes_the_first_screen_over(phone: Any, server: Any) -> None:
    page = phone()
    held: list[Route] = []
    page.route("**/js/app.js", lambda route: held.append(route))  # the client waits
    page.goto(server.base + "/r/k7qx", wait_until="commit")  # DOMContentLoaded waits for it
    name = page.get_by_test_id("name-input")
    name.fill("Ana")  # typed into the server's form
    page.evaluate("() => { document.getElementById('name').mark = 'the server\\'s node'; }")
    box = page.get_by_test_id("join-room").bounding_box()
    expect(page.get_by_test_id("join-room")).to_be_disabled()
    assert len(held) == 1
    held[0].continue_()
    expect(page.get_by_test_id("join-room")).to_be_enabled()
    expect(page.get_by_role("status")).to_have_count(0)  # "Loading…" is gone
    expect(name).to_have_value("Ana")
    assert page.evaluate("() => document.getElementById('name').mark") == "the server's node"
    assert page.get_by_test_id("join-room").bounding_box() == box  # nothing moved
    expect(page.get_by_test_id("room-code-input")).to_have_value("K7QX")


def test_the_start_is_one_round_trip_and_the_qr_code_loads_for_the_lobby(
    phone: Any, server: Any
) -> None:
    page = phone()
    scripts = script_requests(page)
    page.goto(server.base + "/")
    expect(page.get_by_test_id("create-room")).to_be_enabled()
    preloaded = page.evaluate(
        "() => [...document.querySelectorAll('link[rel=modulepreload], script[src]')]"
        ".map((l) => l.href || l.src)"
    )
    assert len(preloaded) > 15
    assert sorted(set(scripts)) == sorted(preloaded), "the page's modules are all preloaded"
    assert not any("qr" in url for url in scripts)
    # the page is wholly loaded and the client has drawn the home screen: nothing
    # asks for the QR code's modules here (only a lobby view, or Create/Join, does)
    page.wait_for_load_state("load")
    loaded = page.evaluate("() => performance.getEntriesByType('resource').map((e) => e.name)")
    assert not any("qr" in url for url in scripts + loaded), "no QR code on the home screen"

    page.get_by_test_id("name-input").fill("Ana")
    page.get_by_test_id("create-room").tap()
    expect(page.get_by_test_id("qr").locator("svg path")).to_have_count(1)
    late = [url for url in scripts if url not in preloaded]
    # the room's game's modules come with its room, and only that game's (issue 35)
    games = [url for url in late if "/js/games/" in url]
    assert games and all("/js/games/crisp/" in url for url in games), games
    late = [url for url in late if url not in games]
    assert sorted(u.rsplit("/", 1)[1] for u in late) == ["qr.js", "qrcode.mjs"]
    assert all("/v/" in url for url in scripts), "versioned URLs only"


def test_the_language_switch_tells_the_server(phone: Any, server: Any) -> None:
    page = phone()
    page.goto(server.base + "/")
    page.get_by_test_id("language").select_option("id")
    expect(page.locator("html")).to_have_attribute("lang", "id")
    cookies = {c["name"]: c["value"] for c in page.context.cookies()}
    assert cookies.get("crisp_lang") == "id"
    response = page.request.get(server.base + "/")
    assert '<html lang="id" dir="ltr">' in response.text()


def test_the_policy_is_enforced_and_a_violation_is_caught(browser: Any, server: Any) -> None:
    """The check every browser test relies on can fail: an inline style, an inline
    script and a connection elsewhere are refused and each reported."""
    ctx = browser.new_context(**PHONE)
    ctx.add_init_script(REPORT_CSP_VIOLATIONS)
    page = ctx.new_page()
    reports: list[str] = []
    page.on("console", lambda m: reports.append(m.text))
    page.goto(server.base + "/")
    expect(page.get_by_test_id("create-room")).to_be_enabled()
    page.evaluate(
        """() => {
          document.body.setAttribute('style', 'background: red');
          const s = document.createElement('script');
          s.textContent = 'window.injected = true';
          document.body.append(s);
          try { new WebSocket('ws://example.invalid/'); } catch { /* refused */ }
        }"""
    )
    # each refusal is reported (the page's own event); the console lines came first
    wait_js(page, "() => window.cspViolations.length >= 3", "three CSP violations reported")
    assert page.evaluate("() => window.injected") is None
    background = page.evaluate("() => getComputedStyle(document.body).backgroundColor")
    assert background != "rgb(255, 0, 0)"
    kinds = " ".join(r for r in reports if r.startswith("CSP violation"))
    for directive in ("style-src", "script-src", "connect-src"):
        assert directive in kinds, reports
    ctx.close()
