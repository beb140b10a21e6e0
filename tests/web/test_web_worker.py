"""The service worker takes every page it serves (issue 34): a page whose worker
activated while the page was still loading is not among those the worker's
`clients.claim()` takes in its `activate` (only pages already running are);
before the fix it stayed uncontrolled for good, and test_web_layout's wait for
the worker ended after 30 s with {"active": "activated", "controller": false}.
The page now asks its active worker to claim it, and says on <html data-worker>
how far its worker got (docs/testing.md, "Races found and fixed")."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Route

from tests.web.browser_kit import wait_for_worker
from tests.web.conftest import PHONE, Server

pytestmark = pytest.mark.browser


def test_a_page_loaded_while_its_worker_activates_is_taken(browser: Any, server: Server) -> None:
    """The interleaving of the failure, made exact: a room's page is requested
    before any worker exists; while its answer is held back, another page of the
    same phone registers the worker, which installs, activates and claims; then
    the room's page arrives. It ends up in the worker's control."""
    code = server.post("/api/rooms", {"name": "Ana"})["code"]
    ctx = browser.new_context(**PHONE)
    try:
        home = ctx.new_page()
        page = ctx.new_page()

        def after_the_claim(route: Route) -> None:
            home.goto(server.base + "/")  # registers the worker
            wait_for_worker(home)  # activated: its `activate` has claimed what it could
            route.continue_()

        page.route(re.compile(r"/r/[A-Z0-9]+$"), after_the_claim)
        page.goto(f"{server.base}/r/{code}")
        page.unroute(re.compile(r"/r/[A-Z0-9]+$"))
        wait_for_worker(page)
    finally:
        ctx.close()
