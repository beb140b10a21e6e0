"""Crapette's table (issue 37 item 4) drawn from real views
(tests/web/fixtures/crapette.json, made by make_crapette.py from a seeded game of
crisp.games.crapette): the real page, its real shell and the game's module, given
each view as the server would send it (update.js applyUpdate, then the store), at
360x640 in every language of the client, for:

- the layout checks of the matrix (tests/web/layout.js): nothing wider than the
  screen, no text clipped, and every pile, both crapettes, the foundations, the
  tableau, the turn line and the dock on the one screen, without scrolling;
- tap-tap: only the view's `moves` light up, and the move sent is the view's;
- the call: "Crapette!" for the player who is not moving, with the version of the
  last `moved` event seen; a right call's outcome and missed move shown to both.
- a real room through the real server: a computer player added, the game started,
  moves by taps and an end of turn, the table fitting a 360 px phone at rest.

With CRISP_CRAPETTE_SHOTS=1 the screenshots of docs/img/crapette-*.png are made
again (start, mid-game, a right call, game over, each in en, ar, id, pl).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page

from tests.web.browser_kit import (
    LAYOUT_PROBLEMS,
    assert_no_horizontal_scroll,
    home_page,
    open_seat,
    settle,
    tap,
    view,
    wait_js,
    wait_settled,
    wait_view,
)

pytestmark = pytest.mark.browser

FIXTURE = json.loads(
    (Path(__file__).parent / "fixtures" / "crapette.json").read_text(encoding="utf-8")
)
LANGS = tuple(os.environ.get("CRAPETTE_LANGS", "en ar id pl").split())
SMALL = {"width": 360, "height": 640}
DOCS_IMG = Path(__file__).resolve().parents[2] / "docs" / "img"
SHOTS = bool(os.environ.get("CRISP_CRAPETTE_SHOTS"))

# Everything of the table on the one screen: [selector, also up and down?]
PILES = (
    [f"[data-testid=pile-tableau-{i}]" for i in range(8)]
    + [f"[data-testid=pile-foundation-{i}]" for i in range(8)]
    + [f"[data-testid=pile-{s}-{p}]" for s in ("me", "op") for p in ("crapette", "stock", "waste")]
)
INSIDE = [[sel, True] for sel in [*PILES, "[data-testid=turn-line]", "[data-testid=log-button]"]]

# Give the page a view as an update from the server would (update.js, then the store).
SHOW = """async ([views, lang]) => {
  const base = new URL('.', document.querySelector('script[type=module][src*="app.js"]').src).href;
  const store = await import(base + 'store.js');
  const games = await import(base + 'games.js');
  const update = await import(base + 'update.js');
  await games.loadGame('crapette');
  let S = { ...store.getState(), screen: 'room', code: 'KQ7T', conn: 'open', stale: false,
    booting: false };
  for (const [view, events] of views) {
    const now = view.turn && view.turn.deadline ? view.turn.deadline - 21000 : 1000000;
    S = update.applyUpdate(S, { type: 'update', view, events, now, seq: 2 }, Date.now()).state;
  }
  store.replaceState(S);
  await window.crisp.language(lang);
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  return document.documentElement.lang;
}"""


def moments(you: str) -> dict[str, list[Any]]:
    """Each moment: the updates that lead to it, for `you`."""
    f = FIXTURE
    return {
        "start": [[f["start"][you], []]],
        "mid": [[f["mid"][you], f["mid_events"]]],
        "waiting": [[f["waiting"][you], []]],
        "right-call": [
            [f["right_call_before"][you], []],
            [f["right_call"][you], f["right_call_events"]],
        ],
        "game-over": [[f["game_over"][you], f["game_over_events"]]],
    }


def show(page: Page, updates: list[Any], lang: str) -> None:
    got = settle(page, SHOW, [updates, lang], what=f"the table shown in {lang!r}")
    assert got == lang
    page.wait_for_selector(".cr-table")


def problems(page: Page, inside: list[list[Any]]) -> list[str]:
    return page.evaluate(
        "(opts) => (" + LAYOUT_PROBLEMS + ")(opts)",
        {"width": SMALL["width"], "inside": inside, "host": False, "fit": False},
    )


@pytest.fixture
def table_page(phone: Any, server: Any) -> Page:
    return home_page(phone, server.base, scale=2 if SHOTS else 1)


def test_every_moment_fits_one_phone_screen_in_every_language(table_page: Page) -> None:
    page = table_page
    found: list[str] = []
    for you in ("p1", "p2"):
        for name, updates in moments(you).items():
            for lang in LANGS:
                show(page, updates, lang)
                dock = (
                    ["[data-testid=game-over]"]
                    if name == "game-over"
                    else (
                        ["[data-testid=end-turn]"]
                        if updates[-1][0]["turn"]["player"] == you
                        else ["[data-testid=crapette-button]"]
                    )
                )
                if name == "right-call":
                    dock.append("[data-testid=call-outcome]")
                inside = INSIDE + [[d, True] for d in dock]
                if name == "game-over":
                    inside = [
                        i for i in inside if "turn-line" not in i[0] and "log-button" not in i[0]
                    ]
                found += [f"{name} {you} {lang}: {p}" for p in problems(page, inside)]
                if SHOTS and you == "p1" and name in ("start", "mid", "right-call", "game-over"):
                    page.screenshot(path=str(DOCS_IMG / f"crapette-{name}-{lang}.png"))
    assert not found, "\n".join(found)


MOVER_SIDE = {
    "crapette": "me:crapette",
    "turned": "me:turned",
    "opponent_crapette": "op:crapette",
    "opponent_waste": "op:waste",
}


def test_only_the_views_moves_light_up(table_page: Page) -> None:
    page = table_page
    view = FIXTURE["mid"]["p1"]  # p1 moves
    show(page, [[view, []]], "en")
    pile = lambda wire: MOVER_SIDE.get(wire, wire)  # noqa: E731
    sources = page.eval_on_selector_all(".cr-pile.src", "els => els.map((e) => e.dataset.pile)")
    assert sorted(sources) == sorted({pile(m["from"]) for m in view["moves"]})
    assert page.locator(".cr-pile.target").count() == 0
    first = pile(view["moves"][0]["from"])
    page.click(f"[data-pile='{first}']")
    lit = page.eval_on_selector_all(".cr-pile.target", "els => els.map((e) => e.dataset.pile)")
    assert sorted(lit) == sorted(pile(m["to"]) for m in view["moves"] if pile(m["from"]) == first)
    assert page.locator(f"[data-pile='{first}'][aria-pressed=true]").count() == 1
    page.click(f"[data-pile='{first}']")  # tapped again: put back
    assert page.locator(".cr-pile.target").count() == 0


def drag(page: Page, source: str, target: str) -> None:
    a = page.locator(f"[data-pile='{source}'] .cr-card.top").bounding_box()
    b = page.locator(f"[data-pile='{target}']").bounding_box()
    assert a and b
    page.mouse.move(a["x"] + a["width"] / 2, a["y"] + a["height"] / 2)
    page.mouse.down()
    for i in range(1, 6):
        page.mouse.move(
            a["x"] + a["width"] / 2 + (b["x"] + b["width"] / 2 - a["x"] - a["width"] / 2) * i / 5,
            a["y"]
            + a["height"] / 2
            + (b["y"] + b["height"] / 2 - a["y"] - a["height"] / 2) * i / 5,
        )
    page.mouse.up()


def test_a_drag_onto_a_lit_pile_sends_the_move_and_elsewhere_puts_it_back(table_page: Page) -> None:
    page = table_page
    view = FIXTURE["mid"]["p1"]
    show(page, [[view, []]], "en")
    pile = lambda wire: MOVER_SIDE.get(wire, wire)  # noqa: E731
    move = view["moves"][0]
    source, target = pile(move["from"]), pile(move["to"])
    elsewhere = next(
        f"foundation:{i}"
        for i in range(8)
        if f"foundation:{i}"
        not in [pile(m["to"]) for m in view["moves"] if pile(m["from"]) == source]
    )
    drag(page, source, elsewhere)
    assert page.locator("[data-testid=toast]").count() == 0  # nothing sent
    assert page.locator(".cr-pile.target, .cr-ghost").count() == 0
    drag(page, source, target)
    # sent: this page has no room socket, so the shell says it is offline (the move's attempt)
    page.wait_for_selector("[data-testid=toast]")
    assert page.locator(".cr-ghost").count() == 0


def test_a_right_call_is_shown_to_both_with_the_missed_move(table_page: Page) -> None:
    page = table_page
    for you in ("p1", "p2"):
        show(page, moments(you)["right-call"], "en")
        text = page.inner_text("[data-testid=call-outcome]")
        assert "Crapette!" in text and "Missed:" in text, text
        assert page.locator(".cr-pile.missed").count() == 2


def test_the_player_not_moving_has_the_big_call_button(table_page: Page) -> None:
    page = table_page
    show(page, moments("p1")["waiting"], "en")
    button = page.locator("[data-testid=crapette-button]")
    assert button.is_visible()
    assert page.locator("[data-testid=end-turn]").count() == 0
    box = button.bounding_box()
    assert box is not None and box["height"] >= 48


def test_the_call_button_sends_under_combination_after_the_moves_are_shown(
    table_page: Page,
) -> None:
    page = table_page
    view = {
        **FIXTURE["waiting"]["p1"],
        "options": {**FIXTURE["waiting"]["p1"]["options"], "calls": "combination"},
    }
    show(
        page,
        [
            [
                view,
                [
                    {
                        "kind": "moved",
                        "player": "p2",
                        "from": "turned",
                        "to": "tableau:1",
                        "card": "6S",
                        "version": view["version"],
                    }
                ],
            ]
        ],
        "en",
    )
    button = page.locator("[data-testid=crapette-button]")
    assert button.is_enabled()
    button.click()  # opens the picking: tap a card, then where it should have gone
    assert "0 moves shown" in page.inner_text(".cr-dock")
    page.click("[data-pile='op:crapette']")
    page.click("[data-pile='foundation:2']")
    assert "1 move shown" in page.inner_text(".cr-dock")
    assert page.locator(".cr-pile.shown").count() == 2
    page.click(
        "[data-testid=crapette-button]"
    )  # "Call with these moves": sent (offline here: said)
    page.wait_for_selector("[data-testid=toast]")
    assert page.locator(".cr-pile.shown").count() == 0


def test_the_table_has_no_accessibility_violations(table_page: Page) -> None:
    from tests.web.browser_kit import axe_violations

    page = table_page
    for name in ("mid", "right-call", "game-over"):
        for lang in ("en", "ar"):
            show(page, moments("p1")[name], lang)
            found = [(v["id"], v["nodes"][:3]) for v in axe_violations(page)]
            assert not found, (name, lang, found)


# The update of a move as routing.js applies it: the state, then the game's
# `animate` for each `motion` effect; how many cards the table had placed before
# (<body data-cr-flips>, drag.js) and how many motions it was given.
MOVE = """async ([view, events]) => {
  const base = new URL('.', document.querySelector('script[type=module][src*="app.js"]').src).href;
  const store = await import(base + 'store.js');
  const games = await import(base + 'games.js');
  const update = await import(base + 'update.js');
  const game = await games.loadGame('crapette');
  const now = view.turn && view.turn.deadline ? view.turn.deadline - 21000 : 1000000;
  const { state, effects } = update.applyUpdate(store.getState(),
    { type: 'update', view, events, now, seq: 3 }, Date.now());
  store.replaceState(state);
  const before = Number(document.body.dataset.crFlips || 0);
  const motions = effects.filter((e) => e.type === 'motion');
  for (const e of motions) game.animate(e.ev, view.you, e.delay);
  return before + motions.length;
}"""
# The animations running on the table now: the piles they move.
SLIDING = """() => document.getAnimations()
  .filter((a) => a.effect && a.effect.target && a.effect.target.closest
    && a.effect.target.closest('.cr-table'))
  .map((a) => a.effect.target.closest('[data-pile]').dataset.pile)"""


@pytest.mark.parametrize("reduced", [False, True])
def test_a_moved_card_slides_from_where_it_was_unless_motion_is_reduced(
    table_page: Page, reduced: bool
) -> None:
    page = table_page
    if reduced:
        page.emulate_media(reduced_motion="reduce")
    pair = FIXTURE["move_pair"]
    show(page, [[pair["before"], []]], "en")
    placed = settle(page, MOVE, [pair["after"], pair["events"]], what="a move's update applied")
    wait_js(
        page,
        "(n) => Number(document.body.dataset.crFlips || 0) >= n",
        "the moved cards placed by the table (body[data-cr-flips])",
        placed,
    )
    moving = page.evaluate(SLIDING)
    to = next(e["to"] for e in pair["events"] if e["kind"] == "moved")
    assert moving == ([] if reduced else [to])


def test_a_watcher_sees_the_table_from_seat_0_with_the_watch_bar(table_page: Page) -> None:
    page = table_page
    for name in ("mid", "game-over"):
        view = {
            **moments("p1")[name][-1][0],
            "you": "w1",
            "watching": True,
            "legal": [],
            "moves": [],
        }
        view["turn"] = {**view["turn"], "can_call": False} if view.get("turn") else None
        show(page, [[view, []]], "en")
        assert page.locator("[data-testid=stop-watching]").is_visible()
        assert (
            page.locator(
                "[data-testid=crapette-button], [data-testid=end-turn], .cr-pile.src"
            ).count()
            == 0
        )
        assert "Ana" in page.inner_text("[data-testid=seat-me]")
        inside = [[sel, True] for sel in [*PILES, "[data-testid=stop-watching]"]]
        assert not problems(page, inside), problems(page, inside)


@pytest.mark.parametrize("size", [{"width": 390, "height": 844}, {"width": 412, "height": 915}])
def test_wider_phones_fit_too(table_page: Page, size: dict[str, int]) -> None:
    page = table_page
    page.set_viewport_size(size)
    found: list[str] = []
    for you in ("p1", "p2"):
        for name in ("mid", "right-call"):
            for lang in ("en", "ar", "pl"):
                show(page, moments(you)[name], lang)
                found += [
                    f"{name} {you} {lang}: {p}"
                    for p in page.evaluate(
                        "(opts) => (" + LAYOUT_PROBLEMS + ")(opts)",
                        {"width": size["width"], "inside": INSIDE, "host": False, "fit": False},
                    )
                ]
    assert not found, "\n".join(found)


# ---- a real room


def fits_while_still(page: Page, version: int) -> bool:
    """The table at `version`, its cards come to rest, fits the phone (the layout
    checks); False if another update came meanwhile (nothing checked)."""
    wait_settled(page)  # a card still sliding is not the layout
    found = problems(page, INSIDE)
    if view(page)["version"] != version:
        return False
    assert not found, found
    assert_no_horizontal_scroll(page)
    return True


def test_a_real_room_is_played_by_taps_in_the_browser(phone: Any, server: Any) -> None:
    """A real Crapette room against a computer player, through the real server: the
    lobby, the start, a few moves by tap-tap (a pile, then where it goes) and an end
    of turn, each changing the table, on a 360 px wide phone."""
    host = server.post("/api/rooms", {"name": "Ana", "game": "crapette"})
    page = phone(viewport=SMALL)
    open_seat(page, server.base, host["code"], host)
    tap(page, "add-bot")
    wait_view(page, "v.players.length === 2")
    tap(page, "start-game")
    page.wait_for_selector(".cr-table")
    pile = lambda wire: MOVER_SIDE.get(wire, wire)  # noqa: E731
    moved = ended = 0
    for _ in range(200):  # looks at the table (a hang, not a bound of the game)
        if moved >= 3 and ended:
            break
        v = view(page)
        if v["status"] == "game_over":
            break
        if not (v["turn"] and v["turn"]["player"] == v["you"]):  # the computer's turn
            wait_view(page, f"v.status === 'game_over' || v.turn.player === {v['you']!r}",
                      timeout=30_000)
            continue
        if not fits_while_still(page, v["version"]):
            continue  # the table changed meanwhile (the computer's call): look again
        if v["moves"] and (moved < 3 or "end" not in v["legal"]):
            move = v["moves"][0]
            page.click(f"[data-pile='{pile(move['from'])}']")
            page.click(f"[data-pile='{pile(move['to'])}']")
            moved += 1
        elif "end" in v["legal"]:
            tap(page, "end-turn")
            ended += 1
        wait_view(page, f"v.version !== {v['version']}")
    else:
        raise AssertionError(f"{moved} moves and {ended} ends after 200 looks: {view(page)}")
    assert moved or ended
    assert not page.errors, page.errors
