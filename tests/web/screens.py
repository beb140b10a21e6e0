"""The screenshots of docs/web-client.md, written as PNGs into a folder.

    python -m tests.web.screens docs/img after         # "Before and after" (issue 11)
    python -m tests.web.screens docs/img final-turns   # "The table at 360 px" (issue 21)

They are not tests (pytest does not collect this module). `after`: the same game
on three phones at 390x844: a stacked round with a King, a Jack and a Queen (the
deck of test_web_round.py), then rounds until the 50-point limit; home, lobby,
your turn, a bystander just after a Queen, the round's results and game over as
`<prefix>-<screen>.png`. `final-turns`: on real game time with 30 s per draw, you
and seven (or three) computer players at 360x640; you call crisp at once, and
the phone is held (browser_kit.Hold) while a computer player makes its final
turn, its draw timer running: `final-turns-360-<seats>-<lang>.png` in English,
Arabic and Indonesian.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from playwright.sync_api import sync_playwright

from tests.support.decks import deck
from tests.web.browser_kit import (
    Hold,
    click_if_enabled,
    draw_from_stock,
    join_via_link,
    open_seat,
    play_simple_turn,
    ready_up,
    switch_language,
    tap,
    wait_js,
    wait_settled,
    wait_turn,
    wait_view,
)
from tests.web.conftest import CHROMIUM, CHROMIUM_ARGS, serve

DEAL = ["AS", "9H", "TD", "2C", "8S", "7D", "3H", "5C", "6S"]
STOCK = ["KS", "JH", "QC", "2D", "9C", "4H", "5H"]
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True,
         "device_scale_factor": 1, "locale": "en-US"}


def main(out: Path, prefix: str) -> None:
    out.mkdir(parents=True, exist_ok=True)

    def shot(page: Any, name: str) -> None:
        wait_settled(page)  # the screen as it stays: its transitions over
        page.screenshot(path=str(out / f"{prefix}-{name}.png"))

    with serve("0.1", "web-server-screens.log") as server, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        ana, ben, cy = (browser.new_context(**PHONE).new_page() for _ in range(3))
        ana.goto(server.base + "/")
        shot(ana, "home")
        seat = server.post("/api/rooms", {"name": "Ana", "deck": deck(*DEAL, *STOCK), "dealer": 2})
        code = seat["code"]
        open_seat(ana, server.base, code, seat)
        join_via_link(ben, server.base, code, "Ben")
        join_via_link(cy, server.base, code, "Cy")
        ana.get_by_test_id("option-limit").select_option("50")
        ana.get_by_test_id("option-draw-seconds").select_option("60")
        wait_view(ana, "v.players.length === 3")
        shot(ana, "lobby")
        tap(ana, "start-game")
        for page in (ana, ben, cy):
            ready_up(page)
        wait_turn(ana, "p1")
        draw_from_stock(ana)  # KS
        shot(ana, "your-turn")
        tap(ana, "action-king")
        wait_view(ana, "v.holding === null && v.turn.extra_draws === 2")
        draw_from_stock(ana)  # JH
        tap(ana, "action-jack")
        draw_from_stock(ana)  # QC
        tap(ana, "action-queen")
        tap(ana, "my-slot-left")
        tap(ana, "seat-p2-slot-right")
        click_if_enabled(ana, "queen-confirm")
        wait_view(cy, "v.turn && v.turn.player === 'p2'")
        # what a bystander still sees once the move is over: its highlights gone
        wait_js(cy, "() => !document.querySelector('.flash')", "the move's highlights over")
        shot(cy, "bystander")
        pages = {"p1": ana, "p2": ben, "p3": cy}
        # the rest of round 1, then rounds until the limit: the first player calls crisp
        first = "p2"
        while True:
            ids = list(pages)
            at = ids.index(first)
            for i, player in enumerate(ids[at:] + ids[:at]):
                play_simple_turn(pages[player], player, call_crisp=i == 0)
            v = wait_view(ana, "v.status === 'round_over' || v.status === 'game_over'")
            if v["status"] == "game_over":
                break
            if v["round"] == 1:
                shot(ana, "round-over")
            tap(ana, "next-round")
            for page in pages.values():
                ready_up(page)
            first = wait_view(ana, "v.status === 'playing' && v.turn !== null")["turn"]["player"]
        shot(ana, "game-over")
        browser.close()


SMALL_PHONE = {**PHONE, "viewport": {"width": 360, "height": 640}, "device_scale_factor": 2,
               "reduced_motion": "reduce"}


def final_draw_of_another(msg: dict[str, Any]) -> bool:
    """An update in which, after a call, another player holds a card in a final turn."""
    if msg.get("type") != "update":
        return False
    v = msg["view"]
    turn = v["turn"]
    return bool(v["crisp"]["caller"]) and turn is not None and turn["player"] != v["you"] \
        and turn["final"] and turn["drawn_from"] is not None


def final_turns(out: Path) -> None:
    """The final turns at 360x640 with 8 and 4 seats, in three languages."""
    out.mkdir(parents=True, exist_ok=True)
    with serve("1.0", "web-server-screens.log") as server, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        for seats in (8, 4):
            page = browser.new_context(**SMALL_PHONE).new_page()
            hold = Hold(page)
            seat = server.post("/api/rooms", {"name": "Alexandra Montgomery", "dealer": seats - 1})
            open_seat(page, server.base, seat["code"], seat)
            page.get_by_test_id("option-draw-seconds").select_option("30")
            for i in range(seats - 1):
                tap(page, "add-bot")
                wait_view(page, f"v.players.length === {i + 2}")
            tap(page, "start-game")
            ready_up(page)
            me = wait_view(page, "v.status === 'playing'")["you"]
            hold.freeze_on(final_draw_of_another)
            play_simple_turn(page, me, call_crisp=True)
            hold.wait(timeout=30)
            # the draw timer running: the held page's clock moved on 7 s (the messages still held)
            page.clock.set_fixed_time((hold.frozen_at + 7000) / 1000)
            page.evaluate("() => document.querySelector('.table.crowded').scrollIntoView()")
            for lang in ("en", "ar", "id"):
                switch_language(page, lang)
                wait_settled(page)
                page.screenshot(path=str(out / f"final-turns-360-{seats}-{lang}.png"))
            hold.release()
            page.context.close()
        browser.close()


if __name__ == "__main__":
    if sys.argv[2] == "final-turns":
        final_turns(Path(sys.argv[1]))
    else:
        main(Path(sys.argv[1]), sys.argv[2])
