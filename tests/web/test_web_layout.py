"""The layout matrix (issue 21): real games at 2, 4 and 8 seats, with 20-character
names, computer players and away seats, driven through every phase; at each
moment the same page is checked at 360, 390 and 412 px wide, in English, Arabic
and Indonesian (the viewport resized and the language switched in place), for:

- the document never wider than the screen (nor the page shrunk to fit);
- the timer, the log's button, the stock, your cards and the CRISP button (the
  dock's buttons in other phases) inside the screen, the sticky ones on it;
- no control's text clipped, nor a tag, a notice, the connection status, the
  turn line's second line;
- every seat's visible name different from every other's;
- the host marked at the table at all times; the crisp bar never over its seconds.

The phases: lobby, peek, your turn holding a card, one and two Kings beside the
piles, a Queen's confirmation, a Jack's look, the crisp window, a bystander's
view and an away seat, an offline reload, a call and the final turns, round and
game results, rematch, the help; and (issue 24) a watcher's lobby, table and round
results (a second phone on `/r/{code}?watch`, R18.1) and the round's replay
(R18.2, opened from the results). Moments that last 300 ms at the tests' time
scale (the crisp window, the peek phase, someone else's turn) are held on the
phone (`browser_kit.Hold`: its clock stopped, the server's later messages kept
back) for as long as the checks take, never guessed at.

One game per seat count; the checks of one moment (9 cells) take a fraction of a
second, so the whole matrix costs about one game's time per seat count.

    the host (you, seat 0) "Alexandra Montgomery"   deals last: you play first
    seat 1 ("Bartholomew Kingsley" at 4 and 8 seats: joined, never connected: away)
    seats 2, 3 at 8 seats: "نورة عبدالرحمن السعد", "Kusumawardhani Putri" (away too)
    the others: computer players (normal)

    your hand: KH QH QD (30); seat 1's right: JD
    stock: KS KC QC JH 9S ...: King, King (two beside the piles), Queen (your
    left <-> seat 1's right), Jack (a look at your middle), 9 discarded.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from playwright.sync_api import Page, expect
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from tests.support.decks import deck_for
from tests.web.browser_kit import (
    TABLE_INSIDE,
    Hold,
    arm_crisp,
    draw_from_stock,
    layout_problems,
    open_seat,
    play_simple_turn,
    ready_up,
    tap,
    view,
    wait_for_kept,
    wait_for_worker,
    wait_view,
)

pytestmark = pytest.mark.browser

ME = "Alexandra Montgomery"
HUMANS = ["Bartholomew Kingsley", "نورة عبدالرحمن السعد", "Kusumawardhani Putri"]
assert all(len(n) == 20 for n in [ME, *HUMANS])
MY_HAND = ["KH", "QH", "QD"]
STOCK = ["KS", "KC", "QC", "JH", "9S"]

DOCK = [["[data-testid=crisp-button]", True], ["[data-testid=action-discard]", True]]
LOBBY = [["[data-testid=room-code]", False], ["[data-testid=start-game]", False],
         ["[data-testid=settings-button]", False], ["[data-testid=help-button]", False]]
# a watcher's table (R18.1): no cards of its own, its bar in the dock
WATCHER_TABLE = [["[data-testid=draw-timer]", True], ["[data-testid=log-button]", True],
                 ["[data-testid=stock]", False], ["[data-testid=stop-watching]", True]]
REPLAY = [["[data-testid=replay-caption]", False], ["[data-testid=replay-play]", False],
          ["[data-testid=replay-close]", False]]


def seats_for(n: int) -> tuple[int, int]:
    """(humans joined over HTTP who never connect, computer players) for `n` seats."""
    humans = {2: 0, 4: 1, 8: 3}[n]
    return humans, n - 1 - humans


def update_with(check: Callable[[dict[str, Any]], bool]) -> Callable[[dict[str, Any]], bool]:
    """A Hold predicate over server messages: an update whose view passes `check`."""
    return lambda msg: msg.get("type") == "update" and bool(check(msg["view"]))


class Matrix:
    """The checks of one game, collected (every problem of every moment is reported at the end)."""

    def __init__(self, page: Page, n: int) -> None:
        self.page = page
        self.n = n
        self.problems: list[str] = []
        self.moments: list[str] = []

    def check(
        self, what: str, inside: list[list[Any]], host: bool = False, fit: bool = False,
        page: Page | None = None,
    ) -> None:
        """`fit`: from 4 seats on the whole table (seats, piles, your cards, the dock)
        is on a 360x640 screen at once, without scrolling (issue 11). `page`: another
        phone than the host's (a watcher's)."""
        self.moments.append(what)
        fits = fit and self.n >= 4
        self.problems += layout_problems(page or self.page, f"{self.n} seats, {what}", inside,
                                         host, fits)


def final_turn_or_mine(v: dict[str, Any]) -> bool:
    """A final turn has started (after anyone's call), or your own turn has."""
    turn = v["turn"]
    if v["status"] != "playing" or turn is None:
        return False
    return (bool(v["crisp"]["caller"]) and turn["final"]) or turn["player"] == v["you"]


@pytest.mark.parametrize("n", [2, 4, 8])
def test_the_table_fits_every_phone_in_every_phase_language_and_seat_count(
    server: Any, phone: Any, n: int
) -> None:
    humans, bots = seats_for(n)
    hands = [MY_HAND] + [[None, None, "JD" if i == 1 else None] for i in range(1, n)]
    deck = deck_for(hands, STOCK, dealer=n - 1)
    host = server.post("/api/rooms", {"name": ME, "deck": deck, "dealer": n - 1})
    code = host["code"]
    for name in HUMANS[:humans]:
        server.post(f"/api/rooms/{code}/players", {"name": name})
    page = phone(reduced_motion="reduce")
    hold = Hold(page)
    m = Matrix(page, n)
    open_seat(page, server.base, code, host)
    # the offline shell needs the service worker in control and the room's page kept
    wait_for_worker(page)
    page.reload()
    expect(page.get_by_test_id("connection-status")).to_have_attribute("data-state", "open")
    wait_for_kept(page)  # this load's page and files, for the offline reload below
    watcher = phone(reduced_motion="reduce")  # R18.1: a second phone watches the game
    watcher.goto(f"{server.base}/r/{code}?watch")
    expect(watcher.get_by_test_id("watch-bar")).to_be_visible()
    page.get_by_test_id("option-limit").select_option("50")  # the game over comes sooner
    page.get_by_test_id("bot-level").select_option("normal")
    for _ in range(bots):
        before = len(view(page)["players"])
        tap(page, "add-bot")
        wait_view(page, f"v.players.length === {before + 1}")

    # --- the lobby, and the help over it; the watcher's lobby
    m.check("lobby", LOBBY)
    m.check("a watcher's lobby", [["[data-testid=stop-watching]", False]], page=watcher)
    tap(page, "help-button")
    m.check("help", [["[data-testid=help-close]", False]])
    tap(page, "help-close")

    # --- the peek phase (1 s here): held while it is checked
    hold.freeze_on(update_with(lambda v: v["status"] == "peek"))
    tap(page, "start-game")
    hold.wait()
    expect(page.get_by_test_id("peek")).to_be_visible()
    m.check("peek", [*TABLE_INSIDE, ["[data-testid=ready-button]", True]], host=True, fit=True)
    hold.release()
    ready_up(page)

    # --- your turn: a King drawn, played; another; a Queen; a Jack; a 9 discarded
    wait_view(page, "v.status === 'playing' && v.turn && v.turn.player === v.you")
    assert draw_from_stock(page) == "KS"
    m.check("your turn holding a King", [*TABLE_INSIDE, *DOCK], host=True, fit=True)
    wait_view(watcher, "v.status === 'playing'")
    m.check("a watcher's table", WATCHER_TABLE, host=True, fit=True, page=watcher)
    tap(page, "action-king")
    wait_view(page, "v.holding === null && v.turn.extra_draws === 2")
    assert draw_from_stock(page) == "KC"
    expect(page.get_by_test_id("kings")).to_have_attribute("data-count", "1")
    m.check("one King beside the piles", [*TABLE_INSIDE, *DOCK], host=True, fit=True)
    tap(page, "action-king")
    wait_view(page, "v.holding === null && v.turn.extra_draws === 3")
    assert draw_from_stock(page) == "QC"
    expect(page.get_by_test_id("kings")).to_have_attribute("data-count", "2")
    m.check("two Kings beside the piles, holding a Queen", [*TABLE_INSIDE, *DOCK],
            host=True, fit=True)
    tap(page, "action-queen")
    tap(page, "my-slot-left")
    tap(page, "seat-p2-slot-right")
    expect(page.get_by_test_id("queen-confirm")).to_be_visible()
    m.check("the Queen's confirmation",
            [*TABLE_INSIDE, ["[data-testid=queen-confirm]", True]], host=True, fit=True)
    tap(page, "queen-confirm")
    wait_view(page, "v.holding === null && v.turn.extra_draws === 2")
    assert draw_from_stock(page) == "JH"
    tap(page, "action-jack")
    expect(page.get_by_test_id("my-slot-middle")).to_have_attribute("data-card", "QH")
    m.check("a Jack's look", [*TABLE_INSIDE, *DOCK], host=True, fit=True)
    assert draw_from_stock(page) == "9S"

    # --- the crisp window (300 ms here), held; no call this time
    hold.freeze_on(update_with(lambda v: "crisp" in v["legal"]))
    tap(page, "action-discard")
    hold.wait()
    expect(page.get_by_test_id("crisp-button")).to_be_enabled()
    m.check("the crisp window", [*TABLE_INSIDE, *DOCK], host=True, fit=True)

    # --- a bystander: someone else holds a drawn card (their turn, held)
    hold.freeze_on(update_with(lambda v: v["turn"] is not None and v["turn"]["player"] != v["you"]
                               and v["turn"]["drawn_from"] is not None))
    hold.wait()
    m.check("a bystander's view", [*TABLE_INSIDE, *DOCK], host=True, fit=True)
    hold.release()

    if humans:
        # --- an away seat: the computer plays it; it reads otherwise than a computer player
        wait_view(page, "v.players.some((p) => p.away)")
        seat = page.get_by_test_id("seat-p2")
        expect(seat.get_by_test_id("away-badge")).to_be_visible()
        expect(seat).to_have_attribute("data-bot", "false")
        m.check("an away seat", [*TABLE_INSIDE, *DOCK], host=True, fit=True)

    # --- an offline reload: the table as last seen, and the phone says it is offline.
    # Meanwhile the seat is held on another socket (as another tab would), so that the
    # computer does not step in (R17.2: 2 s away at this time scale) while this is checked.
    page.context.set_offline(True)
    page.reload(wait_until="domcontentloaded")
    with seat_kept(server, code, host["token"]):
        expect(page.get_by_test_id("reconnecting")).to_have_attribute("data-offline", "true")
        expect(page.get_by_test_id("stock")).to_be_visible()
        expect(page.get_by_test_id("my-slot-left")).to_be_visible()
        m.check("an offline reload", [*TABLE_INSIDE, ["[data-testid=reconnecting]", True]],
                host=True)
        page.context.set_offline(False)  # the page takes its seat back (the keeper's socket: 4409)
        expect(page.get_by_test_id("connection-status")).to_have_attribute("data-state", "open")

    # --- your next turn: a call; then the final turns (held on the first one). A call
    # that misses its 300 ms window on a busy machine only lets the round go on: the
    # next call (yours again, or a computer player's) brings the final turns.
    v = wait_view(page, "v.status !== 'playing' || (v.turn && v.turn.player === v.you)", 15000)
    assert v["status"] == "playing", v["status"]
    held = False
    for _ in range(6):
        if v["crisp"]["caller"]:  # a computer player called first: your own final turn,
            break  # which waits for you (nothing to hold)
        draw_from_stock(page)  # (the page's clock runs: the draw is enabled by it)
        hold.freeze_on(update_with(final_turn_or_mine))
        arm_crisp(page)
        tap(page, "action-discard" if "discard" in view(page)["legal"] else "my-slot-left")
        v = hold.wait(timeout=30)["view"]
        held = True
        if v["crisp"]["caller"]:
            break
        hold.release()  # your turn again: no call came
        held = False
    else:
        pytest.fail("no one called crisp")
    expect(page.get_by_test_id("crisp-info")).to_be_visible()
    m.check("the final turns", [*TABLE_INSIDE, *DOCK], host=True, fit=True)
    if held:
        hold.release()
    if v["turn"]["player"] == v["you"]:  # your own final turn (someone else called)
        play_simple_turn(page, v["you"], call_crisp=False)

    # --- the round's results; rounds until the game is over (you call at once)
    v = wait_view(page, "v.status === 'round_over' || v.status === 'game_over'", 15000)
    m.check("round results", [["[data-testid=next-round]", False]] if v["status"] == "round_over"
            else [["[data-testid=rematch]", False]])
    wait_view(watcher, f"v.version >= {v['version']}")
    m.check("a watcher's round results", [["[data-testid=replay-open]", False]], page=watcher)
    tap(page, "replay-open")  # R18.2: the round's replay, paused on a move
    expect(page.get_by_test_id("replay")).to_have_attribute("data-playing", "true")
    tap(page, "replay-play")
    tap(page, "replay-next")
    m.check("the round's replay", REPLAY)
    tap(page, "replay-close")
    for _ in range(8):
        if v["status"] == "game_over":
            break
        tap(page, "next-round")
        ready_up(page)
        while True:
            v = wait_view(page, "v.status !== 'playing' && v.status !== 'peek'"
                                " || (v.turn && v.turn.player === v.you)", 15000)
            if v["status"] != "playing":
                break
            # (a computer player's call may come first: the call is not waited for)
            play_simple_turn(page, v["you"], call_crisp=not v["turn"]["final"], sure=False)
        v = wait_view(page, "v.status === 'round_over' || v.status === 'game_over'", 15000)
    assert v["status"] == "game_over", "no one reached 50 points"
    m.check("game over", [["[data-testid=rematch]", False], ["[data-testid=winners]", False]])

    # --- the rematch: back in the lobby, said on the page, nothing over the room code
    tap(page, "rematch")
    wait_view(page, "v.status === 'lobby'")
    expect(page.get_by_test_id("rematch-note")).to_be_visible()
    assert not covered(page, "[data-testid=room-code]")
    assert not covered(page, "[data-testid=qr]")
    m.check("rematch, the lobby", LOBBY)

    assert m.problems == [], "\n".join(m.problems)
    assert len(m.moments) == (20 if humans else 19), m.moments


# Whether anything fixed (a notice, a toast) lies over the element.
COVERED = """(sel) => {
  const el = document.querySelector(sel);
  const r = el.getBoundingClientRect();
  return [...document.querySelectorAll('.overlays *')].some((o) => {
    const b = o.getBoundingClientRect();
    return b.width > 0 && b.left < r.right && r.left < b.right
      && b.top < r.bottom && r.top < b.bottom;
  });
}"""


def covered(page: Page, selector: str) -> bool:
    return bool(page.evaluate(COVERED, selector))


@contextlib.contextmanager
def seat_kept(server: Any, code: str, token: str) -> Iterator[None]:
    """A websocket on a seat (its token), read until the server closes it: the seat
    stays connected while the page cannot be (as another tab of the same player)."""
    url = server.base.replace("http://", "ws://") + f"/ws/{code}"
    with connect(url, origin=server.base) as ws:  # type: ignore[arg-type]
        ws.send(json.dumps({"type": "hello", "token": token}))
        first = json.loads(ws.recv(timeout=10))
        assert first["type"] == "update", first

        def drain() -> None:
            with contextlib.suppress(ConnectionClosed):
                while True:
                    ws.recv()

        reader = threading.Thread(target=drain, daemon=True)
        reader.start()
        try:
            yield
        finally:
            ws.close()
            reader.join(10)

