"""Computer players and absent players in the page (R17), at a 360x640 phone viewport.

The host adds a computer player in the lobby (with its level; three levels to
pick from), sees it with its badge, removes another one, and plays a round
against it; then leaves the room with the confirmation and lands on the home
screen. At a table of two humans and a computer player, a player who closes the
page is shown as away (not as a computer player), is back when the page opens
again, and a leaving host hands the role on. The new host is told within 2 s
(R17.4), in each language, also in the peek phase and while a look shows: a
notice that matters waits for nothing (update.js, "Notices"), and the crown
stays on the host's seat afterwards.

"Within 2 s" is checked on the page's clock, never on the wall's (issue 34: a
2 s wall-clock bound failed on a busy machine): the new host's phone is held
(`Hold`: its Date.now() stands still) from before the leave; the update that
hands the role over must be the leave's own (the server tells at once, not at a
later tick), and with the page's clock still at that update the notice must be
on screen (the page tells in the render of that update, not after a notice
ahead of it has had its 4 s, a look has gone or a timer has run)."""

from __future__ import annotations

import re
import urllib.error
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.web.browser_kit import (
    Hold,
    join_via_link,
    open_seat,
    play_simple_turn,
    ready_up,
    snap,
    tap,
    view,
    wait_view,
)

pytestmark = pytest.mark.browser

NEW_HOST = {"en": "You are the host now", "ar": "أصبحت المضيف الآن",
            "id": "Kamu sekarang tuan rumah"}


def told_at_once(hold: Hold, page: Any, text: str, *, to: str, by: str,
                 hand_over: Callable[[], None]) -> dict[str, Any]:
    """R17.4 "told within 2 s", at zero seconds of the page's time: `page` (held by
    `hold`, installed before it opened the room) is frozen from before `hand_over()`
    (the host `by` leaves) until the update that makes `to` the host has reached
    it. That update must carry the leave too (the hand-over is the leave's, not a
    later tick's), and with the page's clock still standing the banner must say
    `text`: nothing in the page's time (a notice ahead of it, a look, a timer) may
    come first. Wall time is not measured: the expect's timeout is only a safety
    bound, as the page's time does not move while it waits. The held update."""
    def handed_to_me(msg: dict[str, Any]) -> bool:
        return msg.get("type") == "update" and any(
            ev.get("kind") == "host_changed" and ev.get("player") == to
            for ev in msg.get("events") or [])

    hold.freeze_on(handed_to_me)
    hand_over()
    msg = hold.wait()
    left = [ev for ev in msg["events"] if ev.get("player") == by]
    assert left, f"the hand-over came without {by}'s leave: {msg['events']}"
    assert msg["view"]["host"] == to
    expect(page.get_by_test_id("banner")).to_have_text(text)  # the page's clock stands still
    return msg


def create_in_ui(page: Any, base: str, name: str) -> str:
    page.goto(base + "/")
    page.get_by_test_id("name-input").fill(name)
    tap(page, "create-room")
    code = page.get_by_test_id("room-code").text_content() or ""  # its groups, without breaks
    assert re.fullmatch(r"[A-Z0-9]{8}", code), code
    return code


def add_bot(page: Any, level: str) -> str:
    """Add a computer player of `level` in the lobby; its player id."""
    before = {p["id"] for p in view(page)["players"]}
    page.get_by_test_id("bot-level").select_option(level)
    tap(page, "add-bot")
    v = wait_view(page, f"v.players.length === {len(before) + 1}")
    (bot,) = [p for p in v["players"] if p["id"] not in before]
    assert bot["is_bot"] and bot["bot_level"] == level
    return str(bot["id"])


def test_r17_1_add_a_computer_player_play_a_round_and_leave(server: Any, phone: Any) -> None:
    dee = phone()
    code = create_in_ui(dee, server.base, "Dee")
    expect(dee.get_by_test_id("start-game")).to_be_disabled()  # alone
    # three levels to pick from, each in the page's language
    levels = dee.get_by_test_id("bot-level").locator("option")
    expect(levels).to_have_text(["easy", "normal", "hard"])
    bot = add_bot(dee, "easy")
    row = dee.get_by_test_id(f"player-{bot}")
    expect(row).to_have_attribute("data-bot", "true")
    expect(row.get_by_test_id("bot-badge")).to_contain_text("computer · easy")
    extra = add_bot(dee, "normal")
    expect(dee.get_by_test_id(f"player-{extra}").get_by_test_id("bot-badge")).to_contain_text(
        "normal")
    hard = add_bot(dee, "hard")  # the third level (protocol: add_bot level "hard")
    expect(dee.get_by_test_id(f"player-{hard}").get_by_test_id("bot-badge")).to_contain_text(
        "computer · hard")
    snap(dee, "computer-lobby", full_page=True)
    for removed in (extra, hard):  # a computer player is removed like anyone in the lobby
        tap(dee, f"kick-{removed}")
    expect(dee.locator("[data-testid=player-list] li")).to_have_count(2)
    expect(dee.get_by_test_id("start-game")).to_be_enabled()

    # a round against the computer player, all through the page
    tap(dee, "start-game")
    ready_up(dee)
    seat = dee.get_by_test_id(f"seat-{bot}")
    expect(seat).to_have_attribute("data-bot", "true")
    # its name says what it is (in the page's language); no badge needed, no "away"
    expect(seat.get_by_test_id(f"seat-{bot}-name")).to_have_text("Computer 1")
    expect(seat.get_by_test_id("away-badge")).to_have_count(0)
    me = view(dee)["you"]
    # in play first: until the peek phase ends (R16.2) the status is not 'playing',
    # which the loop below reads as the round over (CI: the round was never played)
    wait_view(dee, "v.status === 'playing' && v.turn !== null")
    for _ in range(30):
        v = wait_view(dee, f"v.status !== 'playing' || (v.turn && v.turn.player === {me!r})",
                      timeout=15000)
        if v["status"] != "playing":
            break
        if v["turn"]["final"]:
            play_simple_turn(dee, me, call_crisp=False)
        else:
            snap(dee, "computer-table")
            play_simple_turn(dee, me, call_crisp=True)
    wait_view(dee, "v.status === 'round_over' || v.status === 'game_over'", timeout=15000)
    log = dee.get_by_test_id("log")
    expect(log).to_contain_text("Computer 1")  # the computer player's moves are in the log

    # leave: a confirmation, then the home screen says so; the room is gone
    tap(dee, "settings-button")
    tap(dee, "menu-leave-room")
    dialog = dee.get_by_test_id("leave-dialog")
    expect(dialog).to_contain_text("Leave this room?")
    snap(dee, "computer-leave")
    tap(dee, "leave-cancel")
    expect(dialog).to_have_count(0)
    tap(dee, "settings-button")
    tap(dee, "menu-leave-room")
    tap(dee, "leave-confirm")
    expect(dee.get_by_test_id("name-input")).to_be_visible()
    expect(dee.locator(".note.warn")).to_contain_text(f"You left room {code}")
    with pytest.raises(urllib.error.HTTPError) as gone:  # its last human left (R17.5)
        server.get(f"/api/rooms/{code}")
    assert gone.value.code == 404


def test_r17_2_an_away_seat_is_played_and_a_leaving_host_hands_the_role_on(
    server: Any, phone: Any
) -> None:
    dee, eve = phone(), phone()
    hold = Hold(dee)
    code = create_in_ui(dee, server.base, "Dee")
    join_via_link(eve, server.base, code, "Eve")
    add_bot(dee, "normal")
    eve_id = view(eve)["you"]
    dee_id = view(dee)["you"]
    tap(dee, "start-game")
    ready_up(dee)
    ready_up(eve)
    wait_view(dee, "v.status === 'playing'")

    # Eve closes the page. For the 20 s (2 s here) before the computer steps in, her
    # seat says she is offline and that the computer comes soon (that moment held on
    # Dee's phone while it is looked at); then the computer plays her seat (R17.2)
    def offline_not_away(msg: dict[str, Any]) -> bool:
        if msg.get("type") != "update":
            return False
        eve_now = next(p for p in msg["view"]["players"] if p["id"] == eve_id)
        return not eve_now["connected"] and not eve_now["away"]

    hold.freeze_on(offline_not_away)
    eve_ctx = eve.context
    eve.close()
    hold.wait()
    seat = dee.get_by_test_id(f"seat-{eve_id}")
    expect(seat.get_by_test_id("offline-badge")).to_have_text("⚠ offline · computer soon")
    expect(seat.get_by_test_id("away-badge")).to_have_count(0)
    hold.release()
    expect(seat).to_have_attribute("data-away", "true", timeout=10000)
    # an away friend is not a computer player: "away", not the computer's badge (R17.2)
    expect(seat.get_by_test_id("away-badge")).to_have_text("away")
    expect(seat.get_by_test_id("bot-badge")).to_have_count(0)
    expect(seat).to_have_attribute("data-bot", "false")
    snap(dee, "computer-away")
    expect(dee.get_by_test_id("log")).to_contain_text("the computer plays for them")
    # the table plays on (Dee plays her turns) until the computer has played Eve's
    moves = f"(window.crisp.state.moves[{eve_id!r}] || []).length > 0"
    for _ in range(12):
        v = wait_view(dee, f"v.status !== 'playing' || {moves} || v.turn.player === {dee_id!r}")
        if v["status"] != "playing" or dee.evaluate(f"() => {moves}"):
            break
        play_simple_turn(dee, dee_id, call_crisp=False)
    else:
        pytest.fail("the computer never played Eve's seat")
    # she comes back: the seat is hers again, and she is told what happened meanwhile
    eve = eve_ctx.new_page()
    eve_hold = Hold(eve)
    # told on the first update, in its own render: her page's clock stands still from
    # before it opens until the banner says so (no wall-clock bound, issue 34)
    eve_hold.freeze_on(lambda msg: msg.get("type") == "update")
    eve.goto(f"{server.base}/r/{code}")
    eve_hold.wait()
    expect(eve.get_by_test_id("banner")).to_contain_text(
        "While you were away, the computer played for you")
    eve_hold.release()
    expect(eve.get_by_test_id("connection-status")).to_have_attribute("data-state", "open")
    v = wait_view(dee, f"!v.players.find((p) => p.id === {eve_id!r}).away")
    expect(dee.get_by_test_id("away-badge")).to_have_count(0)
    if v["status"] != "playing":  # the round ended meanwhile: on to the next one
        tap(dee, "next-round")
        wait_view(dee, "v.status === 'peek' || v.status === 'playing'")
        ready_up(dee)
        ready_up(eve)

    # the host leaves during the game: the computer plays that seat, Eve is host now,
    # and is told so at once (R17.4)
    tap(dee, "settings-button")
    tap(dee, "menu-leave-room")
    expect(dee.get_by_test_id("leave-dialog")).to_contain_text("another player")
    told_at_once(eve_hold, eve, NEW_HOST["en"], to=eve_id, by=dee_id,
                 hand_over=lambda: tap(dee, "leave-confirm"))
    eve_hold.release()
    expect(dee.locator(".note.warn")).to_contain_text(re.compile(f"You left room {code}"))
    expect(eve.get_by_test_id("log")).to_contain_text("You are the host now")
    v = wait_view(eve, f"v.host === {eve_id!r}")
    dee_seat = next(p for p in v["players"] if p["name"] == "Dee")
    assert dee_seat["is_bot"] and dee_seat["bot_level"] == "normal"
    expect(eve.get_by_test_id("log")).to_contain_text(
        "The computer plays for Dee for the rest of the game")
    # at the table with no call yet, the round cannot end before Eve (connected) plays:
    # Dee's seat shows the computer's badge (her name is not a computer's name)
    if v["status"] in ("peek", "playing") and not (v["crisp"] or {}).get("caller"):
        seat_of_dee = eve.get_by_test_id(f"seat-{dee_seat['id']}")
        expect(seat_of_dee.get_by_test_id("bot-badge")).to_be_visible()
        # and the crown is on her own cards now (R17.4)
        expect(eve.locator("[data-testid=me] [data-testid=host-mark]:visible")).to_have_count(1)


def leave(page: Any) -> None:
    """Leave the room from the settings menu, with its confirmation (R17.5)."""
    tap(page, "settings-button")
    tap(page, "menu-leave-room")
    tap(page, "leave-confirm")


def test_r17_4_the_new_host_is_told_within_2_s_in_every_language_also_over_a_look(
    real_time_server: Any, phone: Any
) -> None:
    """Real game time: the peek phase lasts its 10 s (R16.2). Dee (host) starts and
    leaves during the peek phase, while Eve (Arabic) looks at her cards: Eve is told
    within 2 s, her look still on her cards. Fay (Indonesian) opens her page late and
    is owed her looks (R16.3): while they show, Eve leaves: Fay is told within 2 s.
    Fay leaves: Gus (English) is told within 2 s. The host's crown stays on the
    host's seat once the notice has gone (4 s on screen)."""
    server = real_time_server
    host = server.post("/api/rooms", {"name": "Dee"})
    code = host["code"]
    seats = {n: server.post(f"/api/rooms/{code}/players", {"name": n})
             for n in ("Eve", "Fay", "Gus")}
    dee, eve, fay, gus = phone(), phone(locale="ar-EG"), phone(locale="id-ID"), phone()
    holds = {page: Hold(page) for page in (eve, fay, gus)}  # before their rooms open
    ids = {n: seats[n]["player_id"] for n in seats} | {"Dee": host["player_id"]}
    open_seat(dee, server.base, code, host)
    open_seat(eve, server.base, code, seats["Eve"])
    open_seat(gus, server.base, code, seats["Gus"])
    tap(dee, "start-game")
    for page in (eve, gus):
        wait_view(page, "v.status === 'peek'")
    expect(eve.get_by_test_id("my-slot-left")).not_to_have_attribute("data-card", "")

    # the hand-over in the peek phase, over Eve's look (R16.2, R17.4)
    told_at_once(holds[eve], eve, NEW_HOST["ar"], to=ids["Eve"], by=ids["Dee"],
                 hand_over=lambda: leave(dee))
    expect(eve.get_by_test_id("my-slot-left")).not_to_have_attribute("data-card", "")  # still shown
    assert view(eve)["status"] == "peek"
    holds[eve].release()

    # Fay comes late: her looks are owed to her and show now (R16.3); the role comes to her
    open_seat(fay, server.base, code, seats["Fay"])
    expect(fay.get_by_test_id("my-slot-right")).not_to_have_attribute("data-card", "")
    told_at_once(holds[fay], fay, NEW_HOST["id"], to=ids["Fay"], by=ids["Eve"],
                 hand_over=lambda: leave(eve))
    expect(fay.get_by_test_id("my-slot-right")).not_to_have_attribute("data-card", "")
    expect(fay.get_by_test_id("peek-hide")).to_be_visible()  # the look can still be hidden
    holds[fay].release()

    told_at_once(holds[gus], gus, NEW_HOST["en"], to=ids["Gus"], by=ids["Fay"],
                 hand_over=lambda: leave(fay))
    holds[gus].release()
    # once told (4 s on screen), the notice goes; the crown on his cards stays (R17.4)
    expect(gus.get_by_test_id("banner")).to_have_count(0, timeout=10_000)
    assert view(gus)["host"] == seats["Gus"]["player_id"]
    expect(gus.locator("[data-testid=me] [data-testid=host-mark]:visible")).to_have_count(1)
