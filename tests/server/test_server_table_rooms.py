"""Every registered game is hosted (issue 35, item 2: one table for many games):
Cribbage, Crapette and a test-only game (tests/games/contract/highcard.py,
registered here alone) are created, joined, watched, played to the end with
computer players and people, and replayed through the real server, on the memory
store and on Redis (the `server` fixture runs each test on both).

The people's seats are played by their game's own computer player from what
their socket receives (the view and the events as that seat gets them), so the
same driver plays any game; game time is moved by the test (the manual clock) to
the next deadline whenever nobody has a move.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from crisp.games import registry
from tests.games.contract import highcard
from tests.support.answers import send
from tests.support.player import Player, close_all
from tests.support.rooms import table
from tests.support.servers import ThreadServer

STEPS = 4000  # moves and clock moves of one game, at most (a hang, not a bound of the rules)


@pytest.fixture
def server(make_server: Callable[..., ThreadServer]) -> ThreadServer:
    """The server of tests/server with no seat rate in reach: a Crapette player here
    moves as fast as the loopback answers (hundreds a second, no person does)."""
    return make_server(rate_per_s=1000, rate_burst=10_000)


@pytest.fixture
def test_game() -> Iterator[str]:
    """The test-only game, registered for this test only."""
    registry.register(highcard.GAME)
    yield highcard.GAME_ID
    registry.unregister(highcard.GAME_ID)


def over(view: dict[str, Any]) -> bool:
    return view["status"] == "game_over"


async def seat(server: ThreadServer, game: str, n: int, **create: Any) -> tuple[str, list[Player]]:
    """A room of `game` with `n` people connected (the host first)."""
    return await table(server, n, game=game, **create)


async def play_to_the_end(server: ThreadServer, game: str, players: list[Player]) -> None:
    """Each person's seat played by the game's own computer player (level `normal`
    where the game has it) from what that seat received, until the game is over."""
    rules = registry.get(game)
    level = "normal" if "normal" in rules.bot_levels else rules.bot_levels[0]
    bots = {p.pid: rules.bot(level) for p in players}
    memory = {p.pid: bots[p.pid].fresh(p.pid) for p in players}
    seen = {p.pid: 0 for p in players}
    rng = random.Random(35)
    for _ in range(STEPS):
        if all(over(p.view) for p in players):
            return
        moved = False
        for p in players:
            for update in p.updates[seen[p.pid]:]:
                memory[p.pid] = bots[p.pid].observe(memory[p.pid], update["view"], update["events"])
            seen[p.pid] = len(p.updates)
            view, now = p.view, p.updates[-1]["now"]
            if over(view) or not view["legal"]:
                continue
            msg = bots[p.pid].decide(memory[p.pid], view, now, rng)
            if msg is None:
                continue
            answer = await send(p, dict(msg))
            assert answer["type"] == "update", (msg, answer)
            moved = True
        if not moved:  # nobody has a move: the next deadline (a computer's move, a timer)
            clock = await server.advance(0)
            due = clock.get("due")
            await server.advance(to=max(int(due), clock["now"] + 1) if due else clock["now"] + 500)
    raise AssertionError(f"{game}: not over after {STEPS} steps: {players[0].view}")


GAMES = [("cribbage", 2, 0), ("cribbage", 3, 0), ("cribbage", 2, 2), ("crapette", 1, 1)]


@pytest.mark.parametrize(("game", "people", "computers"), GAMES,
                         ids=[f"{g}-{p}p-{c}c" for g, p, c in GAMES])
async def test_a_game_is_played_to_its_end_and_replayed(
    server: ThreadServer, game: str, people: int, computers: int
) -> None:
    code, players = await seat(server, game, people)
    host = players[0]
    watcher = await Player.watch(server, code)
    try:
        for _ in range(computers):
            assert (await send(host, {"type": "add_bot"}))["type"] == "update"
        seats = people + computers
        await host.wait_view(lambda v: len(v["players"]) == seats)
        assert (await send(host, {"type": "start"}))["type"] == "update"
        await play_to_the_end(server, game, players)
        for p in [*players, watcher]:
            view = (await p.wait_view(over))
            assert view["game"] == game and view["code"] == code
            assert view["you"] == (None if p is watcher else p.pid)
            assert all(u["view"]["game"] == game for u in p.updates)
        # R18.2: the game's record, for a player and (watching on) for anyone
        async with server.http() as c:
            r = await c.get(f"/api/rooms/{code}/rounds/1")
            assert r.status_code == 200, r.text
            assert r.json()["game"] == game and r.json()["moves"]
            info = (await c.get(f"/api/rooms/{code}")).json()
            assert info["game"] == game and info["status"] == "game_over"
        # a rematch plays the same game (v2), from the lobby
        assert (await send(host, {"type": "rematch"}))["type"] == "update"
        view = await host.wait_view(lambda v: v["status"] == "lobby")
        assert view["game"] == game and view["match"]
    finally:
        await close_all([*players, watcher])


async def test_the_test_only_game_is_hosted_as_it_is_registered(
    server: ThreadServer, test_game: str
) -> None:
    """The seam's proof (issue 35, item 5): a game registered in this process is
    listed and played with no change to the table."""
    async with server.http() as c:
        games = (await c.get("/api/games")).json()["games"]
    assert test_game in [g["id"] for g in games]
    _code, players = await seat(server, test_game, 2)
    try:
        assert (await send(players[0], {"type": "options", "tricks": 5}))["type"] == "update"
        assert players[0].view["options"]["tricks"] == 5
        assert (await send(players[0], {"type": "start"}))["type"] == "update"
        await play_to_the_end(server, test_game, players)
        assert all(over(p.view) for p in players)
    finally:
        await close_all(players)


async def test_a_table_rooms_bad_messages_are_refused_and_change_nothing(
    server: ThreadServer,
) -> None:
    _code, players = await seat(server, "cribbage", 2)
    ana, ben = players
    try:
        version = ana.version
        cases: list[tuple[Player, Any, str]] = [
            (ana, {"type": "options", "target": 7}, "bad_message"),  # not a choice
            (ana, {"type": "options", "limit": 100}, "bad_message"),  # Crisp's, not Cribbage's
            (ben, {"type": "options", "target": 61}, "not_host"),
            (ana, {"type": "start", "extra": 1}, "bad_message"),
            (ana, {"type": "draw", "source": "stock"}, "bad_message"),  # Crisp's message
            (ana, {"type": "give", "cards": ["AS", "2S"]}, "wrong_phase"),  # no game yet
            (ana, {"type": "add_bot", "level": "grand"}, "bad_message"),
            (ana, {"type": "kick", "player": 7}, "bad_message"),
            (ana, {"type": "kick", "player": "p9"}, "unknown_player"),
            (ana, {"type": "Start"}, "bad_message"),
            (ana, {"type": 5}, "bad_message"),
        ]
        for who, msg, code_ in cases:
            answer = await send(who, msg)
            assert answer["type"] == "error", (msg, answer)
            assert answer["code"] == code_, (msg, answer)
        for text in ("[1, 2]", '"start"', "null"):
            start = len(ana.errors)
            await ana.send(text)
            await ana.wait(lambda p, n=start: len(p.errors) > n, what="an error")
            assert ana.errors[-1]["code"] == "bad_message"
        assert ana.version == version and ben.version == version
        # hello again is refused as in every room; lock is every room's message
        start = len(ana.errors)
        await ana.send({"type": "hello", "token": ana.token})
        await ana.wait(lambda p: len(p.errors) > start, what="an error")
        assert (await send(ana, {"type": "lock", "locked": True}))["view"]["locked"] is True
    finally:
        await close_all(players)


async def test_a_table_room_hides_each_hand_from_the_others_and_from_watchers(
    server: ThreadServer,
) -> None:
    """C2.1: a hand is its owner's; the others and a watcher see how many cards it
    has, never which (the contract suite audits every view; here the real wire)."""
    code, players = await seat(server, "cribbage", 2)
    watcher = await Player.watch(server, code)
    try:
        await send(players[0], {"type": "start"})
        for p in players:  # C7.5: the cut for the first deal is shown until all are ready
            await p.wait_view(lambda v: "ready" in v["legal"])
            await send(p, {"type": "ready"})
        for p in players:
            await p.wait_view(lambda v: v["status"] == "give")
        await watcher.wait_view(lambda v: v["status"] == "give")
        hands = {p.pid: set(_mine(p.view)) for p in players}
        assert all(len(h) == 6 for h in hands.values()), hands
        for p in [*players, watcher]:
            text = json.dumps(p.updates[-1])
            for owner, hand in hands.items():
                if owner != p.pid:
                    assert not [c for c in hand if f'"{c}"' in text], (p.pid, owner)
    finally:
        await close_all([*players, watcher])


def _mine(view: dict[str, Any]) -> list[str]:
    """The seat's own hand (the view's top-level `hand`: protocol.md "Cribbage")."""
    hand = view.get("hand")
    assert isinstance(hand, list), view
    return [str(c) for c in hand]


async def test_a_table_room_is_created_with_its_test_decks_only_under_test_hooks(
    server: ThreadServer,
) -> None:
    deck = [r + s for s in "SHDC" for r in "A23456789TJQK"]
    async with server.http() as c:
        r = await c.post("/api/rooms", json={"name": "Ana", "game": "cribbage", "deck": deck})
        assert r.status_code == 422 and r.json()["error"]["code"] == "bad_deck"
        r = await c.post("/api/rooms", json={"name": "Ana", "game": "cribbage",
                                             "decks": [deck], "dealer": 0})
        assert r.status_code == 201, r.text
    assert isinstance(r, httpx.Response)
