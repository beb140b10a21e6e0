"""A removal locks the room (docs/protocol-additions.md, "Locked rooms"), in the
page: the lobby says so, the removed player's join is refused with a message, the
join form says the room is locked, and the host lets new players in again.
Also: the room code shown in two groups, typed in any form."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.web.browser_kit import join_via_link, open_seat, tap, view, wait_view

pytestmark = pytest.mark.browser


def test_a_removal_locks_the_room_until_the_host_opens_it(server: Any, phone: Any) -> None:
    seat = server.post("/api/rooms", {"name": "Ana"})
    code = seat["code"]
    ana, ben = phone(), phone()
    open_seat(ana, server.base, code, seat)
    groups = ana.get_by_test_id("room-code").locator(".code-group")
    expect(groups).to_have_count(2)
    expect(groups.first).to_have_text(code[:4])
    expect(ana.get_by_test_id("lock-room")).to_be_visible()  # the host may lock at any time

    # Ben types the code the way it is read out: lower case, with a dash
    ben.goto(server.base + "/")
    ben.get_by_test_id("name-input").fill("Ben")
    ben.get_by_test_id("room-code-input").fill(f"{code[:4].lower()}-{code[4:].lower()}")
    tap(ben, "join-room")
    expect(ben.get_by_test_id("connection-status")).to_have_attribute("data-state", "open")
    ben_id = view(ben)["you"]
    expect(ana.locator("[data-testid=player-list] li")).to_have_count(2)

    tap(ana, f"kick-{ben_id}")
    expect(ana.get_by_test_id("lock-panel")).to_have_attribute("data-locked", "true")
    expect(ana.get_by_test_id("lock-panel")).to_contain_text("locked")
    expect(ben.get_by_test_id("name-input")).to_be_visible()  # removed: the home screen

    # Ben tries again through the link: the form says the room is locked, the join fails
    ben.goto(f"{server.base}/r/{code}")
    expect(ben.locator(".note:not([data-testid=room-game])")).to_contain_text("locked by its host")
    ben.get_by_test_id("name-input").fill("Ben")
    tap(ben, "join-room")
    expect(ben.get_by_test_id("toast")).to_contain_text("The host has locked this room")
    expect(ana.locator("[data-testid=player-list] li")).to_have_count(1)

    tap(ana, "unlock-room")  # the host's consent
    wait_view(ana, "v.locked === false")
    expect(ana.get_by_test_id("lock-room")).to_be_visible()
    join_via_link(ben, server.base, code, "Ben")
    expect(ana.locator("[data-testid=player-list] li")).to_have_count(2)
