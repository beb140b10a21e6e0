"""R18.5 in the page: "Move to another phone" in the table's menu shows a QR code and
the link `/r/{code}#move={move_code}` with the time left; another phone opens the link
and has the seat at once, without a name; the old phone says where its seat went.
The host's menu offers the same for an away seat (R17.2). Three phones in one test:
each its own browser context (its own storage), like three devices."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.web.browser_kit import open_seat, settle, tap, view, wait_view

pytestmark = pytest.mark.browser


def _game(server: Any, phone: Any) -> tuple[str, str, Any, Any]:
    """Ana (host) and Ben at a table in play, each on a phone: (code, Ben's id, Ana, Ben)."""
    seat = server.post("/api/rooms", {"name": "Ana"})
    code = seat["code"]
    ben_seat = server.post(f"/api/rooms/{code}/players", {"name": "Ben"})
    ana, ben = phone(), phone()
    open_seat(ana, server.base, code, seat)
    open_seat(ben, server.base, code, ben_seat)
    tap(ana, "start-game")
    wait_view(ben, "v.status === 'playing'")  # the peek phase is 1 s at this time scale
    return code, ben_seat["player_id"], ana, ben


def _link_in_dialog(page: Any, base: str, code: str) -> str:
    """The move dialog's link, once its QR code is drawn; checks the time left."""
    expect(page.get_by_test_id("move-dialog")).to_be_visible()
    expect(page.get_by_test_id("move-qr").locator("svg path")).to_have_count(1)
    link = page.get_by_test_id("move-link").inner_text()
    assert re.fullmatch(rf"{re.escape(base)}/r/{code}#move=[A-Z2-9]{{10}}", link), link
    left = int(page.get_by_test_id("move-left").get_attribute("data-left"))
    assert 100 <= left <= 120, left  # 2 minutes of real time, never scaled (R18.5)
    # the QR code drawn is the link's: the client's generator, asked again for the link
    drawn = page.get_by_test_id("move-qr").locator("svg path").get_attribute("d")
    wanted = settle(
        page, "async (link) => (await import('/js/qr.js')).qrSvg(link, '').children[1].props.d",
        link, what="the QR path of the move link (js/qr.js imported)")
    assert drawn == wanted and drawn
    return str(link)


def _takes_the_seat(page: Any, link: str, base: str, code: str, seat: str) -> None:
    page.goto(link)
    expect(page.get_by_test_id("connection-status")).to_have_attribute("data-state", "open")
    assert wait_view(page, f"v.you === {seat!r}")["status"] == "playing"
    assert page.url == f"{base}/r/{code}"  # the code left the address bar
    expect(page.get_by_test_id("name-input")).to_have_count(0)  # no name was asked


def test_r18_5_a_seat_moves_to_another_phone_through_the_link_of_its_qr_code(
    server: Any, phone: Any
) -> None:
    code, ben_id, ana, ben = _game(server, phone)
    tap(ben, "settings-button")
    tap(ben, "menu-move-seat")
    link = _link_in_dialog(ben, server.base, code)
    tablet = phone()
    _takes_the_seat(tablet, link, server.base, code, ben_id)
    # the old phone lost the seat and says where it went
    expect(ben.get_by_test_id("name-input")).to_be_visible()
    expect(ben.locator(".note.warn")).to_contain_text("moved to another phone")
    wait_view(ana, f"v.players.find((p) => p.id === {ben_id!r}).connected")
    # the link works once
    late = phone()
    late.goto(link)
    expect(late.locator(".note.warn")).to_contain_text("already used")
    assert ana.errors == [] and ben.errors == [] and tablet.errors == [] and late.errors == []


def test_r18_5_the_host_moves_an_away_seat_from_the_menu(server: Any, phone: Any) -> None:
    code, ben_id, ana, ben = _game(server, phone)
    tap(ana, "settings-button")
    expect(ana.get_by_test_id(f"menu-move-seat-{ben_id}")).to_have_count(0)  # Ben is here
    tap(ana, "settings-button")
    ben.close()  # Ben's phone dies; away 2 s later at this time scale (R17.2)
    wait_view(ana, f"v.players.find((p) => p.id === {ben_id!r}).away", timeout=15000)
    tap(ana, "settings-button")
    tap(ana, f"menu-move-seat-{ben_id}")
    expect(ana.get_by_test_id("move-dialog")).to_contain_text("Ben")
    link = _link_in_dialog(ana, server.base, code)
    tap(ana, "move-close")
    expect(ana.get_by_test_id("move-dialog")).to_have_count(0)
    new_phone = phone()
    _takes_the_seat(new_phone, link, server.base, code, ben_id)
    wait_view(ana, f"!v.players.find((p) => p.id === {ben_id!r}).away")  # back (R17.2)
    assert view(new_phone)["you"] == ben_id
    assert ana.errors == [] and new_phone.errors == []
