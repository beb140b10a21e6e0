"""Whole games over real websockets with stacked decks (CRISP_TEST_HOOKS) and a fast
clock (CRISP_TIME_SCALE): specials, crisp, scoring, next round, game over, rematch,
timers, reconnects and the refusals of the rules."""

from __future__ import annotations

from collections.abc import Callable

from tests.support.decks import deck
from tests.support.play import (
    drive_all,
    finished,
    play_rounds_to_game_over,
    simple_policy,
)
from tests.support.player import Player, close_all
from tests.support.rooms import start_game, table
from tests.support.servers import ThreadServer

# Two players, p1 deals (dealer 0), so p2 is dealt first and plays first (R2.2, R2.6):
#   p2: AS 2S 3S        p1: TH 9H 8H        stock: JD QD KD 4C 5C 7C ...
SCRIPT = deck("AS", "TH", "2S", "9H", "3S", "8H", "JD", "QD", "KD", "4C", "5C", "7C")


def peeks(p: Player) -> list[tuple[str, str]]:
    return [(e["slot"], e["card"]) for e in p.events("peek")]


PEEK_MS = 10_000  # R16.2


async def test_r2_to_r16_scripted_game_then_game_over_and_rematch(
    make_server: Callable[..., ThreadServer],
) -> None:
    server = make_server()
    _code, (ana, ben) = await table(server, 2, deck=SCRIPT, dealer=0)
    await start_game([ana, ben], ready=False, limit=50)
    ev = await ben.wait_event("round_started")
    assert ev == {"kind": "round_started", "round": 1, "dealer": "p1"}
    # R2.4 / R16.3: each player sees their own left and right card, once
    assert peeks(ana) == [("left", "TH"), ("right", "8H")]
    assert peeks(ben) == [("left", "AS"), ("right", "3S")]
    assert all(pl["cards"] == [None, None, None] for pl in ana.view["players"])

    await ana.act("ready")
    await ben.act("ready")
    v = await ben.wait_view(lambda v: v["status"] == "playing")
    assert v["turn"]["player"] == "p2" and v["stock_count"] == 52 - 6

    # p2: Jack from the stock -> looks at their middle card (R7.1)
    await ben.wait_legal("draw")
    await ben.act("draw", source="stock")
    await ben.wait_view(lambda v: v["holding"] == "JD")
    drew = await ana.wait_event("drew")
    assert drew == {"kind": "drew", "player": "p2", "source": "stock", "card": None}  # R4.1
    assert ana.view["holding"] is None
    mark = len(ben.updates)
    await ben.act("jack")
    assert await ben.wait_event("peek", after=mark) == {
        "kind": "peek", "player": "p2", "slot": "middle", "card": "2S"}
    jack = await ana.wait_event("jack")
    assert jack["player"] == "p2"
    assert ("middle", "2S") not in peeks(ana)

    # p1: Queen -> blind swap of p1's left with p2's middle (R8.2, R8.3: no peek for a middle)
    await ana.wait_legal("draw")
    await ana.act("draw", source="stock")
    await ana.wait_view(lambda v: v["holding"] == "QD")
    mark_a, mark_b = ana.mark(), ben.mark()
    await ana.act("queen", slot="left", target="p2", target_slot="middle")
    q = await ben.wait_event("queen", after=mark_b)
    assert {k: q[k] for k in ("player", "slot", "target", "target_slot")} == {
        "player": "p1", "slot": "left", "target": "p2", "target_slot": "middle"}
    assert await ana.wait_event("peek", after=mark_a) == {
        "kind": "peek", "player": "p1", "slot": "left", "card": "2S"}
    await ben.wait_view(lambda v: v["turn"]["player"] == "p2", after=mark_b)
    assert [e for u in ben.updates[mark_b:] for e in u["events"] if e["kind"] == "peek"] == []

    # p2: King -> two extra draws (R9), discard one, swap the other, then call crisp (R10)
    await ben.wait_legal("draw")
    await ben.act("draw", source="stock")
    await ben.wait_view(lambda v: v["holding"] == "KD")
    await ben.act("discard")
    err = await ben.wait_error()
    assert err["code"] == "illegal" and "R6.3" in err["message"]
    await ben.act("swap", slot="left")
    assert (await ben.wait_error(after=1))["code"] == "illegal"  # R6.1
    await ben.act("king")
    v = await ben.wait_view(lambda v: v["turn"]["extra_draws"] == 2 and v["holding"] is None)
    assert "draw" in v["legal"]
    await ben.act("draw", source="stock")
    await ben.wait_view(lambda v: v["holding"] == "4C")
    await ben.act("discard")
    await ben.wait_view(lambda v: v["holding"] is None and v["turn"]["extra_draws"] == 1)
    await ben.act("draw", source="stock")
    await ben.wait_view(lambda v: v["holding"] == "5C")
    await ben.send({"type": "swap", "slot": "middle"})
    await ben.act("crisp")  # pipelined: inside the window that the swap opens
    v = await ana.wait_view(lambda v: v["crisp"]["caller"] == "p2")
    assert v["turn"] == {**v["turn"], "player": "p1", "final": True}
    assert v["discard_top"] == "KD"  # R9.3: the King goes on the pile after its extra draws
    swapped = [e for e in ana.events("swapped") if e["player"] == "p2"][-1]
    assert swapped["discarded"] == "TH"  # the swapped-out card is public (R5.1, R16.4)

    # p1: final turn (R11.1); swap the 7C into the left slot
    await ana.wait_legal("draw")
    await ana.act("draw", source="stock")
    await ana.wait_view(lambda v: v["holding"] == "7C")
    await ana.act("swap", slot="left")
    over = await ben.wait_event("round_over")
    assert over["hands"] == {"p1": ["7C", "9H", "8H"], "p2": ["AS", "5C", "3S"]}
    assert over["sums"] == {"p1": 24, "p2": 9}
    assert over["scores"] == {"p1": 24, "p2": 4}  # R12.2: lowest caller -5
    assert over["totals"] == {"p1": 24, "p2": 4} and over["caller"] == "p2"
    v = ben.view
    assert v["status"] == "round_over" and v["turn"] is None
    assert [p["cards"] for p in v["players"]] == [["7C", "9H", "8H"], ["AS", "5C", "3S"]]
    assert v["last_round"]["caller"] == "p2"

    # round 2 onwards: shuffled decks; play until someone reaches 50 (R12.5)
    await ben.act("next_round")
    assert (await ben.wait_error(after=2))["code"] == "not_host"
    for _ in range(12):
        await ana.act("next_round")
        for p in (ana, ben):
            await p.wait_view(lambda v: v["status"] == "peek")
        await drive_all(
            [(p, simple_policy, finished(("round_over", "game_over"))) for p in (ana, ben)]
        )
        if ana.view["status"] == "game_over":
            break
        await ben.wait_view(lambda v: v["status"] == "round_over")
    v = await ben.wait_view(lambda v: v["status"] == "game_over")
    totals = {p["id"]: p["total"] for p in v["players"]}
    assert max(totals.values()) >= 50
    assert v["winners"] == [pid for pid, t in totals.items() if t == min(totals.values())]
    game_over = ben.events("game_over")[-1]
    assert game_over["totals"] == totals and game_over["winners"] == v["winners"]

    assert [h["round"] for h in v["history"]] == list(range(1, v["round"] + 1))  # v1.1
    assert v["history"][-1]["totals"] == totals

    # rematch (R16.5; issue 11, was: dealt at once): back to the lobby with the same
    # seats and options, scores reset; the host may change options and start
    await ana.act("rematch")
    v = await ben.wait_view(lambda v: v["status"] == "lobby")
    assert v["round"] == 0 and all(p["total"] == 0 for p in v["players"])
    assert v["options"]["limit"] == 50 and v["history"] == []
    await ana.act("options", limit=100)
    await ana.act("start")
    v = await ben.wait_view(lambda v: v["status"] == "peek")
    assert v["round"] == 1 and v["options"]["limit"] == 100
    await close_all([ana, ben])


async def test_full_games_with_more_players(server: ThreadServer) -> None:
    _code, players = await table(server, 5)
    await start_game(players, ready=False, limit=50)
    await play_rounds_to_game_over(players)
    for p in players:
        await p.wait_view(lambda v: v["status"] == "game_over")
        seqs = [u["seq"] for u in p.updates]
        assert seqs == list(range(1, len(seqs) + 1))
    await close_all(players)


async def test_r14_draw_timeout_and_r16_2_peek_timeout(
    make_server: Callable[..., ThreadServer],
) -> None:
    server = make_server()
    code, (ana, ben) = await table(server, 2, deck=SCRIPT, dealer=0)
    await ana.act("options", draw_seconds=30)
    await ana.act("start")
    # nobody confirms: the peek phase ends by the clock, 10 s after the deal (R16.2)
    v = await ben.wait_view(lambda v: v["status"] == "peek")
    assert (await server.advance(PEEK_MS - 1, room=code))["version"] == v["version"]
    await server.advance(1)
    v = await ben.wait_view(lambda v: v["status"] == "playing")
    assert v["turn"]["player"] == "p2"
    deadline = v["turn"]["draw_deadline"]
    assert deadline - v["turn"]["may_start_at"] == 30_000  # R14.1, from the start (R14.3)
    # p2 does nothing: at the deadline, not before, the top card is drawn and discarded
    # for them (R14.2a), and no window opens (R10.5)
    await server.advance(to=deadline - 1)
    assert ana.events("timeout") == []
    await server.advance(to=deadline)
    ev = await ana.wait_event("timeout")
    assert ev == {"kind": "timeout", "player": "p2"}
    disc = await ana.wait_event("discarded")
    assert disc == {"kind": "discarded", "player": "p2", "card": "JD", "timeout": True}
    v = await ana.wait_view(lambda v: v["turn"] and v["turn"]["player"] == "p1")
    assert v["crisp"]["window"] is None and v["turn"]["may_start_at"] == deadline
    # p1 draws and holds too long: the held card is discarded unused (R14.2b)
    await ana.wait_legal("draw")
    await ana.act("draw", source="stock")
    v = await ana.wait_view(lambda v: v["holding"] == "QD")
    await server.advance(to=v["turn"]["draw_deadline"])
    await ana.wait_view(lambda v: v["turn"]["player"] == "p2")
    assert ana.events("discarded")[-1] == {
        "kind": "discarded", "player": "p1", "card": "QD", "timeout": True}
    assert ana.view["holding"] is None
    await close_all([ana, ben])


async def test_refusals_of_the_rules(make_server: Callable[..., ThreadServer]) -> None:
    server = make_server()
    _code, (ana, ben) = await table(server, 2, deck=SCRIPT, dealer=0)
    await ana.act("start")
    await ana.act("start", id="s2")
    assert (await ana.wait_error())["code"] == "wrong_phase"
    for p in (ana, ben):
        await p.act("ready")
    await ana.wait_view(lambda v: v["status"] == "playing")
    await ana.act("draw", source="stock", id="d1")
    err = await ana.wait_error(after=1)
    assert (err["code"], err["ref"]) == ("not_your_turn", "d1")
    await ben.act("draw", source="discard", id="d2")
    assert (await ben.wait_error())["code"] == "illegal"  # R13.1 off
    await ben.act("swap", slot="left", id="s1")
    assert (await ben.wait_error(after=1))["code"] == "illegal"  # draw first
    await ben.act("draw", source="stock")
    await ben.wait_view(lambda v: v["holding"] == "JD")
    await ben.act("queen", slot="left", target="p1", target_slot="left")
    assert (await ben.wait_error(after=2))["code"] == "illegal"  # not holding a queen
    await ben.act("discard")
    await ana.wait_view(lambda v: v["turn"]["player"] == "p1")
    await ana.act("draw", source="stock", id="early")
    err = await ana.wait_error(after=2)
    assert (err["code"], err["ref"]) == ("too_early", "early")  # R10.4
    await ana.act("crisp")
    assert (await ana.wait_error(after=3))["code"] == "illegal"  # not ana's window
    await ana.act("ready")
    assert (await ana.wait_error(after=4))["code"] == "wrong_phase"
    await close_all([ana, ben])


async def test_r13_discard_draw_must_be_swapped(server: ThreadServer) -> None:
    _code, (ana, ben) = await table(server, 2, deck=SCRIPT, dealer=0)
    await start_game([ana, ben], discard_draw=True)
    await ben.wait_legal("draw")
    await ben.act("draw", source="stock")
    await ben.wait_view(lambda v: v["holding"] == "JD")
    await ben.act("discard")
    await ana.wait_legal("draw")
    await ana.act("draw", source="discard")
    v = await ana.wait_view(lambda v: v["holding"] == "JD")
    assert v["turn"]["drawn_from"] == "discard"
    drew = await ben.wait(lambda p: [e for e in p.events("drew") if e["player"] == "p1"])
    assert drew == [{"kind": "drew", "player": "p1", "source": "discard", "card": "JD"}]
    await ana.act("discard")
    assert "R13.2" in (await ana.wait_error())["message"]
    await ana.act("jack")
    assert (await ana.wait_error(after=1))["code"] == "illegal"  # R13.3
    await ana.act("swap", slot="middle")  # a J from the discard pile may enter a hand
    v = await ben.wait_view(lambda v: v["discard_top"] == "9H")
    await close_all([ana, ben])


async def test_r16_3_reconnect_restores_the_seat_without_old_peeks(server: ThreadServer) -> None:
    code, (ana, ben) = await table(server, 2, deck=SCRIPT, dealer=0)
    await start_game([ana, ben])
    await ben.wait_legal("draw")
    await ben.act("draw", source="stock")
    await ben.wait_view(lambda v: v["holding"] == "JD")
    mark = ben.mark()
    await ben.act("jack")
    await ben.wait_event("peek", after=mark)
    await ben.close()
    await ana.wait_event("disconnected")
    assert ana.view["players"][1]["connected"] is False
    # p1 plays on while p2 is away
    await ana.wait_legal("draw")
    await ana.act("draw", source="stock")
    await ana.wait_view(lambda v: v["holding"] == "QD")
    # p1 reconnects while holding: the held card is the one hidden card it may see
    await ana.close()
    ana2 = await Player.join(server, code, ana.pid, ana.token)
    first = ana2.updates[0]
    assert first["events"] == [] and first["seq"] == 1
    assert first["view"]["holding"] == "QD"
    ben2 = await Player.join(server, code, ben.pid, ben.token)
    first = ben2.updates[0]
    assert first["events"] == [] and first["seq"] == 1
    v = first["view"]
    assert v["you"] == "p2" and v["status"] == "playing" and v["holding"] is None
    assert v["discard_top"] == "JD" and v["stock_count"] == 52 - 8
    text = repr(v)
    for hidden in ("AS", "2S", "3S", "TH", "9H", "8H", "QD"):
        assert f"'{hidden}'" not in text
    assert all(p["connected"] for p in v["players"])
    await close_all([ana2, ben2])


async def test_r16_2_a_disconnect_can_end_the_peek_phase(
    make_server: Callable[..., ThreadServer],
) -> None:
    server = make_server()
    _code, (ana, ben, cid) = await table(server, 3)
    await ana.act("start")
    await ana.wait_view(lambda v: v["status"] == "peek")
    await ana.act("ready")
    await ben.act("ready")
    await ana.wait_view(lambda v: sum(p["ready"] for p in v["players"]) == 2)
    await cid.close()
    await ana.wait_view(lambda v: v["status"] == "playing")  # no clock moved
    await close_all([ana, ben])
