"""Helpers for the browser tests: seats in localStorage, waiting on the client's
state, playing turns with taps, screenshots, layout checks.

Every game action goes through the page (taps on data-testid elements); the
client's state (window.crisp.state) is only read, to know when to act.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"

def seat_key(code: str) -> str:
    """Where the client keeps a seat's token (docs/web-client.md)."""
    return f"crisp.seat.{code}"


def store_seat(page: Page, base: str, code: str, seat: dict[str, Any]) -> None:
    """Write a seat ({"token", "player_id"}) into the page's storage, as the client keeps it."""
    page.goto(base + "/")
    value = json.dumps({"token": seat["token"], "player_id": seat["player_id"]})
    page.evaluate("([k, v]) => localStorage.setItem(k, v)", [seat_key(code), value])


def open_seat(page: Page, base: str, code: str, seat: dict[str, Any]) -> None:
    """Put a seat created over HTTP into the page's storage, then open /r/{code}."""
    store_seat(page, base, code, seat)
    page.goto(f"{base}/r/{code}")
    expect(page.get_by_test_id("connection-status")).to_have_attribute("data-state", "open")


def join_via_link(page: Page, base: str, code: str, name: str) -> None:
    """Open the shared link, type a name, tap Join."""
    page.goto(f"{base}/r/{code}")
    expect(page.get_by_test_id("room-code-input")).to_have_value(code)
    page.get_by_test_id("name-input").fill(name)
    page.get_by_test_id("join-room").tap()
    expect(page.get_by_test_id("connection-status")).to_have_attribute("data-state", "open")


def view(page: Page) -> dict[str, Any]:
    v = page.evaluate("() => window.crisp.state.view")
    assert v is not None
    return dict(v)


def wait_view(page: Page, condition: str, timeout: float = 8000) -> dict[str, Any]:
    """Wait until `condition` (JS, over the view `v`) holds in the page; return the view."""
    try:
        page.wait_for_function(
            f"() => {{ const v = window.crisp.state.view; return !!v && ({condition}); }}",
            timeout=timeout,
        )
    except PlaywrightTimeoutError:
        state = page.evaluate(
            "() => { const s = window.crisp.state;"
            " return JSON.stringify({view: s.view, toasts: s.toasts, log: s.log.slice(-8)}); }"
        )
        raise AssertionError(f"timed out waiting for {condition!r}; client: {state}") from None
    return view(page)


def tap(page: Page, testid: str, **kw: Any) -> None:
    page.get_by_test_id(testid).tap(**kw)


def draw_from_stock(page: Page) -> str:
    """Tap the stock; return the card now held (shown in `holding`)."""
    tap(page, "stock")
    v = wait_view(page, "v.holding !== null")
    expect(page.get_by_test_id("holding")).to_have_attribute("data-card", v["holding"])
    return str(v["holding"])


def wait_turn(page: Page, player: str) -> dict[str, Any]:
    return wait_view(page, f"v.status === 'playing' && v.turn && v.turn.player === {player!r}")


def play_simple_turn(page: Page, me: str, call_crisp: bool) -> None:
    """Play one whole turn with taps: draw from the stock, then discard (or swap
    into the left card), playing any King and its extra draws; optionally call crisp."""
    wait_turn(page, me)
    while True:
        draw_from_stock(page)
        legal = view(page)["legal"]
        if "king" in legal:
            tap(page, "action-king")
            wait_view(page, "v.holding === null")
            continue
        last = "action-discard" if "discard" in legal else "my-slot-left"
        if call_crisp and view(page)["turn"]["extra_draws"] == 0:
            arm_crisp(page)
        tap(page, last)
        v = wait_view(page, "v.holding === null")
        turn = v.get("turn")
        if v["status"] == "playing" and turn and turn["player"] == me and turn["extra_draws"] > 0:
            continue
        break
    if call_crisp:
        wait_view(page, f"v.crisp && v.crisp.caller === {me!r} || v.status !== 'playing'")


def assert_no_horizontal_scroll(page: Page) -> None:
    width = page.evaluate(
        "() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]"
    )
    assert width[0] <= width[1], f"horizontal scroll: scrollWidth {width[0]} > {width[1]}"


def snap(page: Page, name: str, full_page: bool = False) -> None:
    """Save a screenshot under test-artifacts/, after checking the layout (no
    sideways scroll, touch targets of 44 px): the phone's screen as it is, or
    with `full_page` the whole scrolled page."""
    assert_no_horizontal_scroll(page)
    assert_touch_targets(page)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=full_page)


def arm_crisp(page: Page) -> None:
    """Click the crisp button the moment it becomes enabled.

    The crisp window is 3 s (R10.4), 300 ms at CRISP_TIME_SCALE=0.1: too short for
    a round trip through Playwright, so the page itself waits for the button and
    clicks it (a real click on the real button), from the DOM change that enables
    it. Arm it before ending the turn."""
    page.evaluate(
        """() => {
          const started = Date.now();
          let done = false;
          const tryClick = () => {
            if (done) return;
            const b = document.querySelector('[data-testid="crisp-button"]');
            if (b && !b.disabled) { done = true; b.click(); }
            if (done || Date.now() - started > 5000) {
              clearInterval(timer);
              observer.disconnect();
            }
          };
          // at the very patch that enables it (a timer can be late on a busy machine)
          const observer = new MutationObserver(tryClick);
          observer.observe(document.body, { subtree: true, childList: true, attributes: true,
            attributeFilter: ['disabled'] });
          const timer = setInterval(tryClick, 5);
        }"""
    )


def click_if_enabled(page: Page, testid: str) -> bool:
    """Click an element now if it is there and enabled (no waiting); say whether it was."""
    return bool(
        page.evaluate(
            """(id) => {
              const el = document.querySelector(`[data-testid="${id}"]`);
              if (!el || el.disabled) return false;
              el.click();
              return true;
            }""",
            testid,
        )
    )


def ready_up(page: Page) -> None:
    """In the peek phase (R16.2), tap "ready" if the phase has not ended yet."""
    wait_view(page, "v.status === 'peek' || v.status === 'playing'")
    click_if_enabled(page, "ready-button")


def assert_touch_targets(page: Page, minimum: float = 44) -> None:
    """Every visible control (button, select, link, text field, summary, and the
    label of a checkbox) is at least `minimum` CSS pixels wide and high."""
    small = page.evaluate(
        """(min) => {
          const out = [];
          const els = document.querySelectorAll(
            'button, select, a[href], summary, input[type=text], label:has(input[type=checkbox])');
          for (const el of els) {
            const r = el.getBoundingClientRect();
            if (!r.width || !r.height || getComputedStyle(el).visibility === 'hidden') continue;
            if (r.width < min - 0.5 || r.height < min - 0.5) {
              out.push(`${el.dataset.testid || el.className || el.tagName} ${r.width}x${r.height}`);
            }
          }
          return out;
        }""",
        minimum,
    )
    assert small == [], f"touch targets under {minimum} px: {small}"


AXE = Path(__file__).resolve().parent / "vendor" / "axe-core" / "axe.min.js"
# WCAG 2.0/2.1 A and AA, including the rules axe still calls experimental there
# (label-content-name-mismatch: an accessible name holds the visible label).
AXE_RUN = """async () => {
  const tags = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];
  const rules = {};
  for (const r of axe.getRules(tags)) {
    if (r.tags.includes('experimental')) rules[r.ruleId] = { enabled: true };
  }
  const res = await axe.run(document, {
    runOnly: { type: 'tag', values: tags }, rules, resultTypes: ['violations'],
  });
  return res.violations.map((v) => ({
    id: v.id, impact: v.impact,
    nodes: v.nodes.map((n) => `${n.target.join(' ')}: ${n.failureSummary.replace(/\\s+/g, ' ')}`),
  }));
}"""


def axe_violations(page: Page) -> list[dict[str, Any]]:
    """Run axe-core (tests/web/vendor/axe-core, its version pinned there) on the page
    as it is now; its WCAG 2.1 A/AA violations. axe is put into the page through
    the DevTools protocol, which the page's Content-Security-Policy does not govern."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(AXE.read_text(encoding="utf-8"))
    return list(page.evaluate(AXE_RUN))


# Every face-up card on the page (table cards, the piles, the Kings, the drawn
# card, the round screen's small cards, a peek in words) and the computed colour
# of what shows its rank and suit: [{card, color: [r, g, b]}].
FACE_COLOURS = """() => {
  const out = [];
  const rgb = (el) => getComputedStyle(el).color.match(/\\d+/g).slice(0, 3).map(Number);
  const faces = '.card.up, .mini[data-card], [data-testid=peek] strong[data-card]';
  for (const el of document.querySelectorAll(faces)) {
    const card = el.dataset.card || (el.closest('[data-card]') || {}).dataset?.card;
    if (!card) continue;
    for (const part of [el, ...el.querySelectorAll('.corner, .pip, .corner-end')]) {
      out.push({ card, color: rgb(part) });
    }
  }
  return out;
}"""


def assert_suit_colours(page: Page, at_least: int = 1) -> int:
    """Hearts and diamonds are red, spades and clubs are not, on every face-up
    card now shown (the computed colour, whatever the card's state: disabled,
    not tappable, on a pile or in a result table). Returns how many red faces."""
    faces = page.evaluate(FACE_COLOURS)
    assert len(faces) >= at_least, faces
    reds = 0
    for face in faces:
        r, g, b = face["color"]
        is_red = r > 120 and r > 2 * max(g, b)
        assert is_red == (face["card"][1] in "HD"), face
        reds += is_red
    return reds


# The draw timer's texts as the page shows them, recorded from the moment this runs.
RECORD_TIMER = """() => {
  window.timerTexts = [];
  const note = () => {
    const el = document.querySelector('[data-testid=draw-timer]');
    if (el) window.timerTexts.push(el.textContent);
  };
  new MutationObserver(note).observe(document.body,
    { subtree: true, childList: true, characterData: true });
}"""


def record_timer(page: Page) -> None:
    """Start recording every text the draw timer shows (`timer_seconds` reads them)."""
    page.evaluate(RECORD_TIMER)


def timer_seconds(page: Page) -> list[int]:
    """The times (m:ss, in seconds) the draw timer showed since `record_timer`."""
    out = []
    for text in page.evaluate("() => window.timerTexts"):
        m = re.fullmatch(r"(\d+):(\d\d)", text)
        if m:
            out.append(int(m.group(1)) * 60 + int(m.group(2)))
    return out
