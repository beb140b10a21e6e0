"""CRISP_PUBLIC_URL (README, settings): the address phones open, for the lobby's
link and QR code. Without it, a lobby opened at a loopback address says that no
phone can reach its link, and how to fix that (docs/web-client.md, "Lobby")."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from playwright.sync_api import expect
from pydantic import ValidationError

from crisp.server.ops.settings import Settings
from tests.web.browser_kit import open_seat, settle
from tests.web.conftest import PHONE, serve


def test_the_public_url_setting_takes_an_address_and_nothing_else() -> None:
    assert Settings(public_url="http://192.168.1.20:8000/").public_url == "http://192.168.1.20:8000"
    assert Settings(public_url=" https://crisp.example ").public_url == "https://crisp.example"
    assert Settings(public_url="https://crisp.example/games").public_url == "https://crisp.example/games"
    assert Settings(public_url="http://[fd00::1]:8000").public_url == "http://[fd00::1]:8000"
    assert Settings(public_url="").public_url is None
    assert Settings().public_url is None
    for bad in (
        "192.168.1.20:8000",  # no scheme
        "ftp://crisp.example",
        'http://crisp.example/"><script>',
        "http://crisp.example/?x=1",
        "http://crisp.example/#top",
        "http://a b.example",
        "javascript:alert(1)",
    ):
        with pytest.raises(ValidationError):
            Settings(public_url=bad)


@pytest.mark.browser
def test_a_lobby_opened_at_loopback_warns_that_phones_cannot_reach_its_link(
    server: Any, phone: Any
) -> None:
    seat = server.post("/api/rooms", {"name": "Ana"})
    page = phone()
    open_seat(page, server.base, seat["code"], seat)
    warning = page.get_by_test_id("public-url-warning")
    expect(warning).to_be_visible()
    expect(warning).to_contain_text("127.0.0.1")
    expect(warning).to_contain_text("CRISP_PUBLIC_URL")
    expect(page.locator(".room .link")).to_contain_text(f"127.0.0.1:{server.port}/r/{seat['code']}")


# The QR path the client draws for a text (web/js/qr.js), computed in the page.
QR_PATH_OF = """async (text) => {
  const { qrSvg } = await import('/js/qr.js');
  const find = (node) => {
    if (!node || typeof node !== 'object') return null;
    if (node.props && node.props.d) return node.props.d;
    for (const child of node.children || []) { const d = find(child); if (d) return d; }
    return null;
  };
  return find(qrSvg(text, ''));
}"""


@pytest.mark.browser
def test_the_link_and_the_qr_code_use_the_public_url(browser: Any) -> None:
    public = "http://192.168.1.20:8000"
    with serve("0.1", "web-server-public-url.log", CRISP_PUBLIC_URL=public + "/") as server:
        html = httpx.get(server.base + "/", timeout=10).text
        assert f'<meta name="crisp-public-url" content="{public}">' in html
        seat = server.post("/api/rooms", {"name": "Ana"})
        ctx = browser.new_context(**PHONE)
        try:
            page = ctx.new_page()
            open_seat(page, server.base, seat["code"], seat)
            expect(page.locator(".room .link")).to_have_text(f"192.168.1.20:8000/r/{seat['code']}")
            expect(page.get_by_test_id("qr").locator("svg")).to_be_visible()
            expect(page.get_by_test_id("public-url-warning")).to_have_count(0)
            # the QR code says the public link too: its path is the one drawn for that text
            expected = settle(page, QR_PATH_OF, f"{public}/r/{seat['code']}",
                              what="the QR path of the public link (js/qr.js imported)")
            drawn = page.get_by_test_id("qr").locator("svg path").get_attribute("d")
            assert expected and drawn == expected
        finally:
            ctx.close()
