"""Helpers for the browser tests: seats in localStorage, waiting on the client's
state, playing turns with taps, screenshots, layout checks.

Every game action goes through the page (taps on data-testid elements); the
client's state (window.crisp.state) is only read, to know when to act.
"""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from tests.web.conftest import SAFETY_MS

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


def home_page(phone: Any, base: str, *, scale: int = 1) -> Page:
    """A 360 x 640 phone (`phone`, the fixture's factory) on the home screen, for
    tests that draw a game's table from fixtures (`scale` 2 for screenshots)."""
    page: Page = phone(viewport={"width": 360, "height": 640}, device_scale_factor=scale)
    page.goto(base + "/")
    home = "() => window.crisp && window.crisp.state && window.crisp.state.screen === 'home'"
    wait_js(page, home, "the home screen")
    return page


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


# ---- waiting on what the page announces (issue 34): never for a guessed time
#
# Every wait below is for a state the page sets or a promise of the page's that
# settles, bounded by a safety timeout that fires only on a real hang, and its
# failure names what it waited for. tests/web/test_web_waits.py keeps sleeps out.


def wait_js(page: Page, predicate: str, what: str, arg: Any = None,
            timeout_ms: float = SAFETY_MS) -> Any:
    """Until the JS `predicate` (a function of `arg`) holds in the page; its value.
    On timeout: an AssertionError naming `what`."""
    try:
        return page.wait_for_function(predicate, arg=arg, timeout=timeout_ms).json_value()
    except PlaywrightTimeoutError:
        raise AssertionError(f"waited {timeout_ms / 1000:g} s for {what}; it never came") from None


_SETTLE = """([key, arg]) => {
  const waits = (window.__crispWaits ||= {});
  waits[key] = { done: false };
  Promise.resolve().then(() => (SCRIPT)(arg)).then(
    (value) => { waits[key] = { done: true, value }; },
    (error) => { waits[key] = { done: true, error: String((error && error.stack) || error) }; });
}"""
_settles = iter(range(1 << 62))


def settle(page: Page, script: str, arg: Any = None, *, what: str,
           timeout_ms: float = SAFETY_MS) -> Any:
    """Run the JS function `script` (async or not) on `arg` in the page and wait,
    bounded, for its promise to settle; its value (Playwright's own evaluate of a
    promise has no bound: a promise that never settles held a test for 300 s)."""
    key = f"w{next(_settles)}"
    head, tail = _SETTLE.split("SCRIPT")
    page.evaluate(head + script + tail, [key, arg])
    wait_js(page, "(k) => window.__crispWaits[k].done", what, key, timeout_ms)
    out = page.evaluate(
        "(k) => { const w = window.__crispWaits[k]; delete window.__crispWaits[k]; return w; }",
        key)
    if "error" in out:
        raise AssertionError(f"{what}: {out['error']}")
    return out.get("value")


def switch_language(page: Page, lang: str) -> None:
    """Switch the page to `lang` in place (window.crisp.language: its strings loaded,
    the page redrawn), as the header's switch does."""
    settle(page, "(l) => window.crisp.language(l)", lang,
           what=f"the page redrawn in {lang!r} (window.crisp.language)")


# The screen as it stays: every transition that ends (a finite animation, at most
# `longest` ms long when given; spinners never end) is over.
_SETTLED = """(longest) => document.getAnimations().every((a) => {
  const end = a.effect.getComputedTiming().endTime;
  return !Number.isFinite(end) || (longest !== null && end > longest)
    || a.playState === 'finished';
})"""


def wait_settled(page: Page, longest_ms: float | None = None) -> None:
    """Until the page's transitions (its finite animations) are over."""
    what = "the page's transitions over"
    if longest_ms is not None:
        what += f" (those of at most {longest_ms:g} ms)"
    wait_js(page, _SETTLED, what, longest_ms)


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


def play_simple_turn(page: Page, me: str, call_crisp: bool, sure: bool = True) -> None:
    """Play one whole turn with taps: draw from the stock, then discard (or swap
    into the left card), playing any King and its extra draws; optionally call crisp.
    `sure=False`: the call may not count (a computer player's call in its own
    window may come first, R10.4; a 300 ms window may pass on a busy machine), so
    the call is not waited for."""
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
    if call_crisp and sure:
        wait_view(page, f"v.crisp && v.crisp.caller === {me!r} || v.status !== 'playing'")


ROUND_ENDED = "(v.status === 'round_over' || v.status === 'game_over')"


def play_round_to_a_call(pages: dict[str, Page], watch: Page) -> dict[str, Any]:
    """Play turns with taps until the round ends, each player calling crisp at the
    end of its turn until a call counts; the view at the end (`watch`'s).

    At the tests' time scale the crisp window is 300 ms (R10.4) of real time, from
    the server's update to the call's arrival: a busy machine can let it pass
    (the button is never enabled, or the call comes late and is refused). The
    next turn then calls instead, so the round still ends by a call (R11)."""
    while True:
        v = wait_view(watch, f"{ROUND_ENDED} || (v.status === 'playing' && v.turn !== null)")
        if v["status"] != "playing":
            return v
        me = v["turn"]["player"]
        play_simple_turn(pages[me], me, call_crisp=v["crisp"]["caller"] is None, sure=False)
        wait_view(pages[me], f"{ROUND_ENDED} || (v.turn && v.turn.player !== {me!r})")


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
            // disarmed once it clicked, or 5 s on (a window that passed unseen)
            if (done || Date.now() - started > 5000) observer.disconnect();
          };
          // at the very patch that enables it (no timer: one can be late on a busy machine)
          const observer = new MutationObserver(tryClick);
          observer.observe(document.body, { subtree: true, childList: true, attributes: true,
            attributeFilter: ['disabled'] });
          tryClick();
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
    return list(settle(page, AXE_RUN, what="axe's checks of the page"))


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


# ---- holding one phone still at a moment of the game (the layout matrix)


class Hold:
    """Holds a phone still at a moment of a real game, for as long as a check takes.

    Installed before the page opens its room: every server message to the page
    passes through here (Playwright's websocket routing, connected to the real
    server), and the page's clock is Playwright's. `freeze_on(predicate)` stops
    the page's clock at once (its timers, the crisp window's and the draw's
    countdowns stand still) and lets the server's messages through until one for
    which `predicate(message)` holds; that one is delivered, the later ones wait.
    The server plays on meanwhile; `release()` hands the page everything that
    waited, in order, and lets its clock run on from where it stood (every update is the whole
    table, so the page is then up to date). A moment of 300 ms (the crisp window
    at the tests' time scale) can be looked at for seconds this way, without a
    guess at when to look."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.until: Any = None
        self.frozen = False
        self.held: list[tuple[Any, str]] = []
        self.matched: dict[str, Any] | None = None
        self.paused = False
        self.frozen_at = 0
        page.clock.install()
        page.route_web_socket(re.compile(r"/ws/"), self._route)

    def _route(self, ws: Any) -> None:
        server = ws.connect_to_server()
        server.on_message(lambda message: self._from_server(ws, message))

    def _from_server(self, ws: Any, message: str | bytes) -> None:
        text = message if isinstance(message, str) else message.decode()
        if self.frozen:
            self.held.append((ws, text))
            return
        ws.send(text)
        if self.until is not None:
            msg = json.loads(text)
            if self.until(msg):
                self.frozen = True
                self.until = None
                self.matched = msg

    def freeze_on(self, predicate: Any) -> None:
        """From now: the page's clock stands still, and the page gets the server's
        messages up to the first one `predicate` accepts (those that waited
        first, in order); later ones wait. Call it before the tap that leads
        there; `wait()` then waits for that message."""
        self.matched = None
        if not self.paused:
            self._pause()
        self.until = predicate
        self.frozen = False
        held, self.held = self.held, []
        for ws, text in held:
            self._from_server(ws, text)

    def _pause(self) -> None:
        """Stop the page's clock where it is: Date.now() stands still (its timers
        still fire, so renders happen, but nothing counts down or runs out)."""
        self.frozen_at = self.page.evaluate("() => Date.now()")
        self.page.clock.set_fixed_time(self.frozen_at / 1000)
        self.paused = True

    def wait(self, timeout: float = 10) -> dict[str, Any]:
        """Until the accepted message has reached the page; that message."""
        deadline = time.monotonic() + timeout
        while self.matched is None:
            # Each round trip to the page lets Playwright hand the server's messages
            # to `_from_server` (the state waited for is this object's: `matched`).
            assert time.monotonic() < deadline, (
                f"waited {timeout:g} s for the server's message to hold the phone at; "
                "it never came")
            self.page.evaluate("() => 0")
        msg = self.matched
        version = msg["view"].get("version", 0)
        wait_js(self.page,
                "(v) => !!window.crisp.state.view && window.crisp.state.view.version >= v",
                f"the held message (version {version}) shown by the page", version)
        return msg

    def release(self) -> None:
        """Everything that waited goes to the page, and its clock runs again."""
        self.until = None
        self.frozen = False
        held, self.held = self.held, []
        for ws, text in held:
            ws.send(text)
        if self.paused:
            # time runs on from where it stood (behind the wall clock by the hold:
            # the page's estimate of the server's clock stays right, state.js)
            self.page.clock.set_system_time(self.frozen_at / 1000)
            self.paused = False


# ---- the layout checks (issue 21)

# The checks, in the page (tests/web/layout.js): a function of {width, inside, host}
# returning the problems found, as sentences.
LAYOUT_PROBLEMS = (Path(__file__).resolve().parent / "layout.js").read_text(encoding="utf-8")

# Each language in turn, in place (window.crisp.language), and the layout's problems in each.
IN_EVERY_LANGUAGE = """async ([opts, langs]) => {
  const check = """ + LAYOUT_PROBLEMS + """;
  const before = window.crisp.state && document.documentElement.lang;
  const out = {};
  for (const lang of langs) {
    await window.crisp.language(lang);
    const problems = check(opts);
    if (problems.length) out[lang] = problems;
  }
  await window.crisp.language(before);
  return out;
}"""

SCREENS = (
    {"width": 360, "height": 640},
    {"width": 390, "height": 844},
    {"width": 412, "height": 915},
)
LANGS = ("en", "ar", "id")

# What must be inside the screen at the table: [selector, also up and down?]
TABLE_INSIDE = [
    ["[data-testid=draw-timer]", True],
    ["[data-testid=log-button]", True],
    ["[data-testid=stock]", False],
    ["[data-testid=my-slot-left]", False],
    ["[data-testid=my-slot-middle]", False],
    ["[data-testid=my-slot-right]", False],
]


# CRISP_LAYOUT_SHOTS=1: the matrix also saves every cell it checks as a screenshot,
# test-artifacts/layout/<moment>-<width>-<lang>.png (for a person to look at; slower).
SHOTS = bool(os.environ.get("CRISP_LAYOUT_SHOTS"))


def layout_problems(
    page: Page, what: str, inside: list[list[Any]], host: bool, fit: bool = False
) -> list[str]:
    """The layout checks of issue 21 on the page as it is now, at every screen
    size of SCREENS and in every language (switched in place), the page left as
    it was found (its size and language). `what`: the moment, for the message;
    `fit`: a crowded table must show all of `inside` without scrolling."""
    size = page.viewport_size
    found: list[str] = []
    for screen in SCREENS:
        page.set_viewport_size(screen)
        opts = {"width": screen["width"], "inside": inside, "host": host, "fit": fit}
        found_now = settle(page, IN_EVERY_LANGUAGE, [opts, list(LANGS)],
                           what=f"the layout checked in {', '.join(LANGS)} at {screen['width']} px")
        for lang, problems in found_now.items():
            found += [f"{what} @{screen['width']} {lang}: {p}" for p in problems]
        if SHOTS:
            lang_now = page.evaluate("() => document.documentElement.lang")
            for lang in LANGS:
                switch_language(page, lang)
                name = re.sub(r"[^\w]+", "-", f"{what}-{screen['width']}-{lang}").strip("-")
                (ARTIFACTS / "layout").mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(ARTIFACTS / "layout" / f"{name}.png"))
            switch_language(page, lang_now)
    if size:
        page.set_viewport_size(size)
    return found


WORKER_MS = 30_000  # the safety bound of a worker's install and activation (a busy machine)


def wait_for_worker(page: Page) -> None:
    """Until the page says its service worker is activated and in control of it
    (<html data-worker="in-control">, app.js registerWorker); on a hang the failure
    shows how far the worker got (the attribute's value then)."""
    expect(
        page.locator("html"), "the page's service worker in control (html[data-worker=in-control])"
    ).to_have_attribute("data-worker", "in-control", timeout=WORKER_MS)


def wait_for_kept(page: Page, version: str | None = None) -> None:
    """Until the page says its worker has kept the files of `version` (by default the
    page's own, from its stylesheet's URL): <html data-kept>, app.js registerWorker."""
    if version is None:
        href = page.locator("link[rel=stylesheet]").first.get_attribute("href") or ""
        m = re.fullmatch(r"/v/([0-9a-zA-Z]+)/.*", href)
        assert m, href
        version = m.group(1)
    expect(
        page.locator("html"), f"the worker's files of version {version} kept (html[data-kept])"
    ).to_have_attribute("data-kept", re.compile(rf"(^| ){re.escape(version)}( |$)"),
                        timeout=WORKER_MS)
