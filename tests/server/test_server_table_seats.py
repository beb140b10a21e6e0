"""A table room (Cribbage, Crapette: every game but Crisp, crisp/table/room.py) keeps
every guarantee of seats, hosts and the table that a Crisp room keeps (protocol.md
"v2 additions": everything about seats, hosts and the table is shared by every
game), through the real server on the memory store and on Redis, and across real
`crisp serve` processes on one Redis:

- R17.2 away seats played by the computer from that seat's view only, and given
  back when their player reconnects;
- R17.5 a kick during a game (the computer's seat, the old token closed 4403, the
  room locked), leaving in the lobby, the last person leaving;
- R17.4 the host role handed on when the host leaves or has been away 60 s;
- R18.1 watchers on and off, a watcher never sees a hand;
- R18.5 a seat moved to another phone;
- R17.6 nothing acts while no person is connected, and the decision in progress
  gets its full time again once one is back after everyone was away;
- two processes, one SIGKILLed mid-game: its person's seat shows disconnected
  within 30 s (R17.3), away, is played by the computer until she is back; the game
  ends on the other, each computer move made once; a room saved in Redis played on
  after a restart.

People's seats are played by their game's own computer player from what their
socket received (the driver of test_server_table_rooms.py); game time moves only
when the test moves it (the manual clock).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from crisp.games import registry
from tests.server.test_server_computer_procs import computer_moves_made, refused_moves
from tests.support.answers import send
from tests.support.player import Player, close_all
from tests.support.rooms import create_room, join_room
from tests.support.servers import LiveServer, ProcServer, ThreadServer, advance_all

STEPS = 4000  # moves and clock moves of one game, at most (a hang, not a bound of the rules)
AWAY_MS = 20_000  # R17.2
HOST_AWAY_MS = 60_000  # R17.4
PRIVATE = ("give", "play")  # Cribbage's statuses while hands are hidden (C2.1)


@pytest.fixture
def server(make_server: Callable[..., ThreadServer]) -> ThreadServer:
    """The server of tests/server with no seat rate in reach (a driven seat moves as
    fast as the loopback answers)."""
    return make_server(rate_per_s=1000, rate_burst=10_000)


# ---- helpers


async def seat(server: LiveServer, game: str, n: int, *, bots: int = 0,
               others: LiveServer | None = None) -> tuple[str, list[Player]]:
    """A room of `game` with `n` people connected (the host first; the others on
    `others` if given) and `bots` computer players added."""
    code, pid, token = await create_room(server, "Ana", game=game)
    seats = [(server, pid, token)]
    for name in ["Ben", "Cid", "Dee"][: n - 1]:
        at = others or server
        seats.append((at, *await join_room(at, code, name)))
    players = [await Player.join(at, code, p, t) for at, p, t in seats]
    for _ in range(bots):
        assert (await send(players[0], {"type": "add_bot"}))["type"] == "update"
    for p in players:
        await p.wait_view(lambda v: len(v["players"]) == n + bots
                          and all(x["connected"] or x["is_bot"] for x in v["players"]))
    return code, players


class Driver:
    """People's seats played by their game's computer player from what each socket
    received; `until` plays until a condition holds, moving game time to the next
    deadline whenever nobody has a move."""

    def __init__(self, game: str, servers: list[LiveServer], seed: int = 35) -> None:
        rules = registry.get(game)
        self.level = "normal" if "normal" in rules.bot_levels else rules.bot_levels[0]
        self.rules = rules
        self.servers = servers
        self.memory: dict[str, Any] = {}
        self.seen: dict[int, int] = {}
        self.moves: dict[str, int] = {}  # the moves each seat's socket made
        self.rng = random.Random(seed)

    async def step(self, players: list[Player]) -> bool:
        moved = False
        for p in players:
            bot = self.rules.bot(self.level)
            if id(p) not in self.seen:  # a new socket of a seat: its memory from here
                self.seen[id(p)] = 0
                self.memory[p.pid] = bot.fresh(p.pid)
            for update in p.updates[self.seen[id(p)]:]:
                self.memory[p.pid] = bot.observe(self.memory[p.pid], update["view"],
                                                 update["events"])
            self.seen[id(p)] = len(p.updates)
            view, now = p.view, p.updates[-1]["now"]
            if p.closed or view["status"] == "game_over" or not view["legal"]:
                continue
            msg = bot.decide(self.memory[p.pid], view, now, self.rng)
            if msg is None:
                continue
            answer = await send(p, dict(msg))
            assert answer["type"] == "update", (p.pid, msg, answer)
            self.moves[p.pid] = self.moves.get(p.pid, 0) + 1
            moved = True
        return moved

    async def tick(self) -> None:
        """Game time to the next deadline (a computer's move, a timer), on every process."""
        clocks = [await s.clock() for s in self.servers]
        now = max(int(c["now"]) for c in clocks)
        dues = [int(c["due"]) for c in clocks if c.get("due")]
        to = max(min(dues), now + 1) if dues else now + 500
        await advance_all(self.servers, to=to)

    async def until(self, players: list[Player], done: Callable[[], bool],
                    what: str = "the condition") -> None:
        for _ in range(STEPS):
            if done():
                return
            if not await self.step(players):
                if done():
                    return
                await self.tick()
        raise AssertionError(f"not {what} after {STEPS} steps: {players[0].view}")


def over(p: Player) -> bool:
    return bool(p.updates) and p.view["status"] == "game_over"


def seat_of(view: dict[str, Any], pid: str) -> dict[str, Any]:
    return next(x for x in view["players"] if x["id"] == pid)  # type: ignore[no-any-return]


def hidden(view: dict[str, Any]) -> set[str]:
    """A Cribbage seat's cards nobody else may see (its hand and what it gave to the
    crib) while hands are hidden; else none."""
    if view["status"] not in PRIVATE:
        return set()
    return {str(c) for c in [*(view.get("hand") or []), *(view.get("gave") or [])]}


def cards_in(obj: Any) -> set[str]:
    text = json.dumps(obj)
    deck = [r + s for s in "SHDC" for r in "A23456789TJQK"]
    return {c for c in deck if f'"{c}"' in text}


async def get_room(server: LiveServer, code: str) -> httpx.Response:
    async with server.http() as c:
        return await c.get(f"/api/rooms/{code}")


async def start_cribbage(players: list[Player]) -> None:
    """The host starts; everyone confirms the cut for the first deal (C7.5); every
    seat then has the give."""
    assert (await send(players[0], {"type": "start"}))["type"] == "update"
    for p in players:
        await p.wait_view(lambda v: "ready" in v["legal"] or v["status"] == "give")
        if "ready" in p.view["legal"]:
            await send(p, {"type": "ready"})
    for p in players:
        await p.wait_view(lambda v: v["status"] == "give")


class Recorded:
    """What a game's computer player was given, per seat (the server runs in this
    process: the game's `bot` is wrapped)."""

    def __init__(self) -> None:
        self.views: dict[str, list[dict[str, Any]]] = {}
        self.events: dict[str, list[dict[str, Any]]] = {}


@pytest.fixture
def recorded(monkeypatch: pytest.MonkeyPatch) -> Iterator[Recorded]:
    """Every view and event Cribbage's computer player is given, by the seat it plays."""
    game = registry.get("cribbage")
    real = game.bot
    out = Recorded()

    class Watched:
        def __init__(self, bot: Any) -> None:
            self.bot = bot

        def fresh(self, player: str) -> Any:
            return {"pid": player, "m": self.bot.fresh(player)}

        def observe(self, memory: Any, view: Any, events: Any) -> Any:
            out.views.setdefault(memory["pid"], []).append(dict(view))
            out.events.setdefault(memory["pid"], []).extend(dict(e) for e in events)
            return {**memory, "m": self.bot.observe(memory["m"], view, events)}

        def decide(self, memory: Any, view: Any, now: int, rng: Any) -> Any:
            out.views.setdefault(memory["pid"], []).append(dict(view))
            return self.bot.decide(memory["m"], view, now, rng)

    monkeypatch.setattr(game, "bot", lambda level: Watched(real(level)))
    yield out


# ---- R17.2: away seats


async def test_r17_2_an_away_seat_is_played_from_its_own_view_and_given_back(
    server: ThreadServer, recorded: Recorded
) -> None:
    code, (ana, ben) = await seat(server, "cribbage", 2)
    driver = Driver("cribbage", [server])
    try:
        await start_cribbage([ana, ben])
        # Ben's phone drops before he gives: 20 s later his seat is away (R17.2)
        mark = ana.mark()
        await ben.close()
        await ana.wait_event("disconnected", after=mark)
        await server.advance(AWAY_MS - 1)
        assert not seat_of(ana.view, "p2")["away"]
        assert seat_of(ana.view, "p2")["gave"] == 0
        await server.advance(1)
        await ana.wait_event("away", after=mark)
        # the computer gives for him at once, from his seat's view
        await ana.wait_view(lambda v: seat_of(v, "p2")["gave"] == 2, what="Ben's give")
        # Ana plays on; the computer plays Ben's seat through the hand
        await driver.until([ana], lambda: seat_of(ana.view, "p2")["laid"] != [],
                           "a card laid for Ben")
        assert recorded.views["p2"], "the computer never played Ben's seat"
        for view in recorded.views["p2"]:
            assert view["you"] == "p2" and view["watching"] is False
        # it was given nothing of Ana's hand: her hidden cards at each version
        ana_hidden = {u["view"]["version"]: hidden(u["view"]) for u in ana.updates}
        for view in recorded.views["p2"]:
            assert not cards_in(view) & ana_hidden.get(view["version"], set()), view["version"]
        for event in recorded.events["p2"]:  # nor of her give
            assert not cards_in(event) & set().union(*ana_hidden.values()) or event["kind"] in (
                "laid", "starter", "shown", "cut"), event
        # Ben reconnects: the seat is his again (back), and the computer stops
        mark = ana.mark()
        ben = await Player.join(server, code, "p2", ben.token)
        await ana.wait_event("back", after=mark)
        assert not seat_of(ben.view, "p2")["away"] and not seat_of(ben.view, "p2")["is_bot"]
        moves = len(recorded.views["p2"])
        # Ana plays until it is Ben's move; then a minute passes and it still is his
        await driver.until([ana], lambda: bool(set(ben.view["legal"]) - {"leave"}),
                           "Ben to move")
        version = ben.version
        await server.advance(60_000)
        assert ben.version == version and (await server.clock(code))["version"] == version
        assert len(recorded.views["p2"]) == moves  # nothing given to the computer since
        # he plays it himself
        assert await driver.step([ben])
        assert ben.version > version
    finally:
        await close_all([ana, ben])


# ---- R17.5: removing a seat, leaving


async def test_r17_5_the_host_kicks_a_person_mid_game(server: ThreadServer) -> None:
    code, (ana, ben, cid) = await seat(server, "cribbage", 3)
    driver = Driver("cribbage", [server])
    try:
        await start_cribbage([ana, ben, cid])
        r = await ask_move(server, code, ben.token)  # a move code made before the kick
        assert r.status_code == 201, r.text
        move = r.json()["move_code"]
        mark = ana.mark()
        answer = await send(ana, {"type": "kick", "player": "p2"})
        assert answer["type"] == "update", answer
        await ana.wait_event("took_over", after=mark)
        view = await ana.wait_view(lambda v: seat_of(v, "p2")["is_bot"], after=mark)
        assert seat_of(view, "p2")["bot_level"] == "normal"  # R17.5: level "normal"
        assert view["locked"] is True  # nobody takes a seat meanwhile
        assert await ben.wait_closed() == 4403
        again = await Player.join(server, code, "p2", ben.token)
        assert await again.wait_closed() == 4403 and again.updates == []
        r = await take_move(server, code, move)  # void: the seat is the computer's (R18.5)
        assert r.status_code == 404 and r.json()["error"]["code"] == "no_move", r.text
        assert (await refusal(ana, {"type": "kick", "player": "p2"}))["code"] == "illegal"
        # the computer plays Ben's seat: it gives for him, and the game goes on
        await driver.until([ana, cid], lambda: seat_of(ana.view, "p2")["gave"] == 1,
                           "the computer's give for Ben's seat")
        await driver.until([ana, cid], lambda: seat_of(ana.view, "p2")["laid"] != [],
                           "a card laid for Ben's seat")
        async with server.http() as c:  # locked: no one joins (a game: game_started anyway)
            r = await c.post(f"/api/rooms/{code}/players", json={"name": "Dee"})
        assert r.status_code in (403, 409, 422), r.text
    finally:
        await close_all([ana, ben, cid])


async def test_r17_5_a_kick_in_the_lobby_frees_the_seat_and_locks_the_room(
    server: ThreadServer,
) -> None:
    code, (ana, ben, cid) = await seat(server, "cribbage", 3)
    try:
        mark = ana.mark()
        assert (await send(ana, {"type": "kick", "player": "p3"}))["type"] == "update"
        assert await cid.wait_closed() == 4403
        view = await ana.wait_view(lambda v: len(v["players"]) == 2, after=mark)
        assert [p["id"] for p in view["players"]] == ["p1", "p2"] and view["locked"] is True
        async with server.http() as c:  # locked: neither Cid nor anyone takes the seat
            r = await c.post(f"/api/rooms/{code}/players", json={"name": "Dee"})
            assert r.status_code == 409 and r.json()["error"]["code"] == "room_locked", r.text
            assert (await send(ana, {"type": "lock", "locked": False}))["type"] == "update"
            r = await c.post(f"/api/rooms/{code}/players", json={"name": "Dee"})
            assert r.status_code == 201, r.text
        assert (await refusal(ben, {"type": "kick", "player": "p1"}))["code"] == "not_host"
    finally:
        await close_all([ana, ben, cid])


@pytest.mark.parametrize("game", ["cribbage", "crapette"])
async def test_r17_5_leaving_the_lobby_frees_the_seat_and_the_last_one_out_deletes_the_room(
    server: ThreadServer, game: str
) -> None:
    code, (ana, ben) = await seat(server, game, 2)
    try:
        mark = ana.mark()
        await ben.send({"type": "leave"})
        assert await ben.wait_closed() == 4403  # as a Crisp room's leaver
        view = await ana.wait_view(lambda v: len(v["players"]) == 1, after=mark)
        assert [p["id"] for p in view["players"]] == ["p1"] and view["locked"] is False
        gone = await Player.join(server, code, "p2", ben.token)  # no seat: no token
        assert await gone.wait_closed() == 4401
        # the seat is free: someone else takes it
        dee_pid, dee_token = await join_room(server, code, "Dee")
        dee = await Player.join(server, code, dee_pid, dee_token)
        await ana.wait_view(lambda v: len(v["players"]) == 2)
        # the last people leave, a computer player behind them: the room is deleted
        await dee.send({"type": "leave"})
        assert await dee.wait_closed() == 4403
        await ana.wait_view(lambda v: [p["id"] for p in v["players"]] == ["p1"])
        assert (await send(ana, {"type": "add_bot"}))["type"] == "update"
        assert ana.view["host"] == "p1"
        await ana.send({"type": "leave"})
        assert await ana.wait_closed() == 4403
        assert (await get_room(server, code)).status_code == 404
    finally:
        await close_all([ana, ben, dee])


async def test_r17_5_the_last_person_leaving_a_game_deletes_the_room(
    server: ThreadServer,
) -> None:
    code, (ana,) = await seat(server, "crapette", 1, bots=1)
    try:
        assert (await send(ana, {"type": "start"}))["type"] == "update"
        await ana.wait_view(lambda v: v["status"] == "playing")
        await ana.send({"type": "leave"})
        await ana.wait_closed()
        assert (await get_room(server, code)).status_code == 404
        assert (await server.clock())["due"] is None  # nothing left to schedule
    finally:
        await close_all([ana])


async def test_r17_5_a_person_leaving_a_game_is_told_as_the_computer_taking_over(
    server: ThreadServer,
) -> None:
    """protocol.md: `took_over`, a seat removed during a game is now a computer player's
    (R17.5), whether the host removed it or its player left."""
    _code, (ana, ben) = await seat(server, "cribbage", 2)
    try:
        await start_cribbage([ana, ben])
        mark = ana.mark()
        await ben.send({"type": "leave"})
        assert await ben.wait_closed() == 4403
        view = await ana.wait_view(lambda v: seat_of(v, "p2")["is_bot"], after=mark)
        assert seat_of(view, "p2")["bot_level"] == "normal"
        kinds = [e["kind"] for u in ana.updates[mark:] for e in u["events"]]
        assert "took_over" in kinds, kinds
    finally:
        await close_all([ana, ben])


# ---- R17.4: the host role


async def test_r17_4_a_leaving_host_hands_the_role_to_a_connected_person(
    server: ThreadServer,
) -> None:
    """Ben joined before Cid, but his phone is off: the role goes to Cid."""
    code, (ana, ben, cid) = await seat(server, "cribbage", 3)
    try:
        await start_cribbage([ana, ben, cid])
        mark = ana.mark()
        await ben.close()
        await ana.wait_event("disconnected", after=mark)
        mark = cid.mark()
        await ana.send({"type": "leave"})
        assert await ana.wait_closed() == 4403
        assert (await cid.wait_event("host_changed", after=mark))["player"] == "p3"
        view = await cid.wait_view(lambda v: v["host"] == "p3", after=mark)
        assert seat_of(view, "p1")["is_bot"] and "kick" in view["legal"]
        assert (await send(cid, {"type": "kick", "player": "p2"}))["type"] == "update"
        again = await Player.join(server, code, "p1", ana.token)  # R17.5: a leaver's token
        assert await again.wait_closed() == 4403
    finally:
        await close_all([ana, ben, cid])


@pytest.mark.parametrize("game", ["cribbage", "crapette"])
async def test_r17_4_a_host_away_for_60_s_hands_the_role_on(
    server: ThreadServer, game: str
) -> None:
    """In the lobby and in a game: 20 s to be away, 60 s more, then the connected
    person who joined earliest is host."""
    _code, (ana, ben) = await seat(server, game, 2)
    try:
        mark = ben.mark()
        await ana.close()
        await ben.wait_event("disconnected", after=mark)
        await server.advance(AWAY_MS)
        await ben.wait_event("away", after=mark)
        await server.advance(HOST_AWAY_MS - 1)
        assert ben.view["host"] == "p1"
        await server.advance(1)
        assert (await ben.wait_event("host_changed", after=mark))["player"] == "p2"
        view = await ben.wait_view(lambda v: v["host"] == "p2")
        assert "start" in view["legal"]
        assert (await send(ben, {"type": "start"}))["type"] == "update"
    finally:
        await close_all([ana, ben])


async def test_r17_4_with_nobody_connected_the_role_goes_to_the_first_who_connects(
    server: ThreadServer,
) -> None:
    code, (ana, ben, cid) = await seat(server, "cribbage", 3)
    try:
        await start_cribbage([ana, ben, cid])
        mark = ana.mark()
        await ben.close()
        await cid.close()
        await ana.wait_view(lambda v: not seat_of(v, "p3")["connected"], after=mark)
        await ana.send({"type": "leave"})
        await ana.wait_closed()
        # nobody connected: Cid comes back first, the role is his
        cid = await Player.join(server, code, "p3", cid.token)
        view = await cid.wait_view(lambda v: v["host"] == "p3", what="Cid hosts")
        assert "kick" in view["legal"]
    finally:
        await close_all([ana, ben, cid])


# ---- R18.1: watchers


async def refusal(p: Player, msg: dict[str, Any]) -> dict[str, Any]:
    """The error answering `msg` (its `ref`)."""
    ref = f"{p.pid}-{len(p.frames)}"
    await p.send({**msg, "id": ref})
    found = await p.wait(lambda q: next((e for e in q.errors if e.get("ref") == ref), None),
                         what=f"the refusal of {msg['type']}")
    return found  # type: ignore[no-any-return]


@pytest.mark.parametrize("game", ["cribbage", "crapette"])
async def test_r18_1_the_host_turns_watching_off_and_on(server: ThreadServer, game: str) -> None:
    code, (ana, ben) = await seat(server, game, 2)
    eve = await Player.watch(server, code)
    try:
        assert eve.view["watching"] is True and eve.view["you"] is None
        assert eve.view["legal"] == [] and eve.view["game"] == game
        for msg in ({"type": "start"}, {"type": "options", "watchers": False},
                    {"type": "leave"}, {"type": "kick", "player": "p2"}, {"type": "add_bot"}):
            assert (await refusal(eve, msg))["code"] == "not_a_player", msg
        mark = ben.mark()
        assert (await send(ana, {"type": "options", "watchers": False}))["type"] == "update"
        assert await eve.wait_closed() == 4403  # the watchers already there go too
        await ben.wait_view(lambda v: v["options"]["watchers"] is False and v["watchers"] == 0,
                            after=mark)
        assert (await get_room(server, code)).json()["watchers"] == 0
        late = await Player.watch(server, code)
        assert late.closed and late.close_code == 4403 and late.updates == []
        assert (await refusal(ben, {"type": "options", "watchers": True}))["code"] == "not_host"
        assert (await send(ana, {"type": "options", "watchers": True}))["type"] == "update"
        back = await Player.watch(server, code)
        assert back.view["watching"] is True and back.view["watchers"] == 1
        # and once the game started, watching stays as the lobby left it
        assert (await send(ana, {"type": "start"}))["type"] == "update"
        await back.wait_view(lambda v: v["status"] != "lobby")
        await close_all([back])
    finally:
        await close_all([ana, ben, eve])


async def test_r18_1_a_watcher_never_sees_a_hand(server: ThreadServer) -> None:
    """Through a whole hand of Cribbage: at each version the watcher's table is the
    seats' public table, and no card of a hand or of the crib before its show."""
    code, players = await seat(server, "cribbage", 2)
    watcher = await Player.watch(server, code)
    try:
        await start_cribbage(players)
        driver = Driver("cribbage", [server])
        await driver.until(players, lambda: watcher.updates[-1]["view"]["status"] == "hand_over"
                           and all(p.view["status"] == "hand_over" for p in players),
                           "the first hand over")
        by_version = [{u["view"]["version"]: u["view"] for u in p.updates} for p in players]
        compared = set()
        for update in watcher.updates:
            view = update["view"]
            assert view["you"] is None and view["watching"] is True and view["legal"] == []
            assert view.get("hand") is None and view.get("gave") is None, view
            assert not view.get("playable") and view.get("coach") is None
            seen = cards_in(update)
            for seats in by_version:
                theirs = seats.get(view["version"])
                if theirs is None:
                    continue
                compared.add(view["version"])
                assert not seen & hidden(theirs), (view["version"], seen & hidden(theirs))
                public = ("status", "players", "crib", "starter", "play", "show", "turn",
                          "dealer", "hand_no", "host", "options", "winners")
                assert {k: view.get(k) for k in public} == {k: theirs.get(k) for k in public}
        statuses = {u["view"]["status"] for u in watcher.updates
                    if u["view"]["version"] in compared}
        assert {"give", "play"} <= statuses, statuses
    finally:
        await close_all([*players, watcher])


# ---- R18.5: moving a seat


async def ask_move(server: LiveServer, code: str, token: str,
                   body: dict[str, Any] | None = None) -> httpx.Response:
    async with server.http() as c:
        return await c.post(f"/api/rooms/{code}/move", json=body or {},
                            headers={"Authorization": f"Bearer {token}"})


async def take_move(server: LiveServer, code: str, move: str) -> httpx.Response:
    async with server.http() as c:
        return await c.post(f"/api/rooms/{code}/move/{move}")


def own(view: dict[str, Any]) -> Any:
    """What of the table is the seat's own: its hand (Cribbage), its piles (Crapette)."""
    if view["game"] == "cribbage":
        return sorted(view["hand"])
    return seat_of(view, view["you"])


@pytest.mark.parametrize("game", ["cribbage", "crapette"])
async def test_r18_5_a_seat_moves_to_another_phone(server: ThreadServer, game: str) -> None:
    code, (ana, ben) = await seat(server, game, 2)
    phones = [ana, ben]
    try:
        if game == "cribbage":
            await start_cribbage([ana, ben])
        else:
            assert (await send(ana, {"type": "start"}))["type"] == "update"
            await ben.wait_view(lambda v: v["status"] == "playing")
        mine = own(ben.view)
        r = await ask_move(server, code, ben.token)
        assert r.status_code == 201, r.text
        r = await take_move(server, code, r.json()["move_code"])
        assert r.status_code == 201, r.text
        seat_ = r.json()
        assert seat_["player_id"] == "p2" and seat_["token"] != ben.token
        # the old phone is closed 4403 and its token refused from now on
        assert await ben.wait_closed() == 4403
        old = await Player.join(server, code, "p2", ben.token)
        assert await old.wait_closed() == 4401
        # the new phone has the seat, with what was the seat's own
        new = await Player.join(server, code, "p2", seat_["token"])
        phones.append(new)
        assert new.view["you"] == "p2" and own(new.view) == mine
        await ana.wait_view(lambda v: seat_of(v, "p2")["connected"])
        driver = Driver(game, [server])
        await driver.until([ana, new], lambda: driver.moves.get("p2", 0) > 0,
                           "a move from the new phone")
        # the host moves a seat only while it is away (R18.5)
        r = await ask_move(server, code, ana.token, {"player": "p2"})
        assert r.status_code == 403 and r.json()["error"]["code"] == "not_away", r.text
        mark = ana.mark()
        await new.close()
        await ana.wait_event("disconnected", after=mark)
        await server.advance(AWAY_MS)
        await ana.wait_event("away", after=mark)
        r = await ask_move(server, code, ana.token, {"player": "p2"})
        assert r.status_code == 201, r.text
        r = await take_move(server, code, r.json()["move_code"])
        assert r.status_code == 201, r.text
        third = await Player.join(server, code, "p2", r.json()["token"])
        phones.append(third)
        await ana.wait_event("back", after=mark)
        assert not seat_of(third.view, "p2")["away"] and not seat_of(third.view, "p2")["is_bot"]
    finally:
        await close_all(phones)


# ---- real processes on one Redis


async def moves_by_type(server: ProcServer) -> dict[str, int]:
    """`crisp_computer_moves_total` of one process by action type."""
    from prometheus_client.parser import text_string_to_metric_families

    async with server.http() as client:
        r = await client.get("/metrics")
    assert r.status_code == 200, r.text
    return {s.labels["type"]: int(s.value) for f in text_string_to_metric_families(r.text)
            for s in f.samples if s.name == "crisp_computer_moves_total"}


async def start_with(driver: Driver, players: list[Player], **options: Any) -> None:
    """The host sets `options` and starts; the cut is confirmed (C7.5) by everyone,
    the computer players too (their pause is game time: the driver moves it)."""
    host = players[0]
    if options:
        assert (await send(host, {"type": "options", **options}))["type"] == "update"
    assert (await send(host, {"type": "start"}))["type"] == "update"
    await driver.until(players, lambda: all(p.view["status"] == "give" for p in players),
                       "the first give")


def replayed(moves: list[dict[str, Any]], pid: str) -> list[tuple[str, Any]]:
    """A seat's gives and lays in a game's record."""
    return [(m["kind"], m.get("card", m.get("count"))) for m in moves
            if m.get("player") == pid and m["kind"] in ("gave", "laid")]


def seen(p: Player, pid: str) -> list[tuple[str, Any]]:
    """A seat's gives and lays as the socket `p` got them."""
    return [(e["kind"], e.get("card", e.get("count"))) for e in p.events()
            if e.get("player") == pid and e["kind"] in ("gave", "laid")]


def computer_played(p: Player, pid: str, after: int) -> list[tuple[str, Any]]:
    """`pid`'s gives and lays while its seat was away (R17.2: the computer's), as `p`
    got them in the updates after mark `after`."""
    out, away = [], False
    for e in [e for u in p.updates[after:] for e in u["events"] if e.get("player") == pid]:
        if e["kind"] in ("away", "back"):
            away = e["kind"] == "away"
        elif away and e["kind"] in ("gave", "laid"):
            out.append((e["kind"], e.get("card", e.get("count"))))
    return out


@pytest.mark.redis
async def test_two_processes_one_killed_mid_game_the_cribbage_game_ends_on_the_other(
    spawn_crisp: Callable[..., ProcServer], redis_url: str
) -> None:
    """Ana on a, Ben on b, a computer player: a is SIGKILLed mid-game. b shows Ana
    disconnected within 30 s (R17.3), then away, and the computer plays her seat
    (R17.2) until her phone reconnects, to b; the game ends on b, and each computer
    move was made (saved and counted) by one process once."""
    a, b = spawn_crisp(CRISP_REDIS_URL=redis_url), spawn_crisp(CRISP_REDIS_URL=redis_url)
    await advance_all([a, b])  # one game time on both
    code, (ana, ben) = await seat(a, "cribbage", 2, bots=1, others=b)
    bot = "p3"
    driver = Driver("cribbage", [a, b])
    players = [ana, ben]
    try:
        await start_with(driver, players, target=61)
        # mid-game: the computer has given and laid, on either process
        await driver.until(players, lambda: any(k == "laid" for k, _ in seen(ben, bot))
                           and ben.view["status"] == "play", "a card laid by the computer")
        assert not over(ben)
        made_by_a = await moves_by_type(a)  # nothing moves until the test moves it
        made_by_b = await moves_by_type(b)
        a.kill()
        assert await ana.wait_closed() == 1006
        driver.servers = [b]
        mark = ben.mark()
        await b.advance(30_000)
        await ben.wait_event("disconnected", after=mark)
        await ben.wait_event("away", after=mark)
        await driver.until([ben], lambda: bool(computer_played(ben, "p1", mark)),
                           "a move the computer made for Ana")
        ana = await Player.join(b, code, "p1", ana.token)  # Ana's phone reconnects to b
        await ben.wait_event("back", after=mark)
        players = [ana, ben]
        await driver.until(players, lambda: over(ana) and over(ben), "the game over on b")
        async with b.http() as c:
            r = await c.get(f"/api/rooms/{code}/rounds/1")
        assert r.status_code == 200, r.text
        record = replayed(r.json()["moves"], bot)
        # Ben (on b throughout) got each move once, as the record has it
        assert seen(ben, bot) == record
        assert seen(ben, "p1") == replayed(r.json()["moves"], "p1")
        made_by_b_now = await moves_by_type(b)
        made = {kind: made_by_a.get(kind, 0) + made_by_b_now.get(kind, 0)
                for kind in ("give", "lay")}
        computer = record + computer_played(ben, "p1", mark)
        assert made == {"give": sum(k == "gave" for k, _ in computer),
                        "lay": sum(k == "laid" for k, _ in computer)}, (made, computer)
        assert made_by_b_now.get("lay", 0) > made_by_b.get("lay", 0)  # b played on
        assert refused_moves(a, b) == []
        assert await computer_moves_made(b) >= sum(made_by_b_now.values())
    finally:
        await close_all(players)


@pytest.mark.redis
async def test_a_table_room_in_redis_is_played_on_after_a_restart(
    spawn_crisp: Callable[..., ProcServer], redis_url: str
) -> None:
    env = {"CRISP_REDIS_URL": redis_url}
    a = spawn_crisp(**env)
    code, (ana, ben) = await seat(a, "cribbage", 2, bots=1)
    driver = Driver("cribbage", [a])
    await start_with(driver, [ana, ben], target=61)
    await driver.until([ana, ben], lambda: ana.view["status"] == "play", "the play")
    before = {p.pid: p.view for p in (ana, ben)}
    a.stop()  # a restart: SIGTERM, then a new process on the same Redis
    await ana.wait_closed()
    await ben.wait_closed()
    b = spawn_crisp(**env)
    ana = await Player.join(b, code, "p1", ana.token)
    ben = await Player.join(b, code, "p2", ben.token)
    try:
        for p in (ana, ben):  # the table as it was: the same hand, scores, turn
            was, now = before[p.pid], p.view
            for key in ("game", "hand_no", "hand", "gave", "starter", "play", "turn", "host"):
                assert now[key] == was[key], key
            assert [x["score"] for x in now["players"]] == [x["score"] for x in was["players"]]
            assert now["version"] >= was["version"]
        driver.servers = [b]
        hand = ana.view["hand_no"]
        await driver.until([ana, ben], lambda: ana.view["hand_no"] > hand or over(ana),
                           "the next hand, played on the new process")
        assert any(k == "laid" for k, _ in seen(ana, "p3"))
    finally:
        await close_all([ana, ben])


# ---- R17.6: nobody there, nothing acts


@pytest.mark.parametrize("options", [{}, {"turn_seconds": 15}], ids=["untimed", "timed"])
async def test_r17_6_with_no_person_connected_nothing_acts(
    server: ThreadServer, options: dict[str, Any]
) -> None:
    """The computer player waits, and so do the game's timers, while no person is
    connected; when one is back, the game goes on."""
    code, (ana, ben) = await seat(server, "cribbage", 2, bots=1)
    driver = Driver("cribbage", [server])
    try:
        await start_with(driver, [ana, ben], **options)
        eve = await Player.watch(server, code)  # a watcher is nobody's seat
        mark = eve.mark()
        await ana.close()
        await ben.close()
        await eve.wait_view(lambda v: not any(x["connected"] for x in v["players"]))
        await server.advance(AWAY_MS)  # both away now: only that changed
        await server.advance(300_000)
        await eve.wait_view(lambda v: seat_of(v, "p1")["away"] and seat_of(v, "p2")["away"])
        kinds = [e["kind"] for u in eve.updates[mark:] for e in u["events"]]
        assert sorted(kinds) == ["away", "away", "disconnected", "disconnected"], kinds
        await close_all([eve])
        ana = await Player.join(server, code, "p1", ana.token)
        assert ana.view["status"] == "give"
        assert [x["gave"] for x in ana.view["players"]] == [0, 0, 0]
        await driver.until([ana], lambda: seat_of(ana.view, "p3")["gave"] == 1,
                           "the computer's give once Ana is back")
    finally:
        await close_all([ana, ben])


async def test_r17_6_a_timer_paused_by_nobody_there_gets_its_full_time_again(
    server: ThreadServer,
) -> None:
    """Every person away: when one is back, the give in progress gets its 15 s again
    (`Game.resume`), and runs out only then."""
    code, (ana, ben) = await seat(server, "cribbage", 2)
    driver = Driver("cribbage", [server])
    try:
        await start_with(driver, [ana, ben], turn_seconds=15)
        await ana.close()
        await ben.close()
        await server.advance(AWAY_MS + 60_000)
        ana = await Player.join(server, code, "p1", ana.token)
        now = ana.updates[-1]["now"]
        await server.advance(1)
        assert seat_of(ana.view, "p1")["gave"] == 0  # (Ben's away seat is the computer's)
        assert ana.view["give_deadline"] == now + 15_000
        await server.advance(to=now + 15_000 - 1)
        assert ana.view["status"] == "give" and seat_of(ana.view, "p1")["gave"] == 0
        mark = ana.mark()
        await server.advance(1)
        await ana.wait_view(lambda v: v["status"] != "give", after=mark, what="the time-out")
    finally:
        await close_all([ana, ben])


async def test_r17_6_a_short_time_with_nobody_connected_keeps_what_was_left(
    server: ThreadServer,
) -> None:
    """Every person disconnected, none away yet (under 20 s): the game's deadlines are
    held, and when one is back each moves by the pause's length (`Game.shift`): the
    give keeps the time it had left, as a Crisp draw does. The deadline would have
    passed during the pause: it does not fire on the return."""
    code, (ana, ben) = await seat(server, "cribbage", 2)
    driver = Driver("cribbage", [server])
    try:
        await start_with(driver, [ana, ben], turn_seconds=15)
        deadline = ana.view["give_deadline"]
        start = ana.updates[-1]["now"]
        await server.advance(to=deadline - 10_000)  # 10 s of the give left
        await ana.close()
        await ben.close()
        gone = deadline - 10_000
        await server.advance(to=deadline + 5_000)  # past it, both away in 5 s more
        ana = await Player.join(server, code, "p1", ana.token)
        now = ana.updates[-1]["now"]
        assert now - gone == 15_000 and now >= start
        await server.advance(1)
        assert ana.view["status"] == "give" and seat_of(ana.view, "p1")["gave"] == 0
        assert ana.view["give_deadline"] == deadline + (now - gone)  # 10 s left, from now
        await server.advance(to=now + 10_000 - 1)
        assert ana.view["status"] == "give"
        mark = ana.mark()
        await server.advance(1)
        await ana.wait_view(lambda v: v["status"] != "give", after=mark, what="the time-out")
    finally:
        await close_all([ana, ben])
