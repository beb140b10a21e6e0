"""Cribbage's table (issue 36 items 4, 6, 7) drawn from real views
(tests/web/fixtures/cribbage_views.json, made by cribbage_make.py from seeded games
of crisp.games.cribbage with 2, 3 and 4 players): the real page, its shell and the
game's module, given each view as the server would send it (update.js
applyUpdate, then the store), for:

- the layout checks of the matrix (tests/web/layout.js: nothing wider than the
  screen, no text clipped, every seat's name told apart) and, besides, no element
  of the page outside the screen sideways, for every phase (give, play, show,
  hand_over, game_over, and a muggins claim) x 2/3/4 players x en/ar/id at
  360x640, 390 and 412 px wide;
- the taps (a harness page, tests/web/fixtures/cribbage_harness.html, that keeps
  the messages sent): choosing and giving cards, laying only a playable card, the
  reason on a card that is not, the show's skip, the coach's setting, a muggins
  claim; How to play's worked examples in every language.

With CRISP_CRIBBAGE_SHOTS=1 the screenshots of docs/img/cribbage-*.png are made
again (give, play, show, game over x 2 and 4 players x en, ar, id, at 360x640).
"""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, Route

from crisp.games.cribbage import vocabulary as server_vocabulary
from tests.web.browser_kit import (
    LAYOUT_PROBLEMS,
    axe_violations,
    home_page,
    open_seat,
    settle,
    tap,
    view,
    wait_js,
    wait_settled,
    wait_view,
)
from tests.web.js_source import WEB_JS

pytestmark = pytest.mark.browser

HERE = Path(__file__).parent
ROOT = HERE.parents[1]
VIEWS: dict[str, Any] = json.loads(
    (HERE / "fixtures" / "cribbage_views.json").read_text(encoding="utf-8")
)
EVENTS: dict[str, Any] = json.loads(
    (HERE / "fixtures" / "cribbage_events.json").read_text(encoding="utf-8")
)
LANGS = ("en", "ar", "id")
WIDTHS = (360, 390, 412)
SMALL = {"width": 360, "height": 640}
DOCS_IMG = ROOT / "docs" / "img"
SHOTS = bool(os.environ.get("CRISP_CRIBBAGE_SHOTS"))
PHASES = ("give", "play", "show", "hand_over", "game_over")

# Give the page a view as an update from the server would (update.js, then the store).
SHOW = """async ([view, events, lang]) => {
  const base = new URL('.', document.querySelector('script[type=module][src*="app.js"]').src).href;
  const store = await import(base + 'store.js');
  const games = await import(base + 'games.js');
  const update = await import(base + 'update.js');
  const game = await games.loadGame('cribbage');
  let S = { ...store.getState(), screen: 'room', code: 'CR1B', conn: 'open', stale: false,
    booting: false,
    ...game.roomState() };
  S = update.applyUpdate(S, { type: 'update', view, events, now: 1000000, seq: 2 },
    Date.now()).state;
  store.replaceState(S);
  await window.crisp.language(lang);
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  return document.documentElement.lang;
}"""

# Every element of the page inside the screen sideways (but what is hidden, and
# what scrolls inside a box of its own).
OUTSIDE = """() => {
  const vw = innerWidth;
  const out = [];
  for (const el of document.querySelectorAll('#app *')) {
    const r = el.getBoundingClientRect();
    if (r.width < 0.5 || r.height < 0.5) continue;
    if (el.closest('[hidden], .sr-only, details:not([open]) > :not(summary)')) continue;
    if (el.closest('svg') && el.localName !== 'svg') continue;
    if (r.left < -0.5 || r.right > vw + 0.5) {
      const name = el.dataset.testid || el.className.baseVal || el.className || el.localName;
      out.push(`${name}: x ${Math.round(r.left)}..${Math.round(r.right)}`);
    }
  }
  return out.slice(0, 8);
}"""


def fixture_views() -> list[str]:
    return [f"{phase}-{n}" for phase in PHASES for n in ("2", "3", "4")] + [
        "show_claim-2m",
        "hand_over-2m",
        "cut-2",
        "cut-4",
    ]


def inside(key: str) -> list[list[Any]]:
    v = VIEWS[key]
    sel = ["[data-testid=cb-board]", "[data-testid=scoreboard]", "[data-testid=cb-todo]"]
    status = v["status"]
    if status in ("give", "play"):
        sel += [f"[data-testid=cb-card-{i}]" for i in range(len(v["hand"]))]
        sel += ["[data-testid=cb-crib]", "[data-testid=cb-starter]"]
    if status == "give":
        sel.append("[data-testid=cb-give]")
    if status == "play":
        sel += ["[data-testid=cb-count]", "[data-testid=cb-series]"]
    if status == "show":
        sel.append("[data-testid=cb-show]")
    if status == "hand_over" and v["hand_no"]:
        sel += ["[data-testid=cb-summary]", "[data-testid=cb-coach]"]
    if status == "game_over":
        sel += [
            "[data-testid=cb-game-over]",
            "[data-testid=cb-match]",
            "[data-testid=cb-game-points]",
        ]
    if v.get("claim"):
        sel.append("[data-testid=cb-claim]")
    return [[s, False] for s in sel]


def show(page: Page, key: str, lang: str) -> None:
    got = settle(
        page,
        SHOW,
        [VIEWS[key], EVENTS.get(key, []), lang],
        what=f"the view {key!r} shown in {lang!r}",
    )
    assert got == lang
    page.wait_for_selector(".cb-table")


@pytest.fixture
def table_page(phone: Any, server: Any) -> Page:
    return home_page(phone, server.base, scale=2 if SHOTS else 1)


def test_every_phase_and_seat_count_fits_the_screen_in_every_language(table_page: Page) -> None:
    page = table_page
    found: list[str] = []
    for key in fixture_views():
        for width in WIDTHS:
            page.set_viewport_size({"width": width, "height": 640 if width == 360 else 844})
            for lang in LANGS:
                show(page, key, lang)
                opts = {"width": width, "inside": inside(key), "host": False, "fit": False}
                found += [
                    f"{key} @{width} {lang}: {p}"
                    for p in page.evaluate("(opts) => (" + LAYOUT_PROBLEMS + ")(opts)", opts)
                ]
                found += [
                    f"{key} @{width} {lang}: outside the screen: {p}"
                    for p in page.evaluate(OUTSIDE)
                ]
    assert not found, "\n".join(found)


def test_axe_finds_no_violation_at_the_table(table_page: Page) -> None:
    """WCAG 2.1 A/AA (axe-core, as test_web_a11y.py runs it) in every phase, with
    4 players, in English and Arabic."""
    page = table_page
    found: list[str] = []
    for key in ("give-4", "play-4", "show-4", "hand_over-4", "game_over-4", "show_claim-2m"):
        for lang in ("en", "ar"):
            show(page, key, lang)
            page.click("[data-testid=cb-skip]") if page.locator(
                "[data-testid=cb-skip]"
            ).count() else None
            found += [f"{key} {lang}: {v['id']} {v['nodes'][:2]}" for v in axe_violations(page)]
    assert not found, "\n".join(found)


@pytest.mark.skipif(not SHOTS, reason="CRISP_CRIBBAGE_SHOTS=1 makes docs/img/cribbage-*.png again")
def test_screenshots_for_the_docs(table_page: Page) -> None:
    page = table_page
    page.set_viewport_size(SMALL)
    page.emulate_media(reduced_motion="reduce")
    for phase in ("give", "play", "show", "game_over"):
        for n in ("2", "4"):
            for lang in LANGS:
                show(page, f"{phase}-{n}", lang)
                page.evaluate("() => window.scrollTo(0, 0)")
                if phase == "show":  # the newest hand counted in full
                    page.click("[data-testid=cb-skip]")
                    page.wait_for_selector("[data-testid=cb-skip]", state="detached")
                wait_settled(page)
                name = f"cribbage-{phase.replace('_', '-')}-{n}p-{lang}.png"
                page.screenshot(path=str(DOCS_IMG / name))


def test_the_modules_wire_tables_are_the_servers_cribbage_enums() -> None:
    src = (WEB_JS / "games" / "cribbage" / "protocol.js").read_text(encoding="utf-8")

    def table(name: str) -> dict[str, str]:
        body = re.search(
            rf"^export const {name} = Object\.freeze\(\{{(.*?)^\}}\);", src, re.S | re.M
        )
        assert body, name
        return dict(re.findall(r"(\w+): '(\w+)'", body.group(1)))

    for js, enum in [
        ("CribStatus", server_vocabulary.Status),
        ("CribAction", server_vocabulary.ActionType),
        ("CribEvent", server_vocabulary.EventKind),
        ("CribItem", server_vocabulary.ItemKind),
    ]:
        assert table(js) == {m.name: str(m.value) for m in enum}, js


# ---- the taps, on the harness page (it keeps what is sent)

TYPES = {
    ".js": "text/javascript",
    ".css": "text/css",
    ".json": "application/json",
    ".html": "text/html",
    ".svg": "image/svg+xml",
    ".mjs": "text/javascript",
}


def _serve(route: Route) -> None:
    path = route.request.url.split("crisp.test", 1)[1].split("?")[0]
    if path == "/harness.html":
        route.fulfill(
            body=(HERE / "fixtures" / "cribbage_harness.html").read_text(encoding="utf-8"),
            content_type="text/html",
        )
        return
    f = (ROOT / "web" / path.lstrip("/")).resolve()
    if f.is_file() and (ROOT / "web") in f.parents:
        route.fulfill(
            body=f.read_bytes(), content_type=TYPES.get(f.suffix, "application/octet-stream")
        )
    else:
        route.fulfill(status=404, body="")


@pytest.fixture
def harness(browser: Any) -> Any:
    ctx = browser.new_context(viewport=SMALL, has_touch=True, is_mobile=True)
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.route("http://crisp.test/**", _serve)
    page.goto("http://crisp.test/harness.html")
    wait_js(
        page, "() => window.cribbageReady === true", "the harness page ready (window.cribbageReady)"
    )
    yield page
    ctx.close()
    assert not errors, errors


def put(page: Page, key: str, lang: str = "en", **extra: Any) -> dict[str, Any]:
    view = VIEWS[key]
    page.evaluate("([v, l, x]) => window.cribbage.show(v, l, x)", [view, lang, extra])
    page.wait_for_selector(".cb-table")
    return view


def sent(page: Page) -> list[dict[str, Any]]:
    return page.evaluate("() => window.cribbage.sent.slice()")


def test_giving_chooses_then_sends_the_cards(harness: Page) -> None:
    page = harness
    for key, n in (("give-2", 2), ("give-4", 1)):
        view = put(page, key)
        give = page.locator("[data-testid=cb-give]")
        assert give.is_disabled()
        for i in range(n):
            page.click(f"[data-testid=cb-card-{i}]")
        assert give.is_enabled()
        # enough chosen: the others are not enabled, and say why
        if len(view["hand"]) > n:
            assert page.get_attribute(f"[data-testid=cb-card-{n}]", "aria-disabled") == "true"
        page.click("[data-testid=cb-card-0]")  # a chosen card taken back
        assert give.is_disabled()
        page.click("[data-testid=cb-card-0]")
        give.click()
        msg = sent(page)[-1]
        assert msg["type"] == "give" and sorted(msg["cards"]) == sorted(view["hand"][:n])


def test_only_a_playable_card_is_laid_and_the_others_say_why(harness: Page) -> None:
    page = harness
    view = put(page, "play-2")
    before = len(sent(page))
    for i, card in enumerate(view["hand"]):
        on = page.get_attribute(f"[data-testid=cb-card-{i}]", "aria-disabled") == "false"
        assert on == (card in view["playable"])
        if not on:
            assert "over 31" in page.get_attribute(f"[data-testid=cb-card-{i}]", "aria-label")
            page.click(f"[data-testid=cb-card-{i}]", force=True)  # a tap on it sends nothing
            assert len(sent(page)) == before
    assert "over 31" in page.inner_text("[data-testid=cb-why]")
    i = view["hand"].index(view["playable"][0])
    page.click(f"[data-testid=cb-card-{i}]")
    assert sent(page)[-1] == {"type": "lay", "card": view["playable"][0]}


def test_the_show_counts_aloud_item_by_item_and_can_be_skipped(harness: Page) -> None:
    page = harness
    view = put(page, "show-2")
    last = view["show"][-1]
    entry = page.locator(f"[data-testid=cb-show-{last['whose']}]")
    words = entry.locator("[data-testid=cb-words]")
    if len(last["items"]) > 1:
        first = words.inner_text()
        assert "," not in first, first  # one item said so far
        assert entry.locator(".cb-chip.lit").count() == len(set(last["items"][0]["cards"]))
    page.click("[data-testid=cb-skip]")
    assert entry.locator(".cb-chip.lit").count() == 0
    text = words.inner_text()
    assert text.endswith(str(last["points"])) and ("and " in text or len(last["items"]) < 2), text
    assert page.locator("[data-testid=cb-skip]").count() == 0


def test_what_did_not_count_is_said(harness: Page) -> None:
    page = harness
    view = json.loads(json.dumps(VIEWS["hand_over-2"]))
    view["show"][-1]["notes"] = ["crib_flush_needs_starter"]
    page.evaluate("(v) => window.cribbage.show(v, 'en')", view)
    assert "a crib flush needs the starter" in page.inner_text("[data-testid=cb-summary]")


def test_the_coach_shows_the_numbers_and_its_setting_hides_it(harness: Page) -> None:
    page = harness
    view = put(page, "hand_over-2")
    coach = page.inner_text("[data-testid=cb-coach]")
    assert str(view["coach"]["expected"]) in coach
    page.click("[data-testid=cb-coach-toggle]")
    assert page.locator("[data-testid=cb-coach]").count() == 0
    assert page.evaluate("() => localStorage.getItem('crisp.cribbage.coach')") == "off"
    page.click("[data-testid=cb-coach-toggle]")
    assert page.locator("[data-testid=cb-coach]").count() == 1
    page.click("[data-testid=cb-ready]")
    assert sent(page)[-1] == {"type": "ready"}


def test_a_muggins_claim_is_sent(harness: Page) -> None:
    page = harness
    put(page, "show_claim-2m")
    for _ in range(3):
        page.click("[data-testid=cb-claim-more]")
    page.click("[data-testid=cb-claim-less]")
    assert page.inner_text("[data-testid=cb-claim-n]").strip() == "2"
    page.click("[data-testid=cb-claim-send]")
    assert sent(page)[-1] == {"type": "claim", "points": 2}


def test_partners_are_shown_as_partners_with_four_players(harness: Page) -> None:
    page = harness
    view = put(page, "play-4")
    partner = next(p for p in view["players"] if p["team"] == 0 and p["id"] != view["you"])
    assert page.locator(f"[data-testid=seat-{partner['id']}] [data-testid=cb-partner]").count() == 1
    assert page.locator("[data-testid=cb-partner]").count() == 1
    assert page.locator("[data-testid=scoreboard] li").count() == 2  # one side per team


def test_the_board_has_two_pegs_per_side_at_the_score_and_the_rear(harness: Page) -> None:
    page = harness
    view = put(page, "hand_over-3")
    for p in view["players"]:
        side = p["seat"]
        assert page.get_attribute(f"[data-testid=peg-{side}-front]", "data-hole") == str(p["score"])
        rear = page.locator(f"[data-testid=peg-{side}-rear]")
        if p["peg_from"] != p["score"]:
            assert rear.get_attribute("data-hole") == str(p["peg_from"])
        assert page.inner_text(f"[data-testid=score-{side}]").strip() == str(p["score"])


@pytest.mark.parametrize("lang", LANGS)
def test_how_to_play_has_the_worked_examples(harness: Page, lang: str) -> None:
    page = harness
    put(page, "play-2", lang)
    page.evaluate("(l) => window.cribbage.help(l)", lang)
    for ex in ("twenty", "twentynine", "pegging"):
        assert page.locator(f"[data-testid=cb-example-{ex}]").count() == 1
    text = page.inner_text("[data-testid=cb-example-twenty]")
    assert "20" in text and "6" in text
    assert "29" in page.inner_text("[data-testid=cb-example-twentynine]")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 360


# ---- a real room


def test_a_real_room_plays_a_hand_in_the_browser(phone: Any, server: Any) -> None:
    """Cut for the deal, give, lay and see the show of one hand against a computer
    player, through the real server."""
    host = server.post("/api/rooms", {"name": "Ana", "game": "cribbage"})
    page = phone(viewport=SMALL)
    open_seat(page, server.base, host["code"], host)
    tap(page, "add-bot")
    wait_view(page, "v.players.length === 2")
    tap(page, "start-game")
    page.wait_for_selector(".cb-table")
    end = time.monotonic() + 90
    seen: set[str] = set()
    while time.monotonic() < end:
        v = view(page)
        seen.add(v["status"])
        me = v["you"]
        if v["status"] == "hand_over" and not v["show"]:  # C3.1: the cut, shown a moment
            wait_view(page, "v.status !== 'hand_over' || v.show.length > 0")
        elif v["status"] == "give" and "give" in v["legal"]:
            page.click("[data-testid=cb-card-0]")
            page.click("[data-testid=cb-card-1]")
            page.click("[data-testid=cb-give]")
            wait_view(page, "v.gave.length > 0 || v.status !== 'give'")
        elif v["status"] == "play" and v["turn"] and v["turn"]["player"] == me and v["playable"]:
            i = v["hand"].index(v["playable"][0])
            page.click(f"[data-testid=cb-card-{i}]")
            wait_view(page, f"v.hand.length < {len(v['hand'])} || v.status !== 'play'")
        elif v["status"] in ("hand_over", "game_over") and v["show"]:
            summary = (
                page.inner_text("[data-testid=cb-summary]") if v["status"] == "hand_over" else ""
            )
            assert v["status"] == "game_over" or "crib" in summary.lower(), summary
            break
        else:  # the other player's move: until the table changes
            wait_js(
                page,
                "(ver) => window.crisp.state.view.version !== ver",
                "the table changed (the other player's move)",
                v.get("version"),
            )
    else:
        raise AssertionError(f"no hand over in 90 s (seen {sorted(seen)})")
    assert {"give", "play"} <= seen


def test_what_just_happened_is_said_under_the_turn_line(table_page: Page) -> None:
    """The newest event in words: a card laid with the count and what it pegged."""
    page = table_page
    show(page, "play-2", "en")
    last = EVENTS["play-2"][-1]
    line = page.inner_text("[data-testid=cb-last]")
    assert line.strip(), "nothing said"
    if last["kind"] == "laid":
        assert f"count {last['count']}" in line, line
    pegged = {
        "kind": "laid",
        "player": "p2",
        "card": "5H",
        "count": 15,
        "items": [
            {"kind": "fifteen", "cards": ["TS", "5H"], "points": 2},
            {"kind": "pair", "cards": ["5C", "5H"], "points": 2},
        ],
    }
    settle(page, SHOW, [VIEWS["play-2"], [pegged], "en"], what="a pegging lay shown")
    assert (
        page.inner_text("[data-testid=cb-last]").strip()
        == "Ben: 5♥, count 15 — fifteen 2, and a pair is 4"
    )


def test_a_score_moves_the_rear_peg_past_the_front_one_animated(harness: Page) -> None:
    """Leapfrog: the peg that stood at peg_from stays; the other one (the same
    element) travels to the new score, with a transition, none under reduced motion."""
    page = harness
    view = json.loads(json.dumps(VIEWS["play-2"]))
    me = view["players"][0]
    page.evaluate("(v) => window.cribbage.show(v, 'en')", view)
    front = page.locator("[data-testid=peg-0-front]").element_handle()
    rear = page.locator("[data-testid=peg-0-rear]").element_handle()
    assert front.get_attribute("data-hole") == str(me["score"])
    me["peg_from"], me["score"] = me["score"], me["score"] + 5
    page.evaluate("(v) => window.cribbage.show(v, 'en')", view)
    # the old rear peg is the new front one, at the new score; the old front one stayed
    assert rear.get_attribute("data-hole") == str(me["score"])
    assert rear.get_attribute("data-testid") == "peg-0-front"
    assert front.get_attribute("data-hole") == str(me["peg_from"])
    assert float(rear.evaluate("(e) => parseFloat(getComputedStyle(e).transitionDuration)")) > 0
    page.emulate_media(reduced_motion="reduce")
    assert float(rear.evaluate("(e) => parseFloat(getComputedStyle(e).transitionDuration)")) == 0


def test_the_time_left_is_shown_under_turn_seconds(harness: Page) -> None:
    page = harness
    view = json.loads(json.dumps(VIEWS["give-2"]))
    view["options"]["turn_seconds"] = 30
    view["give_deadline"] = page.evaluate("() => Date.now()") + 20_500
    page.evaluate("(v) => window.cribbage.show(v, 'en')", view)
    text = page.inner_text("[data-testid=cb-clock]")
    assert re.search(r"(19|20|21) seconds", text), text
    put(page, "give-2")
    assert page.locator("[data-testid=cb-clock]").count() == 0


def test_the_cut_for_the_first_deal_is_said(table_page: Page) -> None:
    page = table_page
    show(page, "cut-2", "en")
    assert "Cutting for the first deal" in page.inner_text("[data-testid=cb-todo]")
    line = page.inner_text("[data-testid=cb-last]")
    assert line.startswith("The cut: ") and "First deal:" in line, line
