"""The watcher audit (R18.1): every frame a watcher received shows nobody's seat, and
no card that is hidden at that moment.

- `audit_watcher(frames, tokens)`: the shape of every frame: the protocol models
  (`extra="forbid"`), `you` null, `watching` true, nothing held, nothing legal, no
  `peek` event, no card in a stock draw, no Queen's cards, no token, `seq` +1.
- `audit_against_replays(frames, replays)`: the truth, from each round's record
  (GET /api/rooms/{code}/rounds/{n}: the deal with the stock order, every move
  unredacted): the watcher's game events are the round's moves as nobody's seat
  sees them, in order; every public card (a discard, a special played, a discard
  draw, the pile's top, the reveal) is the true one; and after every frame, no
  card that is hidden (in the stock, in a hand, held, never shown face up) appears
  anywhere in its text. A test deck makes round 1's truth known before any record:
  `deal_of(deck, players, dealer)` checks the record's deal against it.
- `same_table(frames, reference)`: a watcher that reconnected saw, at every version
  and moment (the update's `now`), the table the reference watcher saw (first
  updates without events included); a difference names the fields and both values.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from crisp.engine import FULL_DECK
from crisp.server.wire.frames import SERVER_ADAPTER

ALL_CARDS = [c.text for c in FULL_DECK]
SLOTS = ("left", "middle", "right")
# events of the room, not of a round: never in a round's record (rooms/round_record.py)
NOT_MOVES = {"joined", "left", "connected", "disconnected", "options", "away", "back",
             "host_changed", "bot_added", "rematch", "round_started"}
PER_CONNECTION = ("lag_ms", "watchers")  # view fields that may differ between watchers


def audit_watcher(frames: list[dict[str, Any]], tokens: set[str]) -> int:
    """The shape of every frame of one watcher connection; how many were checked."""
    seq = 0
    for frame in frames:
        SERVER_ADAPTER.validate_python(frame)
        text = json.dumps(frame)
        assert not any(t and t in text for t in tokens), "a token reached a watcher"
        if frame["type"] == "error":
            continue
        seq += 1
        assert frame["seq"] == seq
        view = frame["view"]
        assert view["you"] is None and view["watching"] is True, view
        assert view["holding"] is None and view["legal"] == [], view
        if seq == 1:
            assert frame["events"] == [], "a watcher is owed nothing (R16.3)"
        for ev in frame["events"]:
            assert ev["kind"] != "peek", f"a look reached a watcher: {ev}"
            if ev["kind"] == "drew" and ev["source"] == "stock":
                assert ev["card"] is None, f"a stock draw's card reached a watcher: {ev}"
            assert "own_card" not in ev and "target_card" not in ev, ev
        if view["status"] not in ("round_over", "game_over"):
            assert all(c is None for p in view["players"] for c in p["cards"]), view
    return len(frames)


def as_watcher_sees(move: dict[str, Any]) -> dict[str, Any] | None:
    """A record's move as the live event nobody's seat gets (None: not sent)."""
    if move["kind"] == "peek":
        return None
    out = {k: v for k, v in move.items() if k not in ("i", "at", "own_card", "target_card")}
    if out["kind"] == "drew" and out["source"] == "stock":
        out["card"] = None
    return out


class Truth:
    """One round's table as it really is, from its record: hands, stock (top first),
    pile, the card held, the Kings beside the piles, and which cards were shown
    face up to everyone (R16.4)."""

    def __init__(self, replay: dict[str, Any]) -> None:
        deal = replay["deal"]
        self.hands = {p: list(cards) for p, cards in deal["hands"].items()}
        self.stock: list[str] = list(deal["stock"])
        self.pile: list[str] = list(deal["discard"])
        self.held: str | None = None
        self.kings: list[str] = []
        self.public: set[str] = set()
        self.over = False
        self.moves: Iterator[dict[str, Any]] = iter(replay["moves"])

    def next_move(self) -> dict[str, Any]:
        for move in self.moves:
            if as_watcher_sees(move) is not None:
                return move
            self.apply(move)  # a look: nothing public changes
        raise AssertionError("the watcher saw more game events than the record holds")

    def apply(self, m: dict[str, Any]) -> None:
        kind = m["kind"]
        if kind == "stock_rebuilt":  # R4.2: the pile turned over, its first card on top
            self.stock, self.pile = self.pile, []
        elif kind == "drew":
            self.held = self.stock.pop(0) if m["source"] == "stock" else self.pile.pop()
            assert m["card"] == self.held, (m, self.held)
            if m["source"] == "discard":
                self.public.add(self.held)
        elif kind == "swapped":
            slot = SLOTS.index(m["slot"])
            old, self.hands[m["player"]][slot] = self.hands[m["player"]][slot], self.held
            assert m["discarded"] == old, (m, old)
            self._face_up(old)
        elif kind == "discarded":
            card = self.held if self.held is not None else self.stock.pop(0)  # R14.2a
            assert m["card"] == card, (m, card)
            self._face_up(card)
        elif kind in ("jack", "queen"):
            assert m["card"] == self.held, (m, self.held)
            if kind == "queen":
                a, b = SLOTS.index(m["slot"]), SLOTS.index(m["target_slot"])
                mine, theirs = self.hands[m["player"]], self.hands[m["target"]]
                assert (mine[a], theirs[b]) == (m["own_card"], m["target_card"]), m
                mine[a], theirs[b] = theirs[b], mine[a]
            self._face_up(m["card"])
        elif kind == "king":
            assert m["card"] == self.held, (m, self.held)
            self.public.add(m["card"])
            self.kings.append(m["card"])
            self.held = None
        elif kind in ("turn_started", "round_over"):
            self.pile += self.kings  # R9.3: the turn's Kings go on the pile
            self.kings = []
            if kind == "round_over":
                assert m["hands"] == self.hands, (m["hands"], self.hands)
                self.public.update(c for cards in self.hands.values() for c in cards)
                self.over = True

    def _face_up(self, card: str) -> None:
        self.pile.append(card)
        self.public.add(card)
        self.held = None

    def hidden(self) -> set[str]:
        """The cards nobody may be shown now: face down and never shown face up."""
        down = set(self.stock) | {c for cards in self.hands.values() for c in cards}
        if self.held is not None:
            down.add(self.held)
        return down - self.public


def audit_against_replays(frames: list[dict[str, Any]], replays: dict[int, dict[str, Any]]
                          ) -> int:
    """Check one continuous watcher connection against the records of the rounds it
    saw begin (`replays`: round -> replay); how many frames were checked against a
    record. Frames of a round without a record (unfinished) are left to
    `audit_watcher`."""
    truth: Truth | None = None
    round_no = 0
    checked = 0
    for frame in frames:
        if frame["type"] != "update":
            continue
        since = 0  # the frame's events of the round `truth` is about
        for k, ev in enumerate(frame["events"]):
            if ev["kind"] == "round_started":
                rep = replays.get(ev["round"])
                round_no, since = ev["round"], k
                truth = None if rep is None else Truth(rep)
                if rep is not None:
                    assert (rep["round"], rep["dealer"]) == (ev["round"], ev["dealer"])
            elif ev["kind"] not in NOT_MOVES and truth is not None and not truth.over:
                move = truth.next_move()
                assert ev == as_watcher_sees(move), (ev, move)
                truth.apply(move)
        if truth is None:
            continue
        view = frame["view"]
        # the last round's reveal, in the view or in events before this deal, is public
        last = view["last_round"]
        shown = {k: v for k, v in view.items()
                 if k != "last_round" or (last is not None and last["round"] == round_no)}
        text = json.dumps({"view": shown, "events": frame["events"][since:]})
        leaked = [c for c in truth.hidden() if f'"{c}"' in text]
        assert not leaked, f"hidden cards {leaked} in a watcher's frame: {text[:2000]}"
        if view["status"] in ("playing", "peek") or (truth.over and view["status"] != "lobby"):
            assert view["discard_top"] == (truth.pile[-1] if truth.pile else None), view
            assert (view["stock_count"], view["discard_count"]) == (
                len(truth.stock), len(truth.pile)), view
        checked += 1
    return checked


def deal_of(deck: list[str], players: list[str], dealer: str) -> dict[str, list[str]]:
    """The hands a test deck deals (R2.2: from the player after the dealer, one card at
    a time, three passes: left, middle, right)."""
    n, first = len(players), players.index(dealer) + 1
    hands: dict[str, list[str]] = {p: [] for p in players}
    for k in range(3 * n):
        hands[players[(first + k) % n]].append(deck[k])
    return hands


def same_table(frames: list[dict[str, Any]], reference: list[dict[str, Any]]) -> int:
    """Every view of a watcher is the reference watcher's view of the same version
    at the same moment (but for each connection's own fields), and its events are
    among the reference's; how many views were compared.

    A view describes one moment (docs/rules-decisions.md, "`version` in the view"):
    built at a `now` past a deadline its state has not applied yet (a window's
    end, a draw's time, a seat away, the peek's end), it shows the table at that
    `now` under the stored state's version, and the update that applies the
    deadline brings the next version. Two watchers written one version at two
    readings of the clock (one written late, or sent the table again on a hello
    or a resync) may so see two moments of it: views are compared by `version`
    and the update's `now`."""
    views: dict[tuple[int, int], dict[str, Any]] = {}
    texts: set[str] = set()
    for f in reference:
        if f["type"] == "update":
            views.setdefault((f["view"]["version"], f["now"]), f["view"])
            texts.update(json.dumps(e, sort_keys=True) for e in f["events"])
    compared = 0
    for f in frames:
        if f["type"] != "update":
            continue
        ref = views.get((f["view"]["version"], f["now"]))
        if ref is not None:
            mine = {k: v for k, v in f["view"].items() if k not in PER_CONNECTION}
            theirs = {k: v for k, v in ref.items() if k not in PER_CONNECTION}
            differ = {k: (mine.get(k), theirs.get(k))
                      for k in sorted(mine.keys() | theirs.keys())
                      if mine.get(k) != theirs.get(k)}  # fmt: skip
            assert not differ, (
                f"version {f['view']['version']} at {f['now']}: two watchers' views "
                f"differ in {sorted(differ)} (this watcher's, the reference's): {differ}"
            )
            compared += 1
        for e in f["events"]:
            assert json.dumps(e, sort_keys=True) in texts, e
    return compared
