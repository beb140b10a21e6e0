"""Accessibility: axe-core (WCAG 2.1 A and AA) finds nothing on any screen, at the
phone's viewport, in English and in Arabic.

One game on two phones, on real game time (the crisp windows are 3 s: the
calls never race a busy machine; the peek phase is held on the host's phone
while axe runs, browser_kit.Hold): home, the join form of a shared link, the
lobby (host and guest, QR code drawn), the peek phase, the table mid-turn (the
player holding a drawn card and the one watching, then a final turn after a
crisp call), the results of a round and game over. On each screen axe runs in
Arabic and in English (the language switch in the header redraws the same
screen). Besides axe: no `aria-label` on an element without a role (a screen
reader may not read it), so every number it must hear is in an element with a
role or in real text.

    Ana  AS 2C 3H  (6)     Ben  KS KH QS  (30)     stock: 4D 5S ...
"""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.support.decks import deck
from tests.web.browser_kit import (
    AXE,
    Hold,
    arm_crisp,
    axe_violations,
    draw_from_stock,
    join_via_link,
    open_seat,
    play_simple_turn,
    ready_up,
    tap,
    wait_settled,
    wait_turn,
    wait_view,
)

pytestmark = pytest.mark.browser

AXE_SHA256 = "29348999450cdf2849a8e70b7912fc2da85a849da39c0d0d5394f51d4a9ed95c"  # 4.14.1
DEAL = ["AS", "KS", "2C", "KH", "3H", "QS"]  # dealt from Ana (the dealer is Ben)
STOCK = ["4D", "5S", "6D", "7C"]

LABEL_WITHOUT_ROLE = """() => [...document.querySelectorAll('[aria-label]')]
  .filter((el) => ['span', 'div', 'p', 'b', 'strong', 'bdi', 'em', 'section'].includes(el.localName)
    && !el.hasAttribute('role') && el.localName !== 'section')
  .map((el) => el.outerHTML.slice(0, 120))"""


# The screen as it stays: a toast or banner fading in (opacity) is measured once
# it is there, not half-transparent (spinning icons, which never end, and the
# countdown bars of a look, 5-10 s long, are left: they are not transitions).
TRANSITIONS_MS = 2000


def check(page: Page, screen: str) -> None:
    """axe on the screen as it is, in Arabic then in English; nothing found."""
    found: dict[str, Any] = {}
    for lang in ("ar", "en"):
        page.get_by_test_id("language").select_option(lang)
        expect(page.locator("html")).to_have_attribute("lang", lang)
        wait_settled(page, TRANSITIONS_MS)
        violations = axe_violations(page)
        unlabelled = page.evaluate(LABEL_WITHOUT_ROLE)
        if violations or unlabelled:
            found[lang] = {"axe": violations, "aria-label without a role": unlabelled}
    assert found == {}, f"{screen}: {found}"


def test_the_vendored_axe_is_the_pinned_version() -> None:
    assert hashlib.sha256(AXE.read_bytes()).hexdigest() == AXE_SHA256


def test_every_screen_passes_axe_in_english_and_arabic(real_time_server: Any, phone: Any) -> None:
    server = real_time_server
    ana, ben = phone(), phone()
    hold = Hold(ana)

    ana.goto(server.base + "/")
    expect(ana.get_by_test_id("create-room")).to_be_enabled()
    check(ana, "home")

    seat = server.post("/api/rooms", {"name": "Ana", "deck": deck(*DEAL, *STOCK), "dealer": 1})
    code = seat["code"]
    ben.goto(f"{server.base}/r/{code}")
    expect(ben.get_by_test_id("room-code-input")).to_have_value(code)
    waiting = ben.locator(".note:not([data-testid=room-game])")  # who is waiting
    expect(waiting).to_contain_text("Ana")
    check(ben, "join form")

    open_seat(ana, server.base, code, seat)
    join_via_link(ben, server.base, code, "Ben")
    expect(ana.locator("[data-testid=player-list] li")).to_have_count(2)
    expect(ana.get_by_test_id("qr").locator("svg path")).to_have_count(1)
    ana.get_by_test_id("option-limit").select_option("50")
    expect(ben.get_by_test_id("option-limit")).to_have_value("50")
    check(ana, "lobby (host)")
    check(ben, "lobby (guest)")

    hold.freeze_on(lambda m: m.get("type") == "update" and m["view"]["status"] == "peek")
    tap(ana, "start-game")
    hold.wait()
    expect(ana.get_by_test_id("my-slot-left")).to_have_attribute("data-card", "AS")
    check(ana, "peek phase")
    hold.release()
    for page in (ana, ben):
        ready_up(page)

    wait_turn(ana, "p1")
    assert draw_from_stock(ana) == "4D"
    check(ana, "table, holding a card")
    check(ben, "table, watching")
    arm_crisp(ana)
    tap(ana, "action-discard")
    wait_view(ben, "v.crisp && v.crisp.caller === 'p1' && v.turn && v.turn.player === 'p2'")
    check(ben, "table, final turn")
    play_simple_turn(ben, "p2", call_crisp=False)

    v = wait_view(ana, "v.status === 'round_over'")
    wait_view(ben, "v.status === 'round_over'")
    assert [p["total"] for p in v["players"]] == [1, 30]
    check(ana, "results (host)")
    check(ben, "results (guest)")

    pages = {"p1": ana, "p2": ben}
    for _ in range(10):  # later rounds are shuffled: play on until someone has 50
        if v["status"] == "game_over":
            break
        tap(ana, "next-round")
        for page in pages.values():
            ready_up(page)
        first = wait_view(ana, "v.status === 'playing' && v.turn !== null")["turn"]["player"]
        second = next(p for p in pages if p != first)
        play_simple_turn(pages[first], first, call_crisp=True)
        play_simple_turn(pages[second], second, call_crisp=False)
        v = wait_view(ana, "v.status === 'round_over' || v.status === 'game_over'")
    else:
        pytest.fail("no one reached 50 points in 10 rounds")
    wait_view(ben, "v.status === 'game_over'")
    check(ana, "game over (host)")
    check(ben, "game over (guest)")
