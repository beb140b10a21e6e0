"""From an empty phone to a rematch, all through the page.

The host creates the room in the UI (no test deck: real shuffles), shares it, a
friend joins by typing the code, a third joins, drops, comes back to the same
seat and is removed by the host. Then two players play rounds (each ends by a
crisp call) until someone reaches the 50-point limit (R12.5),
the winners are shown and the host starts a rematch (R16.5). Last, the same
seat opened in a second tab takes the seat over (close 4409).
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.web.browser_kit import (
    join_via_link,
    play_round_to_a_call,
    ready_up,
    snap,
    tap,
    view,
    wait_view,
)

pytestmark = pytest.mark.browser


def shown(n: int) -> str:
    """A number as the client writes it (a real minus sign)."""
    return str(n).replace("-", "\u2212")


def test_host_creates_room_in_the_ui_and_plays_to_a_rematch(server: Any, phone: Any) -> None:
    dee, eve = phone(), phone()

    # --- the host creates the room from the home screen; the page's policy is on
    # for the whole game (the phone fixture fails the test on any violation)
    response = dee.goto(server.base + "/")
    assert response is not None
    assert "script-src 'self'" in response.headers["content-security-policy"]
    expect(dee.get_by_test_id("create-room")).to_be_enabled()
    dee.get_by_test_id("name-input").fill("Dee")
    tap(dee, "create-room")
    code = dee.get_by_test_id("room-code").text_content() or ""  # its groups, without breaks
    assert re.fullmatch(r"[A-Z0-9]{8}", code), code
    assert dee.url == f"{server.base}/r/{code}"
    expect(dee.get_by_test_id("qr").locator("svg path")).to_have_count(1)
    tap(dee, "share-link")  # no Web Share API in this browser: copies the link
    expect(dee.get_by_test_id("toast")).to_have_text(re.compile("Link copied|/r/" + code))
    expect(dee.get_by_test_id("start-game")).to_be_disabled()  # alone in the room

    # --- a friend types the code (any case) on the home screen
    eve.goto(server.base + "/")
    eve.get_by_test_id("name-input").fill("Eve")
    eve.get_by_test_id("room-code-input").fill(code.lower())
    tap(eve, "join-room")
    expect(eve.get_by_test_id("room-code")).to_have_text(code)
    expect(dee.locator("[data-testid=player-list] li")).to_have_count(2)

    # --- a third joins, drops, comes back to the same seat, and is removed
    fay = phone()
    join_via_link(fay, server.base, code, "Fay")
    fay_id = view(fay)["you"]
    fay_row = dee.get_by_test_id(f"player-{fay_id}")
    expect(fay_row).to_have_attribute("data-connected", "true")
    fay_ctx = fay.context
    fay.close()
    expect(fay_row).to_have_attribute("data-connected", "false")
    expect(fay_row).to_contain_text("offline")
    fay = fay_ctx.new_page()
    fay.goto(f"{server.base}/r/{code}")  # the token in storage brings her back
    expect(fay.get_by_test_id("connection-status")).to_have_attribute("data-state", "open")
    assert view(fay)["you"] == fay_id
    expect(fay_row).to_have_attribute("data-connected", "true")
    tap(dee, f"kick-{fay_id}")
    expect(dee.locator("[data-testid=player-list] li")).to_have_count(2)
    expect(fay.get_by_test_id("name-input")).to_be_visible()  # back on the home screen
    expect(fay.locator(".note.warn")).to_contain_text(f"removed from room {code}")

    # --- options and start
    dee.get_by_test_id("option-limit").select_option("50")
    expect(eve.get_by_test_id("option-limit")).to_have_value("50")
    tap(dee, "start-game")

    # --- rounds until the game ends; each round ends by a crisp call
    pages = {"p1": dee, view(eve)["you"]: eve}
    for _ in range(12):
        for page in pages.values():
            ready_up(page)  # all ready: the first turn starts at once
        wait_view(dee, "v.status === 'playing' && v.turn !== null")
        play_round_to_a_call(pages, dee)
        v = wait_view(dee, "v.status === 'round_over' || v.status === 'game_over'")
        expect(eve.get_by_test_id("scoreboard")).to_contain_text(str(v["players"][0]["total"]))
        if v["status"] == "game_over":
            break
        expect(eve.get_by_test_id("next-round")).to_have_count(0)
        tap(dee, "next-round")
    else:
        pytest.fail("no one reached 50 points in 12 rounds")

    # --- the end: winners (a shared win says so), rematch by the host only
    totals = {p["id"]: p["total"] for p in v["players"]}
    assert max(totals.values()) >= 50
    low = min(totals.values())
    winners = sorted(p for p, t in totals.items() if t == low)
    assert sorted(v["winners"]) == winners
    names = {p["id"]: p["name"] for p in v["players"]}
    winner_line = eve.get_by_test_id("winners")
    if len(winners) > 1:
        expect(winner_line).to_contain_text("Shared win")
    elif winners[0] == view(eve)["you"]:
        expect(winner_line).to_contain_text("You win!")
    else:
        expect(winner_line).to_contain_text(f"{names[winners[0]]} wins!")
    expect(eve.get_by_test_id("rematch")).to_have_count(0)
    # the whole game's rounds (view `history`), players ranked by their totals
    rounds = v["history"]
    assert [r["round"] for r in rounds] == list(range(1, len(rounds) + 1))
    history = eve.get_by_test_id("history")
    # rank, player, a column per round, total
    expect(history.locator("thead th")).to_have_count(len(rounds) + 3)
    rows = history.locator("tbody tr")
    expect(rows).to_have_count(2)
    ranked = sorted(totals, key=lambda p: totals[p])
    for i, pid in enumerate(ranked):
        expect(rows.nth(i)).to_have_attribute("data-testid", f"history-{pid}")
        expect(rows.nth(i).locator("td.total")).to_have_text(shown(totals[pid]))
        # each round's score; the caller's says so (to a screen reader; a mark on screen)
        scores = [
            shown(r["scores"][pid]) + (" (crisp)" if r["caller"] == pid else "") for r in rounds
        ]
        cells = rows.nth(i).locator("td.num:not(.rank):not(.total)")
        expect(cells).to_have_text(scores)
    expect(rows.nth(0)).to_have_attribute("data-rank", "1")
    expect(eve.get_by_test_id("caller-reason")).to_contain_text("called crisp with")
    snap(dee, "game-over", full_page=True)

    # --- rematch (R16.5): everyone back in the lobby, same seats and options,
    # where the host may change the options and start again
    tap(dee, "rematch")
    v = wait_view(eve, "v.status === 'lobby'")
    assert all(p["total"] == 0 for p in v["players"]) and v["history"] == []
    expect(eve.get_by_test_id("player-list").locator("li")).to_have_count(2)
    expect(eve.get_by_test_id("option-limit")).to_have_value("50")
    # said in the lobby itself, above the room code: nothing covers the code or the QR code
    expect(eve.get_by_test_id("rematch-note")).to_contain_text("Dee started a rematch")
    dee.get_by_test_id("option-limit").select_option("100")
    expect(eve.get_by_test_id("option-limit")).to_have_value("100")
    expect(dee.get_by_test_id("start-game")).to_be_enabled()

    # --- the same seat in a second tab takes over; the first tab says so and waits
    eve2 = eve.context.new_page()
    eve2.goto(f"{server.base}/r/{code}")
    expect(eve2.get_by_test_id("connection-status")).to_have_attribute("data-state", "open")
    expect(eve.get_by_test_id("connection-status")).to_have_attribute("data-state", "replaced")
    expect(eve.get_by_test_id("use-here")).to_be_visible()
    # no automatic reconnect (it would replace the other tab): its socket is stopped for good
    assert eve.evaluate("() => { const s = window.crisp.socket(); return !s || s.stopped; }")
    expect(eve2.get_by_test_id("connection-status")).to_have_attribute("data-state", "open")
    tap(eve, "use-here")
    expect(eve.get_by_test_id("connection-status")).to_have_attribute("data-state", "open")
    expect(eve2.get_by_test_id("connection-status")).to_have_attribute("data-state", "replaced")

    # --- Eve leaves the room (protocol v1.1 `leave`): asked first, then home; the seat is freed
    tap(eve, "leave-room")
    expect(eve.get_by_test_id("leave-dialog")).to_be_visible()
    tap(eve, "leave-confirm")
    expect(eve.get_by_test_id("name-input")).to_be_visible()
    expect(dee.get_by_test_id("player-list").locator("li")).to_have_count(1)
    expect(dee.get_by_test_id("start-game")).to_be_disabled()
