"""A whole round on three phones, every kind of action played with taps.

The room is created over HTTP with a stacked deck (R2.2: dealt one card at a
time starting after the dealer, 1st card = left), the host's token is put in
the browser's storage as the client keeps it, the two others join through the
shared link. Dealer is seat 2 (Cy), so Ana (host, seat 0) is dealt first and
plays first (R2.6).

    Ana  AS 2C 3H      Ben  9H 8S 5C      Cy  TD 7D 6S      stock: KS JH QC 2D 9C 4H 5H ...

Turn 1 Ana: stock KS -> King (R9); extra draw JH -> Jack, sees her middle 2C (R7);
            extra draw QC -> Queen, her left AS <-> Ben's right 5C; each peeks (R8.2, R8.3).
Turn 2 Ben: stock 2D -> swap into his middle (8S discarded).
            Ben reloads the page: same seat.
Turn 3 Cy:  discard pile 8S -> must swap (R13.2): into his left (TD discarded).
Turn 4 Ana: stock 9C -> discard; calls CRISP in her window (R10).
Final turns: Ben 4H discard, Cy 5H discard (R11.1). Reveal:
    Ana 5C 2C 3H = 10, strictly lowest -> 5 (R12.2); Ben 9H 2D AS = 12; Cy 8S 7D 6S = 21.
"""

from __future__ import annotations

import contextlib
import json
import re
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.support.decks import deck
from tests.web.browser_kit import (
    arm_crisp,
    assert_suit_colours,
    click_if_enabled,
    draw_from_stock,
    join_via_link,
    open_seat,
    record_timer,
    snap,
    tap,
    timer_seconds,
    view,
    wait_js,
    wait_turn,
    wait_view,
)

pytestmark = pytest.mark.browser

def stored_strings(page: Any) -> set[str]:
    """Every key, value and string inside a JSON value of the page's localStorage."""
    out: set[str] = set()

    def walk(x: Any) -> None:
        if isinstance(x, str):
            out.add(x)
        elif isinstance(x, dict):
            for k, v in x.items():
                walk(k)
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    for key, value in page.evaluate("() => Object.entries(localStorage)"):
        walk(key)
        walk(value)
        with contextlib.suppress(ValueError):
            walk(json.loads(value))
    return out


DEAL = ["AS", "9H", "TD", "2C", "8S", "7D", "3H", "5C", "6S"]
STOCK = ["KS", "JH", "QC", "2D", "9C", "4H", "5H"]


def test_three_phones_play_a_round_with_every_action(real_time_server: Any, phone: Any) -> None:
    """On real game time: the deal's peeks stay while the phones are checked (R16.2),
    and the 3 s crisp window is a real one (R10.4)."""
    server = real_time_server
    seat = server.post("/api/rooms", {"name": "Ana", "deck": deck(*DEAL, *STOCK), "dealer": 2})
    code = seat["code"]
    ana, ben, cy = phone(), phone(), phone()

    # --- lobby: the host opens her seat from storage, the others join by the link
    open_seat(ana, server.base, code, seat)
    expect(ana.get_by_test_id("room-code")).to_have_text(code)
    join_via_link(ben, server.base, code, "Ben")
    join_via_link(cy, server.base, code, "Cy")
    players = ana.get_by_test_id("player-list").locator("li")
    expect(players).to_have_count(3)
    expect(ana.locator("[data-testid=player-list] li[data-connected=true]")).to_have_count(3)

    ana.get_by_test_id("option-limit").select_option("50")
    ana.get_by_test_id("option-draw-seconds").select_option("60")
    ana.get_by_test_id("option-discard-draw").check()
    # the others see the options live, and cannot change them
    expect(ben.get_by_test_id("option-limit")).to_have_value("50")
    expect(ben.get_by_test_id("option-draw-seconds")).to_have_value("60")
    expect(ben.get_by_test_id("option-discard-draw")).to_be_checked()
    expect(ben.get_by_test_id("option-limit")).to_be_disabled()
    expect(ben.get_by_test_id("start-game")).to_have_count(0)
    snap(ana, "lobby-host", full_page=True)
    snap(ben, "lobby-guest")

    # --- deal and peek phase (R2.4, R16.2): left and right shown once, middle never
    tap(ana, "start-game")
    expect(ana.get_by_test_id("my-slot-left")).to_have_attribute("data-card", "AS")
    expect(ana.get_by_test_id("my-slot-right")).to_have_attribute("data-card", "3H")
    expect(ana.get_by_test_id("my-slot-middle")).to_have_attribute("data-card", "")
    expect(ben.get_by_test_id("my-slot-left")).to_have_attribute("data-card", "9H")
    if click_if_enabled(ana, "ready-button"):  # unless the peek phase is already over
        expect(ana.get_by_test_id("ready-button")).to_contain_text("waiting for others")
    for page in (ben, cy):  # everyone has looked: the first turn starts at once (R16.2)
        click_if_enabled(page, "ready-button")

    # --- turn 1, Ana: King, then Jack, then Queen
    wait_turn(ana, "p1")
    expect(ana.get_by_test_id("my-slot-left")).to_have_attribute("data-card", "")  # peek gone
    expect(ana.get_by_test_id("turn-indicator")).to_have_text(re.compile("Your turn"))
    expect(ben.get_by_test_id("turn-indicator")).to_have_text(re.compile("Ana"))
    # the timer counts the 60 s the options promise (R14.3), from 1:00 down
    expect(ana.get_by_test_id("draw-timer")).to_have_text(re.compile(r"^(1:00|0:5\d)$"))
    expect(ana.get_by_test_id("stock")).to_have_attribute("data-count", "43")

    assert draw_from_stock(ana) == "KS"
    # a King from the stock must be played: nothing else is offered (R6.3)
    expect(ana.get_by_test_id("action-king")).to_be_enabled()
    for other in ("action-discard", "action-jack", "action-queen", "my-slot-left"):
        expect(ana.get_by_test_id(other)).to_be_disabled()
    # what a special card does is said when you hold it (R9)
    expect(ana.get_by_test_id("hint")).to_contain_text("King: it must be played")
    snap(ana, "turn-holding-king")
    tap(ana, "action-king")
    wait_view(ana, "v.holding === null && v.turn.extra_draws === 2")
    expect(ana.get_by_test_id("turn-indicator")).to_have_text(re.compile("2 extra draws"))
    # R9.3: the King lies beside the pile while its extra draws are made, for everyone
    expect(cy.get_by_test_id("kings")).to_have_attribute("data-count", "1")

    assert draw_from_stock(ana) == "JH"
    expect(ana.get_by_test_id("hint")).to_contain_text("Jack: look once at your own middle card")
    assert assert_suit_colours(ana) >= 1  # the drawn J♥ is red (and the K♠ beside the pile is not)
    tap(ana, "action-jack")
    expect(ana.get_by_test_id("my-slot-middle")).to_have_attribute("data-card", "2C")  # R7.1
    expect(ana.get_by_test_id("peek")).to_contain_text("middle")
    tap(ana, "peek-hide")  # a peek has the notice line to itself until hidden

    assert draw_from_stock(ana) == "QC"
    expect(ana.get_by_test_id("hint")).to_contain_text("Queen: swap one of your cards")
    tap(ana, "action-queen")
    tap(ana, "my-slot-left")
    expect(ana.get_by_test_id("my-slot-left")).to_have_attribute("aria-pressed", "true")
    tap(ana, "seat-p2-slot-right")
    # R8: both cards chosen, nothing is sent before the confirmation (Cancel backs out)
    expect(ana.get_by_test_id("queen-confirm-bar")).to_contain_text("Your left ⇄ Ben's right?")
    expect(ana.get_by_test_id("queen-cancel")).to_be_visible()
    # nothing was sent: an action sent makes the taps wait for its answer (`pending`)
    assert ana.evaluate("() => window.crisp.state.pending") == 0
    assert view(ana)["holding"] == "QC"
    tap(ana, "queen-confirm")
    # R8.2 / R8.3: each sees the card that landed in a left or right position
    expect(ana.get_by_test_id("my-slot-left")).to_have_attribute("data-card", "5C")
    expect(ben.get_by_test_id("my-slot-right")).to_have_attribute("data-card", "AS")
    expect(ben.get_by_test_id("log")).to_contain_text("Ana used a Queen on your right card")
    expect(cy.get_by_test_id("log")).to_contain_text(
        "Ana used a Queen: their left card ⇄ Ben's right card"
    )
    # the peeks go away by themselves (or with Hide) and are not kept anywhere
    tap(ben, "peek-hide")
    expect(ben.get_by_test_id("my-slot-right")).to_have_attribute("data-card", "")
    assert "AS" not in stored_strings(ben)

    # --- Ben's turn: the timer counts the 60 s from when he may start, never
    # the 2 s before (R10.4, R14.3); recorded on Cy's phone from Ana's turn on
    record_timer(cy)
    # --- a bystander still sees which two positions the Queen exchanged once
    # the move is over (its highlight gone), until Ana's next turn
    wait_turn(cy, "p2")
    # the timer appears once Ben may start (2 s after his turn began); then a few ticks
    wait_js(cy, r"() => window.timerTexts.some(t => /^\d+:\d\d$/.test(t))",
            "the draw timer shown (a m:ss text)")
    # then a few of its ticks: three different times shown
    wait_js(cy, r"() => new Set(window.timerTexts.filter(t => /^\d+:\d\d$/.test(t))).size >= 3",
            "three different times shown by the draw timer")
    shown = timer_seconds(cy)
    assert shown and max(shown) <= 60, cy.evaluate("() => window.timerTexts")
    expect(cy.get_by_test_id("seat-p1-slot-left")).to_have_attribute("data-mark", "queen")
    expect(cy.get_by_test_id("seat-p2-slot-right")).to_have_attribute("data-mark", "queen")
    expect(cy.get_by_test_id("seat-p1-move")).to_contain_text("Queen: left ⇄ Ben's right")
    expect(ben.get_by_test_id("my-slot-right")).to_have_attribute("data-mark", "queen")

    # --- turn 2, Ben: stock, swap into his middle
    wait_turn(ben, "p2")
    assert draw_from_stock(ben) == "2D"
    expect(ana.get_by_test_id("holding")).to_have_attribute("aria-label", re.compile("Ben"))
    expect(ana.get_by_test_id("holding")).to_have_attribute("data-card", "")  # R4.1: face down
    assert "2D" not in ana.content() and "2♦" not in ana.content()
    snap(ben, "turn-holding")
    tap(ben, "my-slot-middle")
    for page in (ana, ben, cy):
        expect(page.get_by_test_id("discard-pile")).to_have_attribute("data-card", "8S")
    expect(cy.get_by_test_id("log")).to_contain_text("Ben swapped their middle card")
    # the swapped card's new identity stays on the pile and on Ben's seat after the move
    # (its highlights over: no flash left on Cy's page)
    wait_js(cy, "() => !document.querySelector('.flash')", "the move's highlights over (no .flash)")
    expect(cy.get_by_test_id("seat-p2-slot-middle")).to_have_attribute("data-mark", "swap")
    expect(cy.get_by_test_id("seat-p2-move")).to_contain_text("swapped middle: 8♠ to the pile")
    expect(cy.get_by_test_id("discard-pile")).to_have_attribute("data-card", "8S")
    expect(cy.get_by_test_id("seat-p1-slot-left")).to_have_attribute("data-mark", "queen")

    # a reload mid-game comes back to the same seat
    ben.reload()
    expect(ben.get_by_test_id("connection-status")).to_have_attribute("data-state", "open")
    assert view(ben)["you"] == "p2"
    expect(ben.get_by_test_id("discard-pile")).to_have_attribute("data-card", "8S")
    expect(ben.get_by_test_id("my-slot-right")).to_have_attribute("data-card", "")  # R16.3

    # --- turn 3, Cy: takes the discard, which must be swapped in (R13.2)
    wait_turn(cy, "p3")
    tap(cy, "discard-pile")
    wait_view(cy, "v.holding === '8S'")
    expect(ana.get_by_test_id("holding")).to_have_attribute("data-card", "8S")  # public (R16.4)
    expect(cy.get_by_test_id("action-discard")).to_be_disabled()
    expect(ana.get_by_test_id("log")).to_contain_text("Cy took 8♠ from the discard pile")
    tap(cy, "my-slot-left")
    expect(cy.get_by_test_id("discard-pile")).to_have_attribute("data-card", "TD")
    # a red card on a pile nobody may take from now (a disabled button) is still red
    expect(ben.get_by_test_id("discard-pile")).to_have_attribute("data-card", "TD")
    expect(ben.get_by_test_id("discard-pile")).to_be_disabled()
    assert assert_suit_colours(ben) >= 1

    # --- turn 4, Ana: stock, discard, CRISP in her 3-second window (R10.4)
    wait_turn(ana, "p1")
    assert draw_from_stock(ana) == "9C"
    expect(ana.get_by_test_id("crisp-button")).to_be_disabled()
    arm_crisp(ana)
    tap(ana, "action-discard")
    wait_view(ana, "v.crisp.caller === 'p1'")
    for page, text in ((ana, "You called crisp"), (ben, "Ana called crisp")):
        expect(page.get_by_test_id("crisp-info")).to_contain_text(text)
        expect(page.get_by_test_id("crisp-info")).to_contain_text("2 final turns left")
    # whose final turns are to come: on their seats (issue 21: not a list in the sticky
    # bar); Ben's is the one being played (his turn started at once): the turn line says it
    expect(ana.get_by_test_id("seat-p3").get_by_test_id("tag-final")).to_be_visible()
    expect(ana.get_by_test_id("seat-p2").locator(".turn-mark")).to_be_visible()

    # --- final turns (R11.1)
    wait_turn(ben, "p2")
    expect(ben.get_by_test_id("turn-indicator")).to_contain_text("final turn")
    assert draw_from_stock(ben) == "4H"
    tap(ben, "action-discard")
    expect(cy.get_by_test_id("crisp-info")).to_contain_text("1 final turn left")
    wait_turn(cy, "p3")
    assert draw_from_stock(cy) == "5H"
    tap(cy, "action-discard")

    # --- reveal and scores (R12)
    for page in (ana, ben, cy):
        wait_view(page, "v.status === 'round_over'")
        board = page.get_by_test_id("scoreboard")
        expect(board.locator("tr[data-player=p1] [data-card]")).to_have_count(3)
        expect(page.get_by_test_id("sum-p1")).to_have_text("10")
        expect(page.get_by_test_id("bonus-p1")).to_have_text("\u22125")  # a real minus sign
        expect(page.get_by_test_id("round-p1")).to_have_text("5")
        expect(page.get_by_test_id("total-p1")).to_have_text("5")
        expect(page.get_by_test_id("sum-p2")).to_have_text("12")
        expect(page.get_by_test_id("total-p2")).to_have_text("12")
        expect(page.get_by_test_id("sum-p3")).to_have_text("21")
        expect(page.get_by_test_id("total-p3")).to_have_text("21")
    cards = ana.locator("[data-testid=scoreboard] tr[data-player=p1] [data-card]")
    assert [cards.nth(i).get_attribute("data-card") for i in range(3)] == ["5C", "2C", "3H"]
    expect(ben.get_by_test_id("next-round")).to_have_count(0)
    expect(ben.get_by_test_id("caller-reason")).to_have_text(
        "Ana called crisp with 10, strictly the lowest: \u22125"
    )
    assert assert_suit_colours(ana, at_least=9) >= 4  # 3♥ 7♦ 9♥ 2♦ red in the reveal
    # the game's rounds so far (view `history`): this one, with Ana's -5 in it
    expect(cy.locator("[data-testid=history-p1] td")).to_have_text(["5 (crisp)", "5"])
    expect(cy.locator("[data-testid=history-p3] td")).to_have_text(["21", "21"])
    snap(ana, "round-end")
    snap(ben, "round-end-guest")

    # --- R16.5: a player says they are ready (everyone sees it); the host deals
    tap(ben, "ready-button")
    expect(ben.get_by_test_id("ready-button")).to_be_disabled()
    expect(ana.locator("[data-testid=scoreboard] tr[data-player=p2] .tag-ready")).to_have_count(1)
    tap(ana, "next-round")
    for page in (ana, ben, cy):
        wait_view(page, "v.round === 2 && (v.status === 'peek' || v.status === 'playing')")
