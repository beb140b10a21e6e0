"""The table on a phone (issue 11): a timeout is announced to every phone with
the card discarded for that player (R14.2), and its discard travels to the pile
unless the phone asks for reduced motion; eight players fit a 360x640 screen
with nothing to scroll to act, to pick a Queen's target or to see your own cards,
in every language; "How to play" opens from the home screen and from the table.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.support.decks import deck, deck_for
from tests.web.browser_kit import (
    Hold,
    click_if_enabled,
    draw_from_stock,
    open_seat,
    ready_up,
    record_timer,
    tap,
    timer_seconds,
    view,
    wait_turn,
    wait_view,
)

pytestmark = pytest.mark.browser

# Counts the moving copies of cards (motion.js) added to the page from now on.
RECORD_GHOSTS = """() => {
  window.ghosts = 0;
  new MutationObserver((records) => {
    for (const r of records) {
      for (const n of r.addedNodes) {
        if (n.classList && n.classList.contains('ghost')) window.ghosts += 1;
      }
    }
  }).observe(document.body, { childList: true });
}"""


def test_r14_2_a_timeout_is_announced_to_every_phone_with_the_card_discarded(
    server: Any, phone: Any
) -> None:
    """30 s per draw (3 s at the tests' time scale): Ana lets hers run out; the
    top of the stock, 5♣, is discarded for her (R14.2a) and both phones say so."""
    host = server.post("/api/rooms", {"name": "Ana", "deck": deck_for([[None] * 3] * 2, ["5C"], 1),
                                      "dealer": 1})
    code = host["code"]
    guest = server.post(f"/api/rooms/{code}/players", {"name": "Ben"})
    ana, ben = phone(reduced_motion="reduce"), phone()
    open_seat(ana, server.base, code, host)
    open_seat(ben, server.base, code, guest)
    ana.get_by_test_id("option-draw-seconds").select_option("30")
    expect(ben.get_by_test_id("option-draw-seconds")).to_have_value("30")
    tap(ana, "start-game")
    for page in (ana, ben):
        ready_up(page)
    record_timer(ben)
    for page in (ana, ben):
        page.evaluate(RECORD_GHOSTS)
    wait_turn(ana, "p1")
    banner = ben.get_by_test_id("banner")
    expect(banner).to_have_text("Ana ran out of time: 5♣ discarded", timeout=8000)
    expect(ana.get_by_test_id("banner")).to_have_text("You ran out of time: 5♣ discarded")
    expect(ben.get_by_test_id("seat-p1-move")).to_have_text("out of time: 5♣ discarded")
    expect(ben.get_by_test_id("discard-pile")).to_have_attribute("data-card", "5C")
    # the notice has a line of its own: the other player's cards stay uncovered
    assert_not_covered(ben, [f"seat-p1-slot-{s}" for s in ("left", "middle", "right")])
    # the timer counted the draw time the options promise, 0:03 at this time scale, never more
    shown = timer_seconds(ben)
    assert shown and max(shown) == 3, shown
    # the discard travelled to the pile on Ben's phone; Ana's asks for no motion
    assert ben.evaluate("() => window.ghosts") >= 1
    assert ana.evaluate("() => window.ghosts") == 0


# ---- eight at the table, 360x640

# Centre hit tests: the element itself (or something inside it) is what a tap there reaches.
HIT = """(ids) => ids.filter((id) => {
  const el = document.querySelector(`[data-testid="${id}"]`);
  if (!el) return true;
  const r = el.getBoundingClientRect();
  const x = r.left + r.width / 2, y = r.top + r.height / 2;
  if (r.width === 0 || x < 0 || y < 0 || x > innerWidth || y > innerHeight) return true;
  const top = document.elementFromPoint(x, y);
  return !(top && (top === el || el.contains(top)));
})"""

IN_VIEW = """(ids) => ids.filter((id) => {
  const el = document.querySelector(`[data-testid="${id}"]`);
  if (!el) return true;
  const r = el.getBoundingClientRect();
  const inside = r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth;
  return !(r.width > 0 && inside);
})"""


def assert_not_covered(page: Page, ids: list[str]) -> None:
    """Each element is on screen and a tap at its centre reaches it (nothing over it)."""
    assert page.evaluate(HIT, ids) == []


def assert_in_view(page: Page, ids: list[str]) -> None:
    """Each element is wholly on screen as it is now, without scrolling."""
    assert page.evaluate(IN_VIEW, ids) == []


SLOTS = ("left", "middle", "right")


def table_ids(n: int) -> list[str]:
    others = [f"p{i}" for i in range(2, n + 1)]
    seats = [f"seat-{p}" for p in others]
    cards = [f"seat-{p}-slot-{s}" for p in others for s in SLOTS]
    mine = [f"my-slot-{s}" for s in SLOTS]
    return [*seats, *cards, *mine, "stock", "discard-pile", "turn-indicator", "draw-timer"]


@pytest.mark.parametrize("n", [4, 8])
def test_eight_players_fit_a_360x640_phone_with_nothing_to_scroll_to_act(
    server: Any, phone: Any, n: int
) -> None:
    """Ana and the others (they joined over HTTP and are not connected: the peek
    phase waits for connected players only, R16.2). Ana deals last, so she plays
    first; she draws a Queen and swaps with the last seat, in three languages.
    Four players fit as well as eight."""
    hands = [[None] * 3] * n
    host = server.post("/api/rooms", {"name": "Ana", "deck": deck_for(hands, ["QC", "4D"], n - 1),
                                      "dealer": n - 1})
    code = host["code"]
    others = [f"p{i}" for i in range(2, n + 1)]
    last = others[-1]
    for i in range(2, n + 1):
        server.post(f"/api/rooms/{code}/players", {"name": f"Player {i}"})
    ana = phone()
    hold = Hold(ana)  # the moment after her Queen is held while it is checked (see below)
    open_seat(ana, server.base, code, host)
    tap(ana, "start-game")
    ready_up(ana)
    wait_turn(ana, "p1")
    expect(ana.get_by_test_id("stock")).to_be_enabled()
    actions = [f"action-{a}" for a in ("discard", "jack", "queen", "king")] + ["crisp-button"]
    for lang in ("en", "id", "ar"):
        ana.get_by_test_id("language").select_option(lang)
        expect(ana.locator("html")).to_have_attribute("lang", lang)
        assert_in_view(ana, [*table_ids(n), *actions])
        assert_not_covered(ana, ["stock", *[f"my-slot-{s}" for s in SLOTS]])
    ana.get_by_test_id("language").select_option("en")

    assert draw_from_stock(ana) == "QC"
    tap(ana, "action-queen")
    tap(ana, "my-slot-left")
    # every Queen target is reachable where it is
    assert_not_covered(ana, [f"seat-{p}-slot-{s}" for p in others for s in SLOTS])
    tap(ana, f"seat-{last}-slot-right")
    expect(ana.get_by_test_id("queen-confirm")).to_be_visible()
    assert_in_view(ana, [*table_ids(n), "queen-confirm", "queen-cancel"])
    target = f"seat-{last}-slot-right"
    assert_not_covered(ana, ["queen-confirm", "queen-cancel", "my-slot-left", target])
    # The others are away (joined, never connected): the computer plays each of them at
    # once, so the last seat's turn, which ends its marks, comes a moment later; the
    # update that ends Ana's turn is held on her phone while it is checked.
    hold.freeze_on(lambda m: m.get("type") == "update" and m["view"]["turn"] is not None
                   and m["view"]["turn"]["player"] != "p1")
    tap(ana, "queen-confirm")
    hold.wait()
    expect(ana.get_by_test_id(f"seat-{last}-slot-right")).to_have_attribute("data-mark", "queen")
    # not her turn: her own cards are still on screen, not behind the dock
    assert_in_view(ana, table_ids(n))
    assert_not_covered(ana, [f"my-slot-{s}" for s in SLOTS])
    hold.release()


def test_how_to_play_opens_from_home_and_from_the_table_and_the_move_log_from_the_table(
    server: Any, phone: Any
) -> None:
    page = phone()
    page.goto(server.base + "/")
    tap(page, "help-button")
    help_page = page.get_by_test_id("help")
    expect(help_page.locator("h2")).to_have_count(9)
    expect(help_page).to_contain_text("A Queen swaps one of your cards")
    # R17 and what the rules sheet leaves to the screen are there too (issue 21)
    for words in ("If your phone has no connection for 20 seconds you are away",
                  "Leaving the room", "the role passes to the player who joined earliest",
                  "its two draws are added", "discard it unused", "can still be swapped with",
                  "before you have drawn", "King draws still to come are lost",
                  "for up to 10 seconds",
                  "the discard pile is turned over", "players tied for lowest share the win",
                  "at the end of the round", "The dealer changes every round", "⇄", "↻", "☰",
                  "The ring at the top", "lights up for 3 seconds"):
        expect(help_page).to_contain_text(words)
    page.keyboard.press("Escape")
    expect(page.get_by_test_id("name-input")).to_be_visible()
    for lang, words in (("ar", "الملكة"), ("id", "Queen: tukar")):
        page.get_by_test_id("language").select_option(lang)
        tap(page, "help-button")
        expect(help_page).to_contain_text(words)
        tap(page, "help-close")

    # at the table: the game goes on meanwhile, and Back returns to it
    host = server.post("/api/rooms", {"name": "Ana", "deck": deck("AS"), "dealer": 1})
    guest = server.post(f"/api/rooms/{host['code']}/players", {"name": "Ben"})
    open_seat(page, server.base, host["code"], host)
    page.get_by_test_id("language").select_option("en")
    tap(page, "start-game")
    ready_up(page)
    assert guest["player_id"] == "p2"
    wait_view(page, "v.status === 'playing'")
    tap(page, "help-button")
    expect(help_page).to_be_visible()
    expect(page.get_by_test_id("stock")).to_have_count(0)
    tap(page, "help-close")
    expect(page.get_by_test_id("stock")).to_be_visible()
    assert view(page)["status"] == "playing"
    # the round's moves are one tap away, in a sheet over the table
    expect(page.get_by_test_id("log-sheet")).to_be_hidden()
    tap(page, "log-button")
    expect(page.get_by_test_id("log-sheet")).to_be_visible()
    expect(page.get_by_test_id("log")).to_contain_text("Round 1")
    tap(page, "log-close")
    expect(page.get_by_test_id("log-sheet")).to_be_hidden()
    click_if_enabled(page, "stock")
