"""The generic table (crisp/table) around every registered game and the test-only
game: the lobby, options and seats per game, a whole game with humans (played by
their phones' stand-in, the game's bot on the seat's own view), computer players
and an away seat, the match tally across a rematch, presence, leaving and kicks;
the table's JSON round trip and its version at every step."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest

from crisp.games import registry
from crisp.games.api import Ctx, Game, GameError, Setup
from crisp.table import table as tb
from crisp.table import view as tv
from tests.games.contract import highcard
from tests.games.contract.audit import cards_in
from tests.games.contract.conftest import contract_games

GAMES = [pytest.param(g.id, id=g.id) for g in contract_games()]
NAMES = ["Ana", "Ben", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal"]


@pytest.fixture(autouse=True)
def _highcard_hosted() -> Iterator[None]:
    registry.register(highcard.GAME)
    try:
        yield
    finally:
        registry.unregister(highcard.GAME_ID)


def lobby(game_id: str, humans: int, bots: int = 0, now: int = 0) -> tb.Table:
    t = tb.new_table(game_id, NAMES[0], now)
    for name in NAMES[1:humans]:
        t, _, _ = tb.join(t, name, now)
    for pid in t.ids():
        t, _ = tb.set_connected(t, pid, True, now)
    for i in range(bots):
        t, _ = tb.add_bot(t, "p1", t.game.bot_levels[0], f"Bot {i + 1}")
    return t


class Driver:
    """Plays a table to the end of its game: humans by the game's bot on their own
    view, the computer's seats as the table says, deadlines as the scheduler would;
    after every change the table's JSON round trip, its version and every view."""

    def __init__(self, t: tb.Table, seed: int) -> None:
        self.t, self.rng, self.now = t, random.Random(seed), 1_000
        self.game: Game[Any, Any] = t.game
        self.bots = {p: self.game.bot(s.bot_level or self.game.bot_levels[0])
                     for p, s in zip(t.ids(), t.seats, strict=True)}
        self.memory = {p: b.fresh(p) for p, b in self.bots.items()}
        self.versions = [t.version]
        self.away_moves = 0
        self.game_events = 0  # the game's own events (not the table's): the record's moves

    def changed(self, t: tb.Table, events: list[Any]) -> None:
        assert t.version > self.versions[-1]
        self.versions.append(t.version)
        self.game_events += sum(not isinstance(ev, tb.Said) for ev in events)
        assert (tb.replay(t) is None) == (not t.over)  # R18.2: only once the game is over
        again = tb.Table.from_json(json.loads(json.dumps(t.to_json())))
        assert again.to_json() == t.to_json()
        for viewer in [*t.ids(), None]:
            shown = tv.view(t, viewer, self.now)
            assert tv.view(again, viewer, self.now) == shown
            hidden = self.game.hidden(t.play, viewer) if t.play is not None else set()
            assert not set(cards_in(shown)) & hidden, (viewer, shown)
        for p in t.ids():
            seen = [e for e in (tv.redact(t, ev, p) for ev in events) if e is not None]
            self.memory[p] = self.bots[p].observe(self.memory[p], tv.view(t, p, self.now), seen)
        self.t = t

    def play(self, away: str | None = None) -> tb.Table:
        t, events = tb.start(self.t, "p1", Setup(), Ctx(self.now, self.rng))
        self.changed(t, events)
        if away is not None:  # a human who loses their phone for good
            self.changed(*tb.set_connected(self.t, away, False, self.now))
        for _ in range(6000):
            if self.t.over:
                return self.t
            d = tb.due(self.t)
            if d is not None and d <= self.now:
                self.changed(*tb.advance(self.t, Ctx(self.now, self.rng)))
                continue
            computer = dict(tb.computer(self.t, self.now))
            movers = [p for p in self.game.to_act(self.t.play, self.now)
                      if p in computer or (self.t.seat(p).bot_level is None and p != away)]
            self.rng.shuffle(movers)
            for p in movers:
                msg = self.bots[p].decide(self.memory[p], tv.view(self.t, p, self.now),
                                          self.now, self.rng)
                if msg is not None:
                    self.away_moves += p == away
                    self.changed(*tb.act(self.t, p, msg, Ctx(self.now, self.rng)))
                    break
            else:
                self.now = d if d is not None and not movers else self.now + 700
                continue
            self.now += self.rng.randrange(700)
        raise AssertionError("no end")


@pytest.mark.parametrize("game_id", GAMES)
def test_a_game_through_the_table_with_an_away_seat_and_a_rematch(game_id: str) -> None:
    game = registry.get(game_id)
    humans = max(2, game.seats.min - 1)
    bots = 1 if humans < game.seats.max else 0
    t = lobby(game_id, humans, bots)
    driver = Driver(t, 4242)
    over = driver.play(away="p2")
    assert over.over and set(over.winners) <= set(over.ids())
    assert driver.away_moves > 0, "the computer played the away seat (R17.2)"
    assert over.seat("p2").away
    replay = tb.replay(over)  # R18.2: every move of the game, unredacted, in order
    assert replay is not None and replay["game"] == game_id
    assert len(replay["moves"]) == driver.game_events
    assert [m["i"] for m in replay["moves"]] == list(range(driver.game_events))
    ats = [m["at"] for m in replay["moves"]]
    assert ats == sorted(ats)
    assert all("record" not in tv.view(over, v, driver.now) for v in [*over.ids(), None])
    assert sum(over.match.values()) >= 1
    assert "rematch" in tv.legal(over, "p1", driver.now)
    with pytest.raises(GameError) as refused:
        tb.rematch(over, "p2")
    assert refused.value.code == "not_host"
    back, _ = tb.rematch(over, "p1")
    assert back.play is None and back.match == over.match and back.record == ()
    assert tv.view(back, None, 0)["status"] == "lobby"
    again = Driver(back, 99).play()
    assert sum(again.match.values()) > sum(over.match.values())  # the tally grows


@pytest.mark.parametrize("game_id", GAMES)
def test_options_seats_and_levels_are_the_games(game_id: str) -> None:
    game = registry.get(game_id)
    t = lobby(game_id, 1)
    for bad in ({"no_such_option": 1}, {next(iter(game.options)): "surely not"}):
        with pytest.raises(GameError) as refused:
            tb.set_options(t, "p1", bad)
        assert refused.value.code == "bad_message"
    name, option = next(iter(game.options.items()))
    t2, _ = tb.set_options(t, "p1", {name: option.choices[-1]})
    assert t2.options[name] == option.choices[-1] and t2.version == t.version + 1
    if game.seats.min > 1:
        with pytest.raises(GameError) as refused:
            tb.start(t, "p1", Setup(), Ctx(0, random.Random(1)))
        assert refused.value.code == "illegal"
    with pytest.raises(GameError) as refused:
        tb.add_bot(t, "p1", "grandmaster", "Bot")
    assert refused.value.code == "bad_message"
    for i in range(game.seats.max - 1):
        t, _ = tb.add_bot(t, "p1", game.bot_levels[-1], f"Bot {i}")
    for refusal, call in (("room_full", lambda: tb.add_bot(t, "p1", game.bot_levels[0], "B")),
                          ("room_full", lambda: tb.join(t, "Zed", 0))):
        with pytest.raises(GameError) as refused:
            call()
        assert refused.value.code == refusal
    t, _ = tb.start(t, "p1", Setup(), Ctx(0, random.Random(1)))
    with pytest.raises(GameError) as refused:
        tb.join(t, "Zed", 0)
    assert refused.value.code in ("game_started", "room_full")


def test_leaving_kicking_and_the_host_role() -> None:
    t = lobby("highcard", 3)
    t, events = tb.leave(t, "p1")  # the host leaves the lobby: the role passes on
    assert t.host == "p2" and [e.kind for e in events] == ["left", "host_changed"]
    assert t.ids() == ["p2", "p3"]
    with pytest.raises(GameError):
        tb.kick(t, "p3", "p2")  # not the host
    t, _, _ = tb.join(t, "Dee", 0)
    t, _ = tb.start(t, "p2", Setup(), Ctx(0, random.Random(3)))
    t, events = tb.kick(t, "p2", "p4")  # in a game the computer takes the seat (R17.5)
    assert t.seat("p4").bot_level == highcard.GAME.bot_levels[0]
    assert [e.kind for e in events] == ["took_over"]
    assert ("p4", "easy") in tb.computer(t, 0) or "p4" not in highcard.GAME.to_act(t.play, 0)
    t, events = tb.leave(t, "p3")  # R17.5: told as a kick is
    assert t.seat("p3").bot_level is not None and [e.kind for e in events] == ["took_over"]
    assert "leave" not in tv.legal(t, "p3", 0)
    with pytest.raises(GameError) as refused:
        tb.act(t, "p2", {"type": "no_such_move"}, Ctx(0, random.Random(3)))
    assert refused.value.code == "bad_message"


def test_presence_away_and_back() -> None:
    t = lobby("highcard", 2)
    t, events = tb.set_connected(t, "p2", False, 5_000)
    assert [e.kind for e in events] == ["disconnected"]
    assert tb.due(t) == 5_000 + tb.AWAY_MS
    t2, events = tb.advance(t, Ctx(5_000 + tb.AWAY_MS - 1, random.Random(1)))
    assert events == [] and t2 is t
    t, events = tb.advance(t, Ctx(5_000 + tb.AWAY_MS, random.Random(1)))
    assert [e.kind for e in events] == ["away"] and t.seat("p2").away
    t, events = tb.set_connected(t, "p2", True, 30_000)
    assert [e.kind for e in events] == ["connected", "back"] and not t.seat("p2").away
    watcher = tv.view(t, None, 30_000)
    assert watcher["you"] is None and watcher["watching"] and watcher["legal"] == []
    assert watcher["game"] == "highcard"


def test_c3_2_after_a_rematch_the_loser_deals_first_with_no_cut() -> None:
    """The table keeps the finished game for the rematch (`Setup.previous`): Cribbage
    deals the first hand of the rematch from the loser's seat (C3.2), no cut (C3.1
    is for a first game); with other players, the cut again."""
    from crisp.games.cribbage import rematch_dealer

    over = Driver(lobby("cribbage", 2), 7).play()
    back, _ = tb.rematch(over, "p1")
    assert back.previous is over.play
    assert tb.Table.from_json(json.loads(json.dumps(back.to_json()))).to_json() == back.to_json()
    started, events = tb.start(back, "p1", Setup(), Ctx(5_000, random.Random(1)))
    assert "cut" not in [ev.kind for ev in events]
    assert started.play.dealer == rematch_dealer(over.play)
    # a new player in the lobby: not the same game's players, so they cut again
    joined, _, _ = tb.join(back, "Cid", 5_000)
    _, events = tb.start(joined, "p1", Setup(), Ctx(5_000, random.Random(1)))
    assert "cut" in [ev.kind for ev in events]


def test_k6_5_a_crapette_move_names_the_table_version_it_produced() -> None:
    """protocol.md "Crapette": `moved.version` is the table version the move produced
    (`Ctx.version`, set by the table), the one a call names."""
    t = lobby("crapette", 2)
    t, _ = tb.start(t, "p1", Setup(), Ctx(1_000, random.Random(3)))
    game = t.game
    rng = random.Random(3)
    memory = {p: game.bot("normal").fresh(p) for p in t.ids()}
    for _ in range(200):
        mover = next(p for p in game.to_act(t.play, 1_000))
        msg = game.bot("normal").decide(memory[mover], tv.view(t, mover, 1_000), 1_000, rng)
        if msg is None or msg.get("type") != "move":
            break
        t, events = tb.act(t, mover, msg, Ctx(1_000, rng))
        moved = [ev for ev in events if ev.kind == "moved"]
        assert moved and all(ev.data["version"] == t.version for ev in moved)
        return
    raise AssertionError("no move made")


@pytest.mark.parametrize(("game_id", "option", "value"), [
    ("cribbage", "turn_seconds", 15), ("crapette", "move_seconds", 15),
    (highcard.GAME_ID, "turn_seconds", 10)])
def test_r17_6_resume_gives_the_running_timer_its_full_time(
    game_id: str, option: str, value: int
) -> None:
    """R17.6 (C10.1, K7.2): after a time with nobody connected, the decision then in
    progress gets its full time again (`Game.resume`)."""
    t = lobby(game_id, 2)
    t, _ = tb.set_options(t, "p1", {option: value})
    t, _ = tb.start(t, "p1", Setup(dealer=0), Ctx(1_000, random.Random(5)))
    game, play = t.game, t.play
    if game_id == "cribbage":  # C3.1 is skipped with a dealer: giving, its time-out running
        assert play.status == "give"
    due = game.due(play)
    assert due is not None
    later = due + 50_000  # long past it: everyone was away meanwhile
    resumed = game.resume(play, later)
    assert game.due(resumed) == later + (due - 1_000)
    assert game.view(resumed, None, later) is not None


@pytest.mark.parametrize(("game_id", "option", "value"), [
    ("cribbage", "turn_seconds", 15), ("crapette", "move_seconds", 15),
    (highcard.GAME_ID, "turn_seconds", 10)])
def test_r17_6_shift_moves_every_deadline_by_the_pause(
    game_id: str, option: str, value: int
) -> None:
    """R17.6: after a short time with nobody connected, every deadline moves by its
    length (`Game.shift`), and the view says so."""
    t = lobby(game_id, 2)
    t, _ = tb.set_options(t, "p1", {option: value})
    t, _ = tb.start(t, "p1", Setup(dealer=0), Ctx(1_000, random.Random(5)))
    game, play = t.game, t.play
    due = game.due(play)
    assert due is not None
    moved = game.shift(play, 7_000)
    assert game.due(moved) == due + 7_000
    assert game.shift(play, 0) == play
