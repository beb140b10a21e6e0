"""Languages in the browser: Arabic from the phone's language, right to left and
mirrored (the card rows keep their physical left/middle/right order), the
switch in the page remembered across reloads, and no horizontal scrolling at
360 px in any language."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.web.browser_kit import (
    assert_no_horizontal_scroll,
    open_seat,
    snap,
    tap,
    wait_view,
)

pytestmark = pytest.mark.browser


def box(page: Page, selector: str) -> dict[str, float]:
    b = page.locator(selector).first.bounding_box()
    assert b is not None, selector
    return b


def test_arabic_is_right_to_left_and_the_choice_is_remembered(server: Any, phone: Any) -> None:
    page = phone(locale="ar-EG")
    page.goto(server.base + "/")
    expect(page.locator("html")).to_have_attribute("dir", "rtl")
    assert page.evaluate("() => [document.dir, document.documentElement.lang]") == ["rtl", "ar"]
    expect(page.get_by_test_id("create-room")).to_have_text("أنشئ غرفة")
    # mirrored: the brand, first in the header, is on the right; the settings button on the left
    assert box(page, ".brand")["x"] > box(page, "[data-testid=settings-button]")["x"]
    snap(page, "home-ar")

    # the switch in the page, remembered over a reload
    page.get_by_test_id("language").select_option("id")
    expect(page.locator("html")).to_have_attribute("dir", "ltr")
    expect(page.get_by_test_id("create-room")).to_have_text("Buat ruang")
    assert_no_horizontal_scroll(page)
    page.reload()
    expect(page.locator("html")).to_have_attribute("lang", "id")
    expect(page.get_by_test_id("create-room")).to_have_text("Buat ruang")
    page.get_by_test_id("language").select_option("ar")
    expect(page.locator("html")).to_have_attribute("dir", "rtl")

    # a room in Arabic: the lobby, then the table
    host = server.post("/api/rooms", {"name": "سارة"})
    code = host["code"]
    server.post(f"/api/rooms/{code}/players", {"name": "Budi"})
    open_seat(page, server.base, code, host)
    expect(page.get_by_test_id("start-game")).to_have_text("ابدأ اللعبة")
    # the room code block and its QR code swap sides
    assert box(page, ".room-info")["x"] > box(page, "[data-testid=qr]")["x"]
    snap(page, "lobby-ar", full_page=True)

    tap(page, "start-game")
    v = wait_view(page, "v.status === 'peek' || v.status === 'playing'")
    assert v["you"] == "p1"
    left, middle, right = (
        box(page, f"[data-testid=my-slot-{s}]") for s in ("left", "middle", "right")
    )
    assert left["x"] < middle["x"] < right["x"], "card positions are physical: left stays left"
    # the turn line starts on the right, the timer sits on its left
    turn, timer = box(page, "[data-testid=turn-indicator]"), box(page, "[data-testid=draw-timer]")
    assert turn["x"] > timer["x"]
    wait_view(page, "v.status === 'playing'")
    expect(page.get_by_test_id("crisp-button")).to_contain_text("كريسب")
    snap(page, "table-ar")

    for lang in ("id", "en"):
        page.get_by_test_id("language").select_option(lang)
        expect(page.locator("html")).to_have_attribute("lang", lang)
        snap(page, f"table-{lang}")
