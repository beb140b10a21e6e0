"""Real server processes (`python -m crisp serve`) on a real Redis: crashes (SIGKILL)
mid-turn and inside a crisp window, timers that fall due while no server runs,
two processes sharing one Redis, graceful stop, and settings errors at start."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable

import pytest

from tests.support.decks import deck
from tests.support.play import play_rounds_to_game_over
from tests.support.player import Player, close_all
from tests.support.rooms import create_room, join_room, start_game, stored_state
from tests.support.servers import ROOT, ProcServer, advance_all

pytestmark = pytest.mark.redis

SCRIPT = deck("AS", "TH", "2S", "9H", "3S", "8H", "JD", "QD", "KD", "4C", "5C", "7C")


async def test_sigkill_mid_turn_and_in_a_crisp_window(
    spawn_crisp: Callable[..., ProcServer], redis_url: str
) -> None:
    a = spawn_crisp(CRISP_REDIS_URL=redis_url)
    code, pid, token = await create_room(a, "Ana", deck=SCRIPT, dealer=0)
    pid2, token2 = await join_room(a, code, "Ben")
    ana = await Player.join(a, code, pid, token)
    ben = await Player.join(a, code, pid2, token2)
    await start_game([ana, ben], limit=50)
    await ben.wait_legal("draw")
    await ben.act("draw", source="stock")
    await ben.wait_view(lambda v: v["holding"] == "JD")

    # crash mid-turn (p2 holds the Jack); a new process takes over from Redis
    stopped = await a.now_ms()
    a.kill()
    assert await ben.wait_closed() == 1006
    b = spawn_crisp(CRISP_REDIS_URL=redis_url)
    await b.advance(to=stopped)  # b's game time goes on from where a stopped
    ana = await Player.join(b, code, pid, token)
    ben = await Player.join(b, code, pid2, token2)
    v = ben.view
    assert v["status"] == "playing" and v["holding"] == "JD" and ben.updates[0]["events"] == []
    assert ana.view["holding"] is None
    await ben.act("jack")
    assert (await ben.wait_event("peek"))["card"] == "2S"
    await ana.wait_legal("draw")
    await ana.act("draw", source="stock")
    await ana.wait_view(lambda v: v["holding"] == "QD")
    await ana.act("discard")
    await ben.wait_legal("draw")
    await ben.act("draw", source="stock")
    await ben.wait_view(lambda v: v["holding"] == "KD")
    await ben.act("swap", slot="left")  # refused (R6.1): still mid-turn
    await ben.wait_error()

    # a standby process on the same Redis; crash the active one inside the crisp window
    c = spawn_crisp(CRISP_REDIS_URL=redis_url)
    await advance_all([b, c])
    await ben.act("king")
    await ben.wait_view(lambda v: v["holding"] is None and v["turn"]["extra_draws"] == 2)
    for card in ("4C", "5C"):
        await ben.act("draw", source="stock")
        await ben.wait_view(lambda v, card=card: v["holding"] == card)
        await ben.act("discard")
    v = await ben.wait_view(lambda v: v["crisp"]["window"] is not None)
    assert v["crisp"]["window"]["player"] == "p2"
    b.kill()
    ben = await Player.join(c, code, pid2, token2)
    assert "crisp" in ben.view["legal"], ben.view  # the window survived the crash
    await ben.act("crisp")
    ana = await Player.join(c, code, pid, token)
    await ana.wait_view(lambda v: v["crisp"]["caller"] == "p2")
    # finish the game on the third process
    await ana.wait_legal("draw")
    await play_rounds_to_game_over([ana, ben])
    over = ana.view
    assert over["status"] == "game_over" and max(p["total"] for p in over["players"]) >= 50
    assert over["winners"]
    await close_all([ana, ben])


@pytest.fixture(params=["redis", "cluster"])
def shared_url(request: pytest.FixtureRequest) -> str:
    """A shared store: the test Redis, or the test Redis Cluster (redis+cluster://)."""
    url: str = request.getfixturevalue("redis_url" if request.param == "redis" else "cluster_url")
    return url


async def test_draw_timer_set_before_a_crash_fires_after_the_restart(
    spawn_crisp: Callable[..., ProcServer], shared_url: str
) -> None:
    a = spawn_crisp(CRISP_REDIS_URL=shared_url)
    code, pid, token = await create_room(a, "Ana", deck=SCRIPT, dealer=0)
    pid2, token2 = await join_room(a, code, "Ben")
    ana = await Player.join(a, code, pid, token)
    ben = await Player.join(a, code, pid2, token2)
    await start_game([ana, ben], draw_seconds=30)
    v = await ana.wait_view(lambda v: v["status"] == "playing")
    deadline = v["turn"]["draw_deadline"]
    assert v["turn"]["player"] == "p2" and deadline is not None
    crashed = await a.now_ms()
    a.kill()
    # a new process starts (its clock behind the deadline): nothing fires yet
    b = spawn_crisp(CRISP_REDIS_URL=shared_url)
    await b.advance(to=crashed)  # game time goes on from the crash
    state = await stored_state(shared_url, code)
    assert state.turn is not None and state.turn.player == 1 and not state.discard
    # Both phones reconnect to it at once (before their seats' leases even ran out:
    # the table was never without a human, R17.6), and Ben, whose turn it is, does
    # nothing. 5 s past the deadline, its scheduler has fired the timer from the store
    # (R14.2a: he is connected, so the computer does not play for him), and the next
    # turn counts from the deadline, not from the restart (R14.3).
    ana = await Player.join(b, code, pid, token)
    ben = await Player.join(b, code, pid2, token2)
    await b.advance(to=deadline + 5_000)
    state = await stored_state(shared_url, code)
    assert [c.text for c in state.discard] == SCRIPT[6:7]
    assert state.turn is not None and state.turn.player == 0
    assert state.turn.may_start_at == deadline
    await close_all([ana, ben])


async def test_two_processes_share_one_redis(
    spawn_crisp: Callable[..., ProcServer], shared_url: str
) -> None:
    a = spawn_crisp(CRISP_REDIS_URL=shared_url)
    b = spawn_crisp(CRISP_REDIS_URL=shared_url)
    code, pid, token = await create_room(a, "Ana")
    seats = [(pid, token)]
    for i, name in enumerate(["Ben", "Cid", "Dee"]):
        seats.append(await join_room(b if i % 2 == 0 else a, code, name))
    # players alternate between the processes
    players = [
        await Player.join(a if i % 2 == 0 else b, code, p, t) for i, (p, t) in enumerate(seats)
    ]
    for p in players:
        await p.wait_view(lambda v: all(x["connected"] for x in v["players"]))

    # 4409 across processes: Dee (on b) connects again on a
    dee_again = await Player.join(a, code, players[3].pid, players[3].token)
    assert await players[3].wait_closed() == 4409
    players[3] = dee_again
    # kick across processes: Cid is on a, the host acts on a too; Ben on b sees it
    await players[0].act("kick", player="p3")
    assert await players[2].wait_closed() == 4403
    await players[1].wait_view(lambda v: [x["id"] for x in v["players"]] == ["p1", "p2", "p4"])
    del players[2]
    mark = len(players[0].updates)
    assert players[0].events("disconnected")[mark:] == []

    await start_game(players, ready=False, limit=50)
    await play_rounds_to_game_over(players)
    finals = [p.view for p in players]
    totals = [{x["id"]: x["total"] for x in v["players"]} for v in finals]
    assert totals[0] == totals[1] == totals[2]
    assert finals[0]["winners"] == finals[1]["winners"] == finals[2]["winners"]
    await close_all(players)


async def test_sigterm_closes_sockets_with_1012_and_logs_hold_no_token(
    spawn_crisp: Callable[..., ProcServer], redis_url: str
) -> None:
    a = spawn_crisp(CRISP_REDIS_URL=redis_url, CRISP_LOG_LEVEL="debug")
    code, pid, token = await create_room(a)
    p = await Player.join(a, code, pid, token)
    await p.act("options", limit=50)
    await p.wait_view(lambda v: v["options"]["limit"] == 50)
    a.stop(timeout=20)
    assert await p.wait_closed() == 1012  # every socket is told to reconnect at once
    assert a.proc is not None and a.proc.returncode in (0, -15)  # uvicorn re-raises SIGTERM
    assert a.log_path is not None
    log = a.log_path.read_text()
    assert "Application shutdown complete" in log
    assert token not in log


@pytest.mark.parametrize(
    ("env", "needle"),
    [
        ({"CRISP_PORT": "abc"}, "CRISP_PORT"),
        ({"CRISP_WORKERS": "2"}, "CRISP_REDIS_URL"),
    ],
)
def test_bad_settings_stop_the_server_with_a_clear_message(
    env: dict[str, str], needle: str
) -> None:
    full = {k: v for k, v in os.environ.items() if not k.startswith("CRISP_")}
    full.update(env)
    full["PYTHONPATH"] = str(ROOT)
    out = subprocess.run(
        [sys.executable, "-m", "crisp", "serve"],
        env=full,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert out.returncode == 2
    assert needle in out.stderr and "Traceback" not in out.stderr
