"""The network drops: the client says it is reconnecting, keeps taps from going
nowhere, retries with backoff, and is back on its seat as soon as the network
returns (the `online` event). A token the server refuses (4401) is forgotten."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.web.browser_kit import open_seat, seat_key, store_seat, view, wait_js

pytestmark = pytest.mark.browser

# where the page's clock stops, ahead of its `Date.now()`: beyond the test's timeout
PAUSE_AHEAD_S = 600


def test_a_dropped_connection_comes_back_by_itself(server: Any, phone: Any) -> None:
    host = server.post("/api/rooms", {"name": "Ana"})
    server.post(f"/api/rooms/{host['code']}/players", {"name": "Ben"})
    page = phone()
    page.clock.install()  # the page's timers, stopped below: no backoff can reconnect it
    open_seat(page, server.base, host["code"], host)
    status = page.get_by_test_id("connection-status")
    expect(page.get_by_test_id("start-game")).to_be_enabled()

    page.context.set_offline(True)
    page.evaluate("() => window.crisp.socket().ws.close()")  # the connection drops
    expect(status).to_have_attribute("data-state", "reconnecting")
    # the phone has no network: the strip says so (the seat is kept, the taps wait)
    expect(page.get_by_test_id("reconnecting")).to_have_attribute("data-offline", "true")
    expect(page.get_by_test_id("reconnecting")).to_contain_text("You are offline")
    expect(status).to_contain_text("Offline")
    expect(page.get_by_test_id("start-game")).to_be_disabled()
    # retries fail while offline (the socket counts them): still reconnecting, same screen
    wait_js(page, "() => window.crisp.socket().attempt >= 2", "two failed retries (socket.attempt)")
    expect(status).to_have_attribute("data-state", "reconnecting")
    expect(page.get_by_test_id("room-code")).to_have_text(host["code"])

    # The `online` event reconnects at once, not at the end of a backoff: with the
    # page's clock stopped no timer of its can fire, and it still comes back.
    # The installed clock runs with real time until it is paused, so a pause at the
    # `Date.now()` just read is in the past by the time it arrives on a busy machine
    # ("Cannot fast-forward to the past"). Pause 10 minutes ahead instead (longer than
    # the test's own 300 s timeout, so never in the past): the jump fires each timer
    # then due once, while still offline (a backoff retry fails, and its next one
    # waits on the stopped clock); the `online` event drops whatever attempt is open.
    page.clock.pause_at(page.evaluate("() => Date.now()") / 1000 + PAUSE_AHEAD_S)
    page.context.set_offline(False)
    expect(status, "reconnected by the `online` event (the page's timers stopped)") \
        .to_have_attribute("data-state", "open")
    page.clock.resume()
    expect(page.get_by_test_id("reconnecting")).to_have_count(0)
    expect(page.get_by_test_id("start-game")).to_be_enabled()
    assert view(page)["you"] == host["player_id"]


def test_a_refused_token_is_forgotten_and_the_join_form_comes_back(server: Any, phone: Any) -> None:
    host = server.post("/api/rooms", {"name": "Ana"})
    code = host["code"]
    page = phone()
    stale = {"token": "not-a-valid-token-" + "x" * 20, "player_id": "p2"}
    store_seat(page, server.base, code, stale)
    page.goto(f"{server.base}/r/{code}")  # hello is refused with 4401
    expect(page.get_by_test_id("room-code-input")).to_have_value(code)
    expect(page.get_by_test_id("join-room")).to_be_visible()
    expect(page.locator(".note.warn")).to_contain_text("no longer valid")
    assert page.evaluate("(k) => localStorage.getItem(k)", seat_key(code)) is None
