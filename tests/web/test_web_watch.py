"""Watching, replays and the memory review in the browser (R18.1-R18.3), with a real
`crisp serve` (time scale 0.1) and Debian's Chromium at 360 px.

- A watcher opens `/r/{code}?watch`: no name asked, a clear "watching" bar, the
  lobby and the table as the players' (nobody's seat: no cards of its own, no
  actions), never a card that is hidden (the host's drawn card is nowhere on the
  watcher's page until it is discarded); the players and the watcher see how many
  watch; a stranger's home screen offers "Watch" for a room in play; the host's
  turning watching off sends the watcher home, saying why.
- From the round results: "Replay" plays the round by itself, every card face up,
  the move's seat and positions marked, steps by hand, closes.
- "What you remembered": on the host's own results, each card seen against the
  card there; a card changed behind her back names the Queen and its turn
  ("Budi's Queen, turn 3"), in English, Arabic and Indonesian.
- Each of these screens passes the layout matrix's checks (browser_kit
  `layout_problems`: 360/390/412 px, en/ar/id).
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from playwright.sync_api import Page, expect
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from tests.support.decks import deck, deck_for
from tests.web.browser_kit import (
    arm_crisp,
    draw_from_stock,
    layout_problems,
    open_seat,
    play_simple_turn,
    ready_up,
    switch_language,
    tap,
    view,
    wait_js,
    wait_view,
)

pytestmark = pytest.mark.browser

WATCHER_TABLE = [["[data-testid=draw-timer]", True], ["[data-testid=log-button]", True],
                 ["[data-testid=stock]", False], ["[data-testid=stop-watching]", True]]
REPLAY = [["[data-testid=replay-caption]", False], ["[data-testid=replay-play]", False],
          ["[data-testid=replay-close]", False]]
# every card face on a watcher's page (attributes and faces), to find a hidden one
FACES = """() => [...document.querySelectorAll('[data-card]')].map((e) => e.dataset.card)
  .concat([...document.querySelectorAll('.card.up .corner')].map((e) => e.textContent))"""


def watch(page: Page, base: str, code: str) -> None:
    page.goto(f"{base}/r/{code}?watch")
    expect(page.get_by_test_id("watch-bar")).to_be_visible()
    expect(page.get_by_test_id("connection-status")).to_have_attribute("data-state", "open")


def test_r18_1_a_watcher_follows_the_game_and_never_sees_a_hidden_card(
    server: Any, phone: Callable[..., Page]
) -> None:
    host_seat = server.post("/api/rooms", {"name": "Ana", "deck": deck("JS", "2C", "3C", "4C",
                                                                          "5C", "6C", "9D"),
                                           "dealer": 1})
    code = host_seat["code"]
    host, eve, sam = phone(reduced_motion="reduce"), phone(reduced_motion="reduce"), phone()
    open_seat(host, server.base, code, host_seat)
    watch(eve, server.base, code)
    assert eve.get_by_test_id("name-input").count() == 0  # no name asked
    assert eve.evaluate("() => window.crisp.state.view.you") is None
    expect(eve.get_by_test_id("watchers-count")).to_have_attribute("data-count", "1")
    assert eve.get_by_test_id("leave-room").count() == 0
    problems = layout_problems(eve, "watcher, lobby", [["[data-testid=stop-watching]", False]],
                               host=False)
    tap(host, "add-bot")  # a change of the table: the host's update carries the count
    wait_view(host, "v.players.length === 2 && v.watchers === 1")
    expect(host.get_by_test_id("watchers-count")).to_have_attribute("data-count", "1")
    tap(host, "start-game")
    ready_up(host)
    wait_view(eve, "v.status === 'playing'")
    assert eve.get_by_test_id("me").count() == 0  # nobody's seat: no cards of its own
    assert eve.get_by_test_id("action-discard").count() == 0  # and nothing to tap
    expect(eve.get_by_test_id("seat-p1")).to_be_visible()
    problems += layout_problems(eve, "watcher, the table", WATCHER_TABLE, host=True)
    # the host draws: the card is hers alone, then public once discarded (R16.4)
    v = wait_view(host, "v.turn && v.turn.player === v.you")
    held = draw_from_stock(host)
    wait_view(eve, f"v.version >= {view(host)['version']}")
    assert held not in eve.evaluate(FACES), f"{held} reached the watcher while held"
    expect(eve.get_by_test_id("holding")).to_have_attribute("data-card", "")
    arm_crisp(host)  # R10: the round ends after the computer's final turn
    tap(host, "action-discard" if "discard" in view(host)["legal"] else "my-slot-left")
    expect(eve.get_by_test_id("discard-pile")).to_have_attribute("data-card", held, timeout=8000)
    wait_view(eve, "v.status === 'round_over' || v.status === 'game_over'", 15000)
    assert v["you"] == "p1"
    # the watcher's results: no button of a player's, the replay there
    expect(eve.get_by_test_id("watch-bar")).to_be_visible()
    assert eve.get_by_test_id("ready-button").count() == 0
    problems += layout_problems(eve, "watcher, round results",
                                [["[data-testid=replay-open]", False]], host=False)
    # a stranger: the shared link of a room in play offers to watch
    sam.goto(f"{server.base}/r/{code}")
    tap(sam, "watch-room")
    expect(sam.get_by_test_id("watch-bar")).to_be_visible()
    assert sam.evaluate("() => location.search") == "?watch"
    # the replay, from the watcher's results: playing by itself, every card face up
    tap(eve, "replay-open")
    replay = eve.get_by_test_id("replay")
    expect(replay).to_have_attribute("data-playing", "true")
    wait_js(eve, "() => Number(document.querySelector('[data-testid=replay]').dataset.step) >= 2",
            "the replay playing by itself to its step 2 (data-step)")
    tap(eve, "replay-play")  # pause
    expect(replay).to_have_attribute("data-playing", "false")
    step = int(replay.get_attribute("data-step") or 0)
    tap(eve, "replay-next")
    expect(replay).to_have_attribute("data-step", str(step + 1))
    cards = eve.evaluate("() => [...document.querySelectorAll('.replay-seats [data-card]')]"
                         ".map((e) => e.dataset.card)")
    assert len(cards) == 6 and all(cards), cards  # two seats, three cards each, all face up
    tap(eve, "replay-last")
    expect(eve.get_by_test_id("replay-caption")).to_have_attribute("data-kind", "round_over")
    problems += layout_problems(eve, "the replay", REPLAY, host=False)
    tap(eve, "replay-close")
    expect(eve.get_by_test_id("replay")).to_have_count(0)
    assert problems == [], "\n".join(problems)


def test_r18_1_watching_off_sends_the_watcher_home(server: Any, phone: Callable[..., Page]) -> None:
    host_seat = server.post("/api/rooms", {"name": "Ana"})
    code = host_seat["code"]
    host, eve = phone(), phone()
    open_seat(host, server.base, code, host_seat)
    watch(eve, server.base, code)
    host.get_by_test_id("option-watchers").uncheck()
    expect(eve.locator("p[role=alert]")).to_contain_text(f"Watching is off in room {code}")
    assert eve.evaluate("() => location.pathname") == "/"
    assert server.get(f"/api/rooms/{code}")["watchers"] == 0


class Seat:
    """A player on a websocket of the test's own (the test plays it move by move)."""

    def __init__(self, ws: ClientConnection, token: str) -> None:
        self.ws = ws
        self.ws.send(json.dumps({"type": "hello", "token": token}))
        self.view: dict[str, Any] = json.loads(self.ws.recv(timeout=10))["view"]
        self.lock = threading.Condition()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        with contextlib.suppress(ConnectionClosed):
            for raw in self.ws:
                msg = json.loads(raw)
                if msg["type"] == "update":
                    with self.lock:
                        self.view = msg["view"]
                        self.lock.notify_all()

    def wait(self, pred: Callable[[dict[str, Any]], bool], timeout: float = 10) -> dict[str, Any]:
        with self.lock:
            assert self.lock.wait_for(lambda: pred(self.view), timeout), self.view
            return self.view

    def play(self, *msgs: dict[str, Any]) -> None:
        """On its turn (once it may draw: R10.4, `may_start_at`), send `msgs` in order,
        each after the table showed the one before."""
        v = self.wait(lambda v: v["turn"] is not None and v["turn"]["player"] == v["you"])
        # paces the seat to the moment the server announced (may_start_at; 20 ms for its ms)
        time.sleep(max(0.0, v["turn"]["may_start_at"] / 1000 - time.time()) + 0.02)
        for msg in msgs:
            version = self.view["version"]
            self.ws.send(json.dumps(msg))
            self.wait(lambda v, n=version: v["version"] > n)

@contextlib.contextmanager
def seated(base: str, code: str, token: str) -> Iterator[Seat]:
    url = base.replace("http://", "ws://") + f"/ws/{code}"
    with connect(url, origin=base) as ws:  # type: ignore[arg-type]
        seat = Seat(ws, token)
        try:
            yield seat
        finally:
            ws.close()
            seat.reader.join(5)


def test_r18_3_what_you_remembered_names_the_queen_that_changed_a_card(
    server: Any, phone: Callable[..., Page]
) -> None:
    """Ana looks at her middle with a Jack (R7.1); Budi's Queen takes it, which Ana
    is not shown (R8.4): her review names Budi's Queen and its turn."""
    hands = {"p1": ["AS", "9H", "8H"], "p2": ["TH", "2S", "3S"]}
    script = deck_for(hands, ["2C", "JD", "QD", "4C", "5C", "6C"], dealer=0)
    ana_seat = server.post("/api/rooms", {"name": "Ana", "deck": script, "dealer": 0})
    code = ana_seat["code"]
    budi_seat = server.post(f"/api/rooms/{code}/players", {"name": "Budi"})
    ana = phone(reduced_motion="reduce")
    open_seat(ana, server.base, code, ana_seat)
    with seated(server.base, code, budi_seat["token"]) as budi:
        wait_view(ana, "v.players.length === 2 && v.players.every((p) => p.connected)")
        tap(ana, "start-game")
        budi.wait(lambda v: v["status"] == "peek")
        budi.ws.send(json.dumps({"type": "ready"}))
        ready_up(ana)
        budi.play({"type": "draw", "source": "stock"}, {"type": "discard"})  # turn 1: 2C
        wait_view(ana, "v.turn && v.turn.player === v.you")
        assert draw_from_stock(ana) == "JD"  # turn 2: Ana's Jack, a look at her middle
        tap(ana, "action-jack")
        expect(ana.get_by_test_id("my-slot-middle")).to_have_attribute("data-card", "9H")
        budi.play({"type": "draw", "source": "stock"},  # turn 3: Budi's Queen, his left
                  {"type": "queen", "slot": "left", "target": "p1", "target_slot": "middle"})
        play_simple_turn(ana, "p1", call_crisp=True)  # turn 4, and a call
        budi.play({"type": "draw", "source": "stock"}, {"type": "discard"})  # his final turn
        wait_view(ana, "v.status === 'round_over'")
    memory = ana.get_by_test_id("memory")
    middle = memory.get_by_test_id("memory-middle")
    expect(middle).to_have_attribute("data-seen", "9H")
    expect(middle).to_have_attribute("data-actual", "TH")
    expect(middle).to_contain_text("Budi's Queen, turn 3")
    expect(memory.get_by_test_id("memory-left")).to_have_attribute("data-seen", "AS")
    want = {"ar": "ملكة Budi، الدور 3", "id": "Queen Budi, giliran ke-3"}
    for lang, text in want.items():
        switch_language(ana, lang)
        shown = middle.inner_text().replace("\u2068", "").replace("\u2069", "")
        assert text in shown, (lang, shown)
    switch_language(ana, "en")
    inside = [["[data-testid=memory]", False], ["[data-testid=replay-open]", False]]
    problems = layout_problems(ana, "round results with what you remembered", inside, host=False)
    assert problems == [], "\n".join(problems)
