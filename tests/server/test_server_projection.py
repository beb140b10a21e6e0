"""The shared-frame updates (crisp/server/projection.py) are the plain ones, byte for
byte: every seat of many random tables, at moments around their deadlines, with
every event of the step that made them (R16.3: each seat sees only its own)."""

from __future__ import annotations

import json
import random

import pytest

from crisp import engine
from crisp.bots.selfplay import play_game, random_options
from crisp.engine import Event, State
from crisp.server.wire.projection import SHARE_MS, EventTexts, Frame, Shared, plain_update


def _tables(seed: int) -> list[tuple[State, list[Event]]]:
    """Every state of a few random games (2-8 seats, random options), each with the
    events of a step near it."""
    rng = random.Random(seed)
    out: list[tuple[State, list[Event]]] = []
    for players in (2, 4, 8):
        result = play_game(["random"] * players, rng, options=random_options(rng), keep=True,
                           max_rounds=2)  # fmt: skip
        events = result.events
        for state in result.states:
            start = rng.randrange(max(1, len(events)))
            out.append((state, events[start : start + rng.randrange(1, 6)]))
    return out


def _moments(state: State, rng: random.Random) -> list[int]:
    """Moments before, at and after the table's next deadline."""
    due = engine.next_deadline(state)
    base = due if due is not None else 1_000_000
    return [base - 1, base, base + rng.randrange(1, 40_000)]


@pytest.mark.parametrize("seed", [1, 2])
def test_frame_updates_equal_plain_updates(seed: int) -> None:
    rng = random.Random(seed)
    checked = 0
    for state, events in _tables(seed):
        texts = EventTexts(events)
        for now in _moments(state, rng):
            locked = rng.random() < 0.3
            watchers = rng.choice((0, 1, 50))  # R18.1
            frame = Frame(state, "ABCD2345", locked, now, watchers)
            for pid in [*(p.id for p in state.players), None]:  # None: a watcher (R18.1)
                seq = rng.randrange(1, 10_000)
                redacted = [r for ev in events if (r := engine.redact(ev, pid)) is not None]
                shown = [t for ev in events if (t := texts.text(ev, pid)) is not None]
                lag = rng.choice((None, 0, 7, 150, 300, 1234))  # per connection (R18.4)
                plain = plain_update(state, "ABCD2345", locked, pid, seq, now, redacted, lag,
                                     watchers)
                assert frame.update_text(pid, seq, shown, lag) == plain
                checked += 1
    assert checked > 500


def test_names_outside_ascii_and_json_escapes_are_the_same() -> None:
    state = engine.new_table('Zoë "the" \\ 王', options=None, time_scale=1.0, now=0)
    state, _, _ = engine.add_player(state, "Ægir\u200b", 0)
    for now in (0, 10_000_000):
        frame = Frame(state, "ABCD2345", False, now)
        for p in state.players:
            text = frame.update_text(p.id, 7, [])
            assert text == plain_update(state, "ABCD2345", False, p.id, 7, now, [])
            assert json.loads(text)["view"]["you"] == p.id


def test_owed_peeks_made_for_one_seat_are_not_cached_by_identity() -> None:
    """Events outside the change (made per seat) are redacted afresh each time."""
    state = engine.new_table("a", options=None, time_scale=1.0, now=0)
    texts = EventTexts([])
    for card in ("4C", "KH"):
        ev = Event("peek", {"player": "p1", "slot": "left", "card": card}, to="p1")
        assert json.loads(texts.text(ev, "p1") or "")["card"] == card
        assert texts.text(ev, "p2") is None
    assert state.players[0].id == "p1"


def test_a_frame_is_shared_only_within_share_ms() -> None:
    state = engine.new_table("a", options=None, time_scale=1.0, now=0)
    shared = Shared()
    first = shared.frame_at(state, "ABCD2345", False, 1000)
    assert shared.frame_at(state, "ABCD2345", False, 1000 + SHARE_MS) is first
    later = shared.frame_at(state, "ABCD2345", False, 1001 + SHARE_MS)
    assert later is not first and later.now == 1001 + SHARE_MS
    assert shared.frame_at(state, "ABCD2345", False, 1000).now == 1000  # never back in time


def test_r18_1_a_watcher_s_update_is_nobody_s_and_history_links_replays() -> None:
    """A watcher's update: `you` null, `watching` true, nothing held or legal, the
    room's watcher count; every view's history entries link their replay (R18.2)."""
    result = play_game(["random"] * 3, random.Random(3), keep=True, max_rounds=2)
    state = next(s for s in result.states if s.history)
    frame = Frame(state, "ABCD2345", False, 10**12, watchers=4)
    view = json.loads(frame.update_text(None, 1, []))["view"]
    assert view["you"] is None and view["watching"] is True and view["watchers"] == 4
    assert view["holding"] is None and view["legal"] == []
    assert [h["replay"] for h in view["history"]] == [
        f"/api/rooms/ABCD2345/rounds/{h['round']}" for h in view["history"]]
    seat = json.loads(frame.update_text(state.players[0].id, 1, []))["view"]
    assert seat["watching"] is False and seat["history"] == view["history"]
