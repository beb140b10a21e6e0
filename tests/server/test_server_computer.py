"""Computer play on a live server (R17.1, R17.2, R17.4, R17.5, R17.6): computer
players the host adds, away seats played by the computer until their player is
back, seats removed during a game, host hand-over, a table that never waits
forever and never plays on with nobody watching. On both stores."""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest

from crisp.bench.client import legal_at
from crisp.bots import THINK_MS, random_move
from tests.support.play import BotPolicy, drive, drive_all, finished, simple_policy
from tests.support.player import Player, close_all
from tests.support.rooms import acts_of, add_bots, create_room, join_room, start_game, table
from tests.support.servers import ThreadServer

PEEK_MS = 10_000  # R16.2
AWAY_MS = 20_000  # R17.2
HOST_AWAY_MS = 60_000  # R17.4


async def test_r17_1_one_human_and_three_bots_play_to_game_over_and_a_rematch(
    server: ThreadServer,
) -> None:
    code, pid, token = await create_room(server, "Ana")
    ana = await Player.join(server, code, pid, token)
    bots = await add_bots(ana, "normal", "easy", "normal")
    v = await ana.wait_view(lambda v: len(v["players"]) == 4)
    seats = {p["id"]: p for p in v["players"]}
    assert [seats[b]["is_bot"] for b in bots] == [True] * 3
    assert [seats[b]["bot_level"] for b in bots] == ["normal", "easy", "normal"]
    assert seats[pid]["bot_level"] is None and not seats[pid]["is_bot"]
    assert not any(p["away"] for p in v["players"])
    await ana.act("options", limit=50)
    await ana.act("start")
    # the bots confirm the peek phase themselves (R16.2), then play
    for _ in range(15):
        await drive(ana, simple_policy, finished(("round_over", "game_over")))
        if ana.view["status"] == "game_over":
            break
        await ana.act("next_round")
        await ana.wait_view(lambda v: v["status"] == "peek")
    over = ana.view
    assert over["status"] == "game_over" and max(p["total"] for p in over["players"]) >= 50
    # every bot played, never instantly: a drawn card is resolved a pause later (R17.1);
    # on the manual clock each update's `now` is the moment of its change
    for bot in bots:
        moves = acts_of(ana, bot)
        assert len(moves) > 3, bot
        pauses = [later[0] - at for (at, e), later in itertools.pairwise(moves)
                  if e["kind"] == "drew"]
        assert pauses and min(pauses) >= THINK_MS[0], (bot, pauses)
    # the bots' own looks never reached the human
    assert all(e["player"] == pid for e in ana.events("peek"))

    await ana.act("rematch")
    v = await ana.wait_view(lambda v: v["status"] in ("lobby", "peek") and v["round"] <= 1)
    if v["status"] == "lobby":  # a rematch returns to the lobby: start again
        await ana.act("start")
    await server.advance(10_000)  # the bots confirm the peek phase; it ends by then (R16.2)
    v = await ana.wait_view(lambda v: v["status"] == "playing")
    assert [p["id"] for p in v["players"] if p["is_bot"]] == bots
    await close_all([ana])


async def test_r17_2_the_no_timer_stall_moves_on_and_the_player_takes_the_seat_back(
    server: ThreadServer,
) -> None:
    code, players = await table(server, 3)
    ana, _ben, _cid = players
    await start_game(players)  # no draw timer (R14 off): the table used to wait forever
    v = await ana.wait_view(lambda v: v["status"] == "playing")
    mover = next(p for p in players if p.pid == v["turn"]["player"])
    watcher = next(p for p in players if p is not mover)
    mark = watcher.mark()
    await mover.close()  # the turn player closes their phone
    await watcher.wait_event("disconnected", after=mark)
    # R17.2: away 20 s after the last connection ended, not a moment before
    await server.advance(AWAY_MS - 1)
    assert watcher.events("away") == []
    await server.advance(1)
    away = await watcher.wait_event("away", after=mark)
    assert away["player"] == mover.pid
    moved_on = await watcher.wait_view(
        lambda v: v["turn"] is not None and v["turn"]["player"] != mover.pid, after=mark
    )
    assert moved_on["players"][[p["id"] for p in moved_on["players"]].index(mover.pid)]["away"]
    # at once (R17.2): its whole turn is in the very change that made the seat away
    (at_away,) = [u for u in watcher.updates[mark:] if any(
        e["kind"] == "away" for e in u["events"])]
    kinds = [e["kind"] for e in at_away["events"] if e.get("player") == mover.pid]
    assert kinds[:2] == ["away", "drew"] and len(kinds) >= 3, kinds

    # the others play on (calling no crisp) until the away seat's next turn starts;
    # its player comes back before that turn may start (R10.4): mid-turn
    others = [p for p in players if p is not mover]
    rng = random.Random(5)

    def no_crisp(p: Player, v: dict[str, Any], now: int) -> dict[str, Any] | None:
        return random_move(legal_at(v, now), rng, crisp_chance=0.0)

    mark = watcher.mark()

    def turn_of_mover(q: Player) -> int | None:
        for i, u in enumerate(q.updates[mark:], mark):
            if any(e["kind"] == "turn_started" and e["player"] == mover.pid for e in u["events"]):
                return i
        return None

    await drive_all([(p, no_crisp, lambda q: turn_of_mover(watcher) is not None)
                     for p in others])
    started = turn_of_mover(watcher)
    back = await Player.join(server, code, mover.pid, mover.token)
    assert back.view["turn"]["player"] == mover.pid and back.view["holding"] is None
    assert not next(p for p in back.view["players"] if p["id"] == mover.pid)["away"]
    assert (await watcher.wait_event("back", after=mark))["player"] == mover.pid
    at_back = next(i for i, u in enumerate(watcher.updates) if i >= mark and any(
        e["kind"] == "back" for e in u["events"]))
    assert acts_of(watcher, mover.pid, after=started) == []  # the computer had not moved yet
    # from `back` on the computer sends nothing more for them: the seat waits, also
    # past the moment the turn may start, when the computer would have played it
    may_start = back.view["turn"]["may_start_at"]
    await server.advance(to=may_start + 4 * THINK_MS[1])
    assert acts_of(watcher, mover.pid, after=at_back) == []
    assert back.view["turn"]["player"] == mover.pid
    # and the player plays their turn themselves
    await drive(back, simple_policy, lambda q: len(acts_of(watcher, mover.pid, at_back)) >= 2)
    await close_all([*others, back])


async def test_r17_6_nothing_acts_while_every_human_is_away(server: ThreadServer) -> None:
    code, pid, token = await create_room(server, "Ana")
    ana = await Player.join(server, code, pid, token)
    await add_bots(ana, "normal", "normal")
    await ana.act("start")
    await server.advance(PEEK_MS)  # the bots confirm; the phase ends by then (R16.2)
    await ana.wait_view(lambda v: v["status"] == "playing")
    await ana.close()
    # the bots play on only until Ana is away (20 s); after that nothing happens
    await server.advance(AWAY_MS)
    doc = await server.call(server.ctx.rooms.load(code))
    frozen = doc.state.version
    assert next(p for p in doc.state.players if p.id == pid).away
    answer = await server.advance(10 * THINK_MS[1], room=code)
    assert answer["version"] == frozen
    # Ana comes back: the table goes on (her turn is hers; the bots play theirs)
    ana = await Player.join(server, code, pid, token)
    mark = ana.mark()
    await drive(ana, simple_policy, lambda p: len(acts_of(p, "p2", after=mark)) > 0)
    await close_all([ana])


async def test_r17_5_kick_during_a_game_hands_the_seat_to_the_computer(
    server: ThreadServer,
) -> None:
    code, players = await table(server, 3)
    ana, ben, cid = players
    await start_game(players)
    await ana.wait_view(lambda v: v["status"] == "playing")
    mark = cid.mark()
    await ana.act("kick", player=ben.pid)
    assert await ben.wait_closed() == 4403
    ev = await cid.wait_event("took_over", after=mark)
    assert ev["player"] == ben.pid
    seat = next(p for p in cid.view["players"] if p["id"] == ben.pid)
    assert seat["is_bot"] and seat["bot_level"] == "normal" and not seat["away"]
    # its old token is refused with 4403
    again = await Player.join(server, code, ben.pid, ben.token, hello=False)
    await again.send({"type": "hello", "token": ben.token})
    assert await again.wait_closed() == 4403
    # a seat the computer already plays cannot be kicked again; the game goes on
    assert (await ana.act("kick", player=ben.pid))["type"] == "error"
    mark = cid.mark()
    await drive_all([(p, simple_policy, lambda q: len(acts_of(q, ben.pid, mark)) > 0)
                     for p in (ana, cid)])
    await close_all([ana, cid])


async def test_r17_5_leave_in_the_lobby_and_during_a_game(server: ThreadServer) -> None:
    code, players = await table(server, 3)
    ana, ben, cid = players
    # lobby: the seat is freed; the host leaving hands the role on (R17.4)
    await cid.send({"type": "leave"})
    assert await cid.wait_closed() == 4403
    v = await ana.wait_view(lambda v: len(v["players"]) == 2)
    assert [p["id"] for p in v["players"]] == ["p1", "p2"]
    await add_bots(ana, "easy")
    mark = ben.mark()
    await ana.send({"type": "leave"})
    assert await ana.wait_closed() == 4403
    ev = await ben.wait_event("host_changed", after=mark)
    assert ev["player"] == ben.pid and ben.view["host"] == ben.pid
    # a game: the seat becomes a computer player's and the token stops working
    dee_pid, dee_token = await join_room(server, code, "Dee")
    dee = await Player.join(server, code, dee_pid, dee_token)
    await start_game([ben, dee])
    await ben.wait_view(lambda v: v["status"] == "playing")
    mark = ben.mark()
    await dee.send({"type": "leave"})
    assert await dee.wait_closed() == 4403
    assert (await ben.wait_event("took_over", after=mark))["player"] == dee_pid
    again = await Player.join(server, code, dee_pid, dee_token, hello=False)
    await again.send({"type": "hello", "token": dee_token})
    assert await again.wait_closed() == 4403
    # the last human leaves: nobody can ever play as a human again, the room goes
    await ben.send({"type": "leave"})
    assert await ben.wait_closed() == 4403
    async with server.http() as client:
        assert (await client.get(f"/api/rooms/{code}")).status_code == 404


async def test_r17_5_a_lobby_left_by_its_last_human_is_deleted(server: ThreadServer) -> None:
    code, pid, token = await create_room(server, "Ana")
    ana = await Player.join(server, code, pid, token)
    await add_bots(ana, "normal")
    await ana.send({"type": "leave"})
    assert await ana.wait_closed() == 4403
    async with server.http() as client:
        assert (await client.get(f"/api/rooms/{code}")).status_code == 404


async def test_r17_4_an_away_host_hands_the_role_on(server: ThreadServer) -> None:
    _code, players = await table(server, 3)
    ana, ben, cid = players
    mark = ben.mark()
    await ana.close()
    await ben.wait_event("disconnected", after=mark)
    # R17.4: away after 20 s, the role passes 60 s after that, not a moment before
    await server.advance(AWAY_MS + HOST_AWAY_MS - 1)
    assert ben.events("host_changed") == [] and ben.view["host"] == ana.pid
    await server.advance(1)
    ev = await ben.wait_event("host_changed", after=mark)
    assert ev["player"] == ben.pid  # the connected human who joined earliest
    assert ben.view["host"] == ben.pid and "start" in ben.view["legal"]
    await add_bots(ben, "easy")  # the new host has the host's actions
    await close_all([ben, cid])


async def test_r17_1_bots_in_the_lobby_are_refused_past_eight_seats_and_removable(
    server: ThreadServer,
) -> None:
    code, pid, token = await create_room(server, "Ana")
    ana = await Player.join(server, code, pid, token)
    bots = await add_bots(ana, *(["normal"] * 7))
    assert (await ana.act("add_bot"))["code"] == "room_full"
    assert (await ana.act("add_bot", level="expert"))["code"] == "bad_message"
    await ana.act("kick", player=bots[0])
    v = await ana.wait_view(lambda v: len(v["players"]) == 7)
    assert bots[0] not in [p["id"] for p in v["players"]]
    answer = await ana.act("add_bot")  # level defaults to normal
    assert next(e for e in answer["events"] if e["kind"] == "bot_added")["level"] == "normal"
    await close_all([ana])


async def test_r17_1_a_hard_computer_player_joins_and_plays_a_round(
    server: ThreadServer, caplog: pytest.LogCaptureFixture
) -> None:
    """The "hard" level (docs/protocol-additions.md, issue 26) over a real socket: added
    and named as such, it plays a whole round by the rules (no refused move is
    logged) and confirms its end."""
    code, pid, token = await create_room(server, "Ana")
    ana = await Player.join(server, code, pid, token)
    (bot,) = await add_bots(ana, "hard")  # checks its bot_added event's level
    seat = next(p for p in ana.view["players"] if p["id"] == bot)
    assert seat["is_bot"] and seat["bot_level"] == "hard"
    await ana.act("start")
    await drive(ana, simple_policy, finished(("round_over", "game_over")))
    assert len(acts_of(ana, bot)) > 1
    assert not [r for r in caplog.records if "computer move" in r.getMessage()]  # refused
    await close_all([ana])


async def test_a_bot_policy_plays_a_human_seat_too(server: ThreadServer) -> None:
    """The kit's BotPolicy (crisp.bots with a memory of the seat's updates) plays a
    whole round for a test's seat against a computer player."""
    code, pid, token = await create_room(server, "Ana")
    ana = await Player.join(server, code, pid, token)
    await add_bots(ana, "easy")
    await ana.act("start")
    await drive(ana, BotPolicy(pid, "normal", seed=7), finished(("round_over", "game_over")))
    assert ana.view["last_round"] is not None
    await close_all([ana])
