"""The web shell and the per-game tables (issue 35, item 6):

- no Crisp word outside web/js/games/crisp/ (the shell knows no card rule), and
  the shell imports no game's module statically (each is loaded with import() for
  its own rooms only); the page names every game's modules for the service worker;
- the home page offers the games GET /api/games lists (name, players, what it is,
  in every language; a game without a translation shows its id), or Crisp alone
  when the server has no list (404); creating a room names the game chosen; a
  room's link loads that game's table and no other;
- a seated player's reload of /r/{code}, with no service worker and a slow
  network, never paints the join form: the cookie `crisp_seats` (the room codes,
  never a token; set when a seat is taken, cleared on leave) makes the server
  send "Loading your seat…" instead.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.web.browser_kit import (
    assert_touch_targets,
    axe_violations,
    join_via_link,
    open_seat,
    store_seat,
    switch_language,
    tap,
    view,
    wait_js,
)
from tests.web.conftest import PHONE, REPORT_CSP_VIOLATIONS

expect: Any = None  # playwright's, imported where a browser test runs

ROOT = Path(__file__).resolve().parents[2]
WEB_JS = ROOT / "web" / "js"
GAMES = WEB_JS / "games"

# Crisp's own words (its view's fields and options, its actions and cards' roles):
# each may be written only in web/js/games/crisp/, code and comments alike.
CRISP_WORDS = re.compile(
    r"discard_draw|draw_seconds|extra_draws|stock_count|final_turns_left|discard_top"
    r"|draw_deadline|may_start_at|drawn_from|peek_ends_at|crisp_?[wW]indow|canCrisp|crispEnd"
    r"|\bslots?\b|\bSLOTS\b|\bSlot\b|\b[qQ]ueens?\b|\b[jJ]acks?\b|\b[kK]ings?\b|\bpeek(s|ed)?\b"
    r"|\b(ActionType|EventKind)\.CRISP\b|crisp (call|button|bar|window)|call(s|ed)? crisp"
)


def shell_modules() -> list[Path]:
    return sorted(p for p in WEB_JS.rglob("*.js") if GAMES not in p.parents)


def test_no_crisp_word_outside_its_folder() -> None:
    found = []
    for path in shell_modules():
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for m in CRISP_WORDS.finditer(line):
                found.append(f"{path.relative_to(ROOT)}:{n}: {m.group(0)!r} in {line.strip()[:90]}")
    assert found == [], "Crisp's words belong in web/js/games/crisp/:\n" + "\n".join(found)
    # the check sees them where they belong
    crisp = " ".join(p.read_text(encoding="utf-8") for p in (GAMES / "crisp").rglob("*.js"))
    for word in (
        "discard_draw",
        "draw_seconds",
        "extra_draws",
        "stock_count",
        "final_turns_left",
        "discard_top",
        "SLOTS",
        "queen",
        "peek",
    ):
        assert CRISP_WORDS.search(word) and word in crisp, word


STATIC_IMPORT = re.compile(
    r"""^\s*(?:import|export)\s+(?:[\w*{}\s,$]+?\s+from\s+)?['"]([^'"]+)['"]""", re.M
)


def test_the_shell_loads_a_game_only_with_import() -> None:
    for path in shell_modules():
        for spec in STATIC_IMPORT.findall(path.read_text(encoding="utf-8")):
            target = (path.parent / spec).resolve()
            assert GAMES not in target.parents, (
                f"{path.relative_to(ROOT)} imports {spec} statically"
            )
    registry = (WEB_JS / "games.js").read_text(encoding="utf-8")
    assert "import(`./games/${id}/index.js`)" in registry
    # each game's folder has its module, which names itself
    for folder in (p for p in GAMES.iterdir() if p.is_dir()):
        index = folder / "index.js"
        assert index.exists(), folder
        assert "export const game" in index.read_text(encoding="utf-8"), index


def test_the_page_names_every_game_module_for_the_worker() -> None:
    """Every game's modules and every stylesheet (a game's own is linked by its
    module): the worker keeps them, so a game's table is styled offline too."""
    from crisp.server.app import create_app

    web = ROOT / "web"
    files = [*GAMES.rglob("*.js"), *(web / "css").glob("*.css")]
    modules = sorted(str(p.relative_to(web)) for p in files)
    assert "css/cribbage.css" in modules and "css/crapette.css" in modules
    assert "js/games/crisp/index.js" in modules

    async def page() -> str:
        transport = httpx.ASGITransport(app=create_app())
        async with httpx.AsyncClient(transport=transport, base_url="http://crisp.test") as c:
            r = await c.get("/r/K7QXM3RT")
            assert r.status_code == 200
            return r.text

    import asyncio

    html = asyncio.run(page())
    meta = re.search(r'<meta name="crisp-game-modules" content="([^"]+)">', html)
    assert meta, html[:2000]
    named = sorted(re.sub(r"^/v/[0-9a-f]+/", "", url) for url in meta.group(1).split())
    assert named == modules
    # loaded only for a room of their game: never preloaded by the page
    preloaded = re.findall(r'<link rel="modulepreload" href="/v/[0-9a-f]+/([^"]+)">', html)
    assert not [p for p in preloaded if p.startswith("js/games/")]
    # sw.js keeps every /v/<version>/ file a page names (its NAMED pattern)
    sw = (ROOT / "web" / "sw.js").read_text(encoding="utf-8")
    assert "html.matchAll(NAMED)" in sw and "crisp-game-modules" in sw


def test_the_seats_cookie_is_read_for_the_first_screen_only() -> None:
    """The server's side of the cookie: the codes it names, nothing else."""
    from crisp.server.http.shell import seated_codes

    assert seated_codes("K7QXM3RT.ABCD2345") == {"K7QXM3RT", "ABCD2345"}
    assert seated_codes(None) == set() and seated_codes("") == set()
    assert seated_codes("k7qx-m3rt.<script>") == {"K7QXM3RT", "SCRIPT"}  # letters and digits only
    assert seated_codes("A" * 5000) == {"AAAAAAAA"}


# ---- in the browser


@pytest.fixture(autouse=True)
def _expect() -> None:
    global expect
    from playwright.sync_api import expect as pw_expect

    expect = pw_expect


GAMES_LIST = {
    "games": [
        {
            "id": "crisp",
            "seats": {"min": 2, "max": 8},
            "teams": False,
            "options": {
                "limit": {"default": 100, "choices": [50, 100, 150]},
                "draw_seconds": {"default": 30, "choices": [None, 30, 45, 60]},
                "discard_draw": {"default": False, "choices": [False, True]},
                "watchers": {"default": True, "choices": [True, False]},
                "mystery_rule": {"default": "x", "choices": ["x", "y"]},
            },
        },
        {"id": "cribbage", "seats": {"min": 2, "max": 4}, "teams": True, "options": {}},
        {"id": "nogame", "seats": {"min": 2, "max": 2}, "teams": False, "options": {}},
    ]
}

NAMES = {
    "en": ("Choose a game", "Crisp", "Cribbage", "Players: 2\u20134", "Players: 2"),
    "ar": (
        "اختر لعبة",
        "كريسب",
        "الكريبج",
        "اللاعبون: \u20682\u2069\u2013\u20684\u2069",
        "اللاعبون: \u20682\u2069",
    ),
    "id": ("Pilih permainan", "Crisp", "Cribbage", "Pemain: 2\u20134", "Pemain: 2"),
}


def test_the_home_page_offers_the_games_and_creates_the_one_chosen(phone: Any, server: Any) -> None:
    page = phone()
    page.route(
        "**/api/games",
        lambda route: route.fulfill(
            status=200, content_type="application/json", body=json.dumps(GAMES_LIST)
        ),
    )
    sent: list[dict[str, Any]] = []

    def create(route: Any) -> None:
        if route.request.method != "POST":
            route.continue_()
            return
        body = json.loads(route.request.post_data or "{}")
        sent.append(body)
        if body.get("game") == "nogame":  # as a v2 server answers a game it does not host
            route.fulfill(
                status=422,
                content_type="application/json",
                body=json.dumps({"error": {"code": "unknown_game", "message": "no"}}),
            )
        else:
            route.continue_()

    page.route("**/api/rooms", create)
    page.goto(server.base + "/")
    panel = page.get_by_test_id("games")
    expect(panel).to_be_visible()
    for lang, (title, crisp, cribbage, seats, exact) in NAMES.items():
        switch_language(page, lang)
        expect(panel.locator("h2")).to_have_text(title)
        choices = panel.locator(".game-choice")
        expect(choices).to_have_count(3)
        expect(choices.nth(0).locator(".game-name")).to_have_text(crisp)
        expect(choices.nth(0).locator(".game-about")).not_to_be_empty()
        expect(choices.nth(1).locator(".game-name")).to_have_text(cribbage)
        expect(choices.nth(1).locator(".game-seats")).to_have_text(seats)
        # a game this client has no words for shows its id, and its players
        expect(choices.nth(2).locator(".game-name")).to_have_text("nogame")
        expect(choices.nth(2).locator(".game-seats")).to_have_text(exact)
        expect(choices.nth(2).locator(".game-about")).to_have_count(0)
        assert page.evaluate("() => document.documentElement.scrollWidth") <= 360, lang
        if lang in ("en", "ar"):  # as test_web_a11y.py checks every screen
            assert axe_violations(page) == [], lang
            assert_touch_targets(page)
    switch_language(page, "en")
    expect(page.get_by_test_id("game-crisp")).to_be_checked()
    # a game the server refuses: the page says so and stays
    page.get_by_test_id("game-nogame").check()
    page.get_by_test_id("name-input").fill("Ana")
    tap(page, "create-room")
    expect(page.get_by_test_id("toast")).to_have_text("This server does not host that game.")
    assert sent[-1] == {"name": "Ana", "game": "nogame"}
    # Crisp, named too; the lobby shows the game's listed options
    page.get_by_test_id("game-crisp").check()
    tap(page, "create-room")
    expect(page.get_by_test_id("room-code")).to_be_visible()
    assert sent[-1] == {"name": "Ana", "game": "crisp"}
    expect(page.get_by_test_id("room-game")).to_have_text("Game: Crisp")
    expect(page.locator(".players-head h2")).to_have_text("Players (1 of 8)")  # its seats
    for testid in ("option-limit", "option-draw-seconds", "option-discard-draw", "option-watchers"):
        expect(page.get_by_test_id(testid)).to_be_visible()
    # an option without a translation shows its name and values as they are
    mystery = page.get_by_test_id("option-mystery-rule")
    expect(mystery).to_be_visible()
    expect(mystery.locator("option")).to_have_text(["x", "y"])
    expect(page.locator(".options label", has=mystery)).to_contain_text("mystery_rule")
    expect(page.get_by_test_id("option-draw-seconds").locator("option")).to_have_text(
        ["No time limit", "30 seconds", "45 seconds", "60 seconds"]
    )
    assert view(page).get("game", "crisp") == "crisp"


def test_without_a_games_list_the_home_page_offers_crisp_alone(phone: Any, server: Any) -> None:
    page = phone()
    page.route(
        "**/api/games",
        lambda route: route.fulfill(
            status=404,
            content_type="application/json",
            body='{"error": {"code": "not_found", "message": ""}}',
        ),
    )
    page.goto(server.base + "/")
    expect(page.get_by_test_id("create-room")).to_be_enabled()
    # the one game, said, with nothing to choose
    panel = page.get_by_test_id("games")
    expect(panel.locator("h2")).to_have_text("On this server")
    expect(page.get_by_test_id("game-crisp").locator(".game-name")).to_have_text("Crisp")
    expect(page.get_by_test_id("game-crisp").locator(".game-about")).not_to_be_empty()
    expect(panel.locator("input")).to_have_count(0)
    page.get_by_test_id("name-input").fill("Ana")
    tap(page, "create-room")
    expect(page.get_by_test_id("room-code")).to_be_visible()
    expect(page.get_by_test_id("room-game")).to_have_count(0)  # one game: nothing to say
    # the options the room's view has, drawn as Crisp's module knows them
    for testid in ("option-limit", "option-draw-seconds", "option-discard-draw", "option-watchers"):
        expect(page.get_by_test_id(testid)).to_be_visible()


def test_a_room_link_loads_its_games_table_and_no_other(phone: Any, server: Any) -> None:
    host = server.post("/api/rooms", {"name": "Ana"})
    page = phone()
    scripts: list[str] = []
    page.on("request", lambda r: scripts.append(r.url) if r.resource_type == "script" else None)
    page.goto(server.base + "/")
    expect(page.get_by_test_id("create-room")).to_be_enabled()
    assert not [u for u in scripts if "/js/games/" in u], "no game's module on the home page"
    open_seat(page, server.base, host["code"], host)
    expect(page.get_by_test_id("room-code")).to_be_visible()
    games = {re.search(r"/js/games/([^/]+)/", u).group(1) for u in scripts if "/js/games/" in u}  # type: ignore[union-attr]
    assert games == {"crisp"}, games


# A page that records whether the join form was ever in the document (it is
# parsed into the DOM only if the server sent it or the client drew it), and what
# the first screen said.
WATCH_FIRST_SCREEN = """
window.joinFormSeen = false;
window.seatScreenSeen = false;
const look = () => {
  const ids = ['room-code-input', 'join-room', 'name-input'];
  const form = ids.map((id) => `[data-testid="${id}"]`).join();
  if (document.querySelector(form)) window.joinFormSeen = true;
  const text = document.body ? document.body.textContent : '';
  if (/Loading your seat/.test(text)) window.seatScreenSeen = true;
};
const all = { childList: true, subtree: true, characterData: true };
new MutationObserver(look).observe(document, all);
document.addEventListener('DOMContentLoaded', look);
"""


def seats_cookie(ctx: Any) -> dict[str, Any] | None:
    return next((c for c in ctx.cookies() if c["name"] == "crisp_seats"), None)


def test_a_seated_reload_without_the_worker_never_paints_the_join_form(
    browser: Any, server: Any
) -> None:
    host = server.post("/api/rooms", {"name": "Ana"})
    code = host["code"]
    ctx = browser.new_context(**PHONE, service_workers="block")
    try:
        ctx.add_init_script(REPORT_CSP_VIOLATIONS)
        page = ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        # the seat is taken on this phone: the cookie names the room, never the token
        join_via_link(page, server.base, code, "Budi")
        cookie = seats_cookie(ctx)
        assert cookie is not None
        assert cookie["value"] == code and cookie["path"] == "/" and cookie["sameSite"] == "Lax"
        token = page.evaluate(
            "(k) => JSON.parse(localStorage.getItem(k)).token", f"crisp.seat.{code}"
        )
        assert token and token not in json.dumps(ctx.cookies())
        # a slow network and no worker: the page and every module take their time
        ctx.add_init_script(WATCH_FIRST_SCREEN)
        cdp = ctx.new_cdp_session(page)
        cdp.send("Network.enable")
        cdp.send(
            "Network.emulateNetworkConditions",
            {
                "offline": False,
                "latency": 300,
                "downloadThroughput": 60_000,
                "uploadThroughput": 30_000,
            },
        )
        page.reload(wait_until="commit")
        expect(page.get_by_test_id("connection-status")).to_have_attribute(
            "data-state", "open", timeout=60_000
        )
        expect(page.get_by_test_id("room-code")).to_be_visible()
        assert page.evaluate("() => window.seatScreenSeen"), (
            "the first screen said it loads the seat"
        )
        assert page.evaluate("() => window.joinFormSeen") is False, "the join form was painted"
        cdp.send(
            "Network.emulateNetworkConditions",
            {
                "offline": False,
                "latency": 0,
                "downloadThroughput": -1,
                "uploadThroughput": -1,
            },
        )
        # leaving clears it: the same link then shows the join form (the check sees it)
        tap(page, "leave-room")
        tap(page, "leave-confirm")
        expect(page.get_by_test_id("create-room")).to_be_visible()
        assert seats_cookie(ctx) is None
        # a cookie older than the seats (the seat gone meanwhile): the server trusts
        # it for the first screen only; the client, with no seat, draws the join form
        # and puts the cookie right
        ctx.add_cookies([{"name": "crisp_seats", "value": code, "url": server.base}])
        page.goto(f"{server.base}/r/{code}")
        expect(page.get_by_test_id("room-code-input")).to_have_value(code)
        assert page.evaluate("() => window.joinFormSeen") is True
        assert page.evaluate("() => window.seatScreenSeen") is True
        assert seats_cookie(ctx) is None
        assert errors == []
    finally:
        ctx.close()


def test_a_room_of_a_game_without_a_table_here_keeps_its_lobby_and_says_so(
    phone: Any, server: Any
) -> None:
    """A room whose views name a game this client has no module for (the server
    renamed here to one: `nogame`): the shell's lobby works, its options shown by
    their names; once it starts, the page says it cannot show that game (no
    endless "Loading…"), and no table of it is stored (its hidden cards unknown)."""
    host = server.post("/api/rooms", {"name": "Ana"})
    code = host["code"]
    page = phone()

    def rename(ws: Any) -> None:
        to_server = ws.connect_to_server()

        def relay(message: str | bytes) -> None:
            msg = json.loads(message if isinstance(message, str) else message.decode())
            if isinstance(msg.get("view"), dict):
                msg["view"]["game"] = "nogame"
            ws.send(json.dumps(msg))

        to_server.on_message(relay)

    page.route_web_socket(re.compile(r"/ws/"), rename)
    open_seat(page, server.base, code, host)
    expect(page.get_by_test_id("room-code")).to_be_visible()
    assert view(page)["game"] == "nogame"
    expect(page.get_by_test_id("option-watchers")).to_be_visible()
    expect(page.get_by_test_id("option-draw-seconds")).to_be_visible()
    expect(page.locator(".options")).to_contain_text("draw_seconds")  # no words for it here
    tap(page, "add-bot")
    expect(page.get_by_test_id("player-list").locator("li")).to_have_count(2)
    tap(page, "start-game")
    expect(page.get_by_test_id("game-missing")).to_have_text(
        "This page cannot show a game of nogame yet."
    )
    stored = page.evaluate("(k) => localStorage.getItem(k)", f"crisp.table.{code}")
    assert stored is None


def test_the_room_says_open_only_with_its_view_while_its_game_loads(
    browser: Any, server: Any
) -> None:
    """The socket's first update arrives before the game's module (held here): the
    header does not say "open" until that update is applied, so an open room
    always has its view (a browser test read a null view right after "open" in CI
    when the module came late; docs/testing.md "Races found and fixed")."""
    host = server.post("/api/rooms", {"name": "Ana"})
    code = host["code"]
    ctx = browser.new_context(**PHONE, service_workers="block")
    try:
        page = ctx.new_page()
        held: list[Any] = []
        page.route(re.compile(r"/js/games/crisp/index\.js"), lambda route: held.append(route))
        store_seat(page, server.base, code, host)
        page.goto(f"{server.base}/r/{code}")
        wait_js(page, "() => { const s = window.crisp && window.crisp.socket();"
                " return !!s && s.healthy; }", "the first update on the socket")
        assert held, "the game's module was asked for"
        state = page.evaluate("() => [window.crisp.state.conn, window.crisp.state.view]")
        assert state == ["connecting", None], state
        for route in held:
            route.continue_()
        expect(page.get_by_test_id("connection-status")).to_have_attribute("data-state", "open")
        assert view(page)["you"] == host["player_id"]
    finally:
        ctx.close()
