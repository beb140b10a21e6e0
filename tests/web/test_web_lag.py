"""R18.4 in the page: on a slow network the connection status shows the delay the
server measured (the view's `lag_ms`, above 250 ms), so a player knows why a call at
the very end of their 3 seconds may not count. The phone reaches the server through
a delaying TCP relay (tests/support/relay.py, 300 ms each way): its page, its files
and its websocket."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.support.relay import relay_in_thread
from tests.web.browser_kit import open_seat, wait_view

pytestmark = pytest.mark.browser


def test_r18_4_a_slow_network_shows_its_delay(server: Any, phone: Any) -> None:
    seat = server.post("/api/rooms", {"name": "Ana"})
    code = seat["code"]
    fast = phone()  # Ben, on loopback
    open_seat(fast, server.base, code, server.post(f"/api/rooms/{code}/players", {"name": "Ben"}))
    with relay_in_thread(server, 0.3) as relay:
        slow = phone()
        slow.set_default_timeout(20_000)  # every round trip takes 600 ms or more
        open_seat(slow, f"http://127.0.0.1:{relay.port}", code, seat)
        # the first pong comes ~1 s after hello; a delay that high gets an update at once
        v = wait_view(slow, "typeof v.lag_ms === 'number'", timeout=20_000)
        assert 300 <= v["lag_ms"] < 2_000, v["lag_ms"]
        status = slow.get_by_test_id("connection-status")
        expect(status).to_have_attribute("data-lag", re.compile(r"^\d+$"))
        expect(status).to_contain_text("Slow network")
        assert "may not count" in (status.get_attribute("title") or "")
        slow.close()
    # a phone on loopback: no delay to speak of, the status says Connected
    expect(fast.get_by_test_id("connection-status")).to_have_attribute("data-state", "open")
    assert fast.get_by_test_id("connection-status").get_attribute("data-lag") is None
    assert fast.errors == []
