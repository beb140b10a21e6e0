"""Languages in the browser: Arabic from the phone's language, right to left and
mirrored (the card rows keep their physical left/middle/right order), the
switch in the page remembered across reloads, no horizontal scrolling at
360 px in any language, and signed numbers and card names in their logical
order inside Arabic text (docs/web-client.md, "Conventions for new strings")."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.support.decks import deck
from tests.web.browser_kit import (
    arm_crisp,
    assert_no_horizontal_scroll,
    draw_from_stock,
    open_seat,
    ready_up,
    snap,
    tap,
    wait_turn,
    wait_view,
)

pytestmark = pytest.mark.browser


def without_isolates(text: str) -> str:
    """The text without its bidi isolates (FSI, PDI), which the eye does not see."""
    return text.replace("\u2068", "").replace("\u2069", "")


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


# The x of the middle of each character of `needle`, in the first text node under
# `selector` that holds it (a Range per character), and the element's direction.
CHAR_XS = """([selector, needle]) => {
  const root = document.querySelector(selector);
  if (!root) return null;
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const at = node.data.indexOf(needle);
    if (at < 0) continue;
    const xs = [];
    for (let k = 0; k < needle.length; k++) {
      const range = document.createRange();
      range.setStart(node, at + k);
      range.setEnd(node, at + k + 1);
      const r = range.getBoundingClientRect();
      xs.push(r.left + r.width / 2);
    }
    return {xs, direction: getComputedStyle(node.parentElement).direction};
  }
  return null;
}"""


def reads_left_to_right(page: Page, selector: str, needle: str) -> bool:
    """True when `needle` (a number, a card) shows on screen in its logical
    order, first character leftmost, inside `selector`."""
    found = page.evaluate(CHAR_XS, [selector, needle])
    assert found is not None, f"{needle!r} not in {selector}"
    xs = found["xs"]
    return all(a < b for a, b in itertools.pairwise(xs))


def assert_logical_order_in_rtl(page: Page, selector: str, needle: str) -> None:
    rtl = page.evaluate("(s) => getComputedStyle(document.querySelector(s)).direction", selector)
    assert rtl == "rtl", selector
    assert reads_left_to_right(page, selector, needle), f"{needle!r} reversed in {selector}"


# Dealer Budi (seat 1): Sara (seat 0) is dealt first and plays first (R2.2, R2.6).
#   Sara AS AH 2C = 4      Budi 9H 8S 7D = 24      stock: JC TD ...
# Sara draws J♣ and discards it, calls crisp: strictly lowest, 4 - 5 = -1 (R12.2).
# Budi's final turn: 10♦ discarded (R11.1).
SARA = "سارة"
MINUS = "\u2212"
SIGNS_DEAL = ["AS", "9H", "AH", "8S", "2C", "7D"]
SIGNS_STOCK = ["JC", "TD"]


def test_arabic_shows_signed_numbers_and_card_names_in_logical_order(
    server: Any, phone: Any
) -> None:
    stacked = deck(*SIGNS_DEAL, *SIGNS_STOCK)
    host = server.post("/api/rooms", {"name": SARA, "deck": stacked, "dealer": 1})
    code = host["code"]
    guest = server.post(f"/api/rooms/{code}/players", {"name": "Budi"})
    sara, budi = phone(locale="ar-EG"), phone()
    open_seat(sara, server.base, code, host)
    open_seat(budi, server.base, code, guest)
    expect(sara.locator("html")).to_have_attribute("dir", "rtl")

    # The method can fail: text that is not isolated shows reversed in right-to-left.
    sara.evaluate(
        """() => { const p = document.createElement('p');
          p.id = 'bidi-control'; p.textContent = 'النقاط \\u22125 ورمي Q♠';
          document.body.appendChild(p); }"""
    )
    assert not reads_left_to_right(sara, "#bidi-control", MINUS + "5")
    assert not reads_left_to_right(sara, "#bidi-control", "Q♠")
    sara.evaluate("() => document.getElementById('bidi-control').remove()")

    tap(sara, "start-game")
    for page in (sara, budi):
        ready_up(page)
    wait_turn(sara, "p1")
    assert draw_from_stock(sara) == "JC"
    arm_crisp(sara)
    tap(sara, "action-discard")
    wait_view(sara, "v.crisp && v.crisp.caller === 'p1' || v.status !== 'playing'")
    # the hint line shows the last event, with its card in order
    wait_turn(budi, "p2")
    assert draw_from_stock(budi) == "TD"
    tap(budi, "action-discard")
    wait_view(sara, "v.status === 'round_over'")

    # the round's results: -5 for the call, a total of -1, the caller's rule line
    expect(sara.get_by_test_id("bonus-p1")).to_have_text("\u22125")
    expect(sara.get_by_test_id("total-p1")).to_have_text("\u22121")
    expect(sara.get_by_test_id("sum-p1")).to_have_text("4")
    assert_logical_order_in_rtl(sara, "[data-testid=bonus-p1]", "\u22125")
    assert_logical_order_in_rtl(sara, "[data-testid=total-p1]", "\u22121")
    # in an Arabic sentence the bonus is said in words, never a sign that could read
    # backwards ("5" then the sign); the caller, on her own page, is "you" (issue 21)
    shown = {k: without_isolates(sara.get_by_test_id(k).text_content() or "")
             for k in ("caller-note", "caller-reason")}
    assert shown == {
        "caller-note": "أعلنت كريسب: خصم 5 نقاط إن كان مجموعك الأقل تمامًا، وإلا إضافة 5 نقاط.",
        "caller-reason": "أعلنت كريسب بمجموع 4، وهو الأقل تمامًا: خصم 5 نقاط",
    }, shown
    expect(sara.get_by_test_id("round-p1")).to_have_text(MINUS + "1")
    assert_logical_order_in_rtl(sara, "[data-testid=round-p1]", MINUS + "1")
    expect(sara.locator("[data-testid=history-p1] td.total")).to_have_text(MINUS + "1")
    assert_logical_order_in_rtl(sara, "[data-testid=history-p1] td.total", MINUS + "1")
    # the log: card names with a letter and with two digits
    sara.locator(".log summary").click()
    log = sara.get_by_test_id("log")
    expect(log).to_contain_text("رميت")
    assert_logical_order_in_rtl(sara, "[data-testid=log]", "J\u2663")
    assert_logical_order_in_rtl(sara, "[data-testid=log]", "10\u2666")
    snap(sara, "results-ar", full_page=True)

    # the log is written in the language of the moment, not of the event
    sara.get_by_test_id("language").select_option("id")
    expect(log).to_contain_text("Kamu membuang J\u2663")
    expect(log).to_contain_text("Budi membuang 10\u2666")
    sara.get_by_test_id("language").select_option("en")
    expect(log).to_contain_text("You discarded J\u2663")
    expect(sara.get_by_test_id("caller-note")).to_have_text(
        f"You called crisp: {MINUS}5 if strictly lowest, otherwise +5.")
    # an Arabic name is isolated in an English sentence too (Budi's page)
    expect(budi.get_by_test_id("caller-note")).to_have_text(
        f"\u2068{SARA}\u2069 called crisp: {MINUS}5 if strictly lowest, otherwise +5."
    )
