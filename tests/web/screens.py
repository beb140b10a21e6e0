"""The screenshots of docs/web-client.md ("Before and after"): the same game on
three phones at 390x844, written as PNGs into a folder.

    python -m tests.web.screens docs/img after

It is not a test (pytest does not collect it): it plays a stacked round with a
King, a Jack and a Queen (the deck of test_web_round.py), then rounds until the
50-point limit, and saves home, lobby, your turn, a bystander just after a
Queen, the round's results and game over as `<prefix>-<screen>.png`.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from playwright.sync_api import sync_playwright

from tests.support.decks import deck
from tests.web.browser_kit import (
    click_if_enabled,
    draw_from_stock,
    join_via_link,
    open_seat,
    play_simple_turn,
    ready_up,
    tap,
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
        page.wait_for_timeout(250)
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
        cy.wait_for_timeout(1500)  # what a bystander still sees once the move is over
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


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2])
