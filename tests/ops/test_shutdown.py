"""Graceful shutdown with real processes and a real Redis: SIGTERM in the middle of a
game closes every websocket with 1012 and exits within seconds, leaving the room
(and its presence) exactly as it was; a new process on the same Redis takes the
clients back and the game finishes."""

from __future__ import annotations

import asyncio
import json
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from crisp.store import create_store
from tests.support.decks import deck
from tests.support.play import play_rounds_to_game_over
from tests.support.player import Player, close_all
from tests.support.rooms import create_room, join_room, start_game
from tests.support.servers import ProcServer

pytestmark = pytest.mark.redis

# Three players, Ana (p1) deals: Ben (p2) plays first and draws the Jack.
#   p2: AS 2S 3S    p3: AH 2H 3H    p1: AD 2D 3D    stock: JD QD KD ...
SCRIPT = deck("AS", "AH", "AD", "2S", "2H", "2D", "3S", "3H", "3D", "JD", "QD", "KD")
EXIT_WITHIN_S = 5.0


def spawn(spawn_crisp: Callable[..., ProcServer], redis_url: str, log: Path) -> ProcServer:
    return spawn_crisp(log, CRISP_REDIS_URL=redis_url, CRISP_LOG_FORMAT="json")


async def stored(redis_url: str, code: str) -> dict[str, Any]:
    store = create_store(redis_url)
    await store.start()
    try:
        found = await store.load(code)
        assert found is not None
        return json.loads(found.doc)  # type: ignore[no-any-return]
    finally:
        await store.close()


async def test_sigterm_mid_game_closes_1012_and_a_new_process_finishes_it(
    spawn_crisp: Callable[..., ProcServer], redis_url: str, tmp_path: Path
) -> None:
    a = spawn(spawn_crisp, redis_url, tmp_path / "a.log")
    code, pid, token = await create_room(a, "Ana", deck=SCRIPT, dealer=0)
    seats = [(pid, token), await join_room(a, code, "Ben"), await join_room(a, code, "Cid")]
    players = [await Player.join(a, code, p, t) for p, t in seats]
    ana, ben, cid = players
    lurker = await Player.join(a, code, "-", "-", hello=False)  # open, no hello yet
    await start_game(players, limit=50)
    await ben.wait_legal("draw")
    await ben.act("draw", source="stock")
    await ben.wait_view(lambda v: v["holding"] == "JD")
    for p in (ana, cid):
        await p.wait_event("drew")
    before = await stored(redis_url, code)

    # SIGTERM: every socket gets 1012 at once, the process exits promptly
    assert a.proc is not None
    started = time.monotonic()
    a.proc.send_signal(signal.SIGTERM)
    codes = await asyncio.gather(*(p.wait_closed(timeout=EXIT_WITHIN_S) for p in players))
    assert codes == [1012, 1012, 1012]
    assert await lurker.wait_closed(timeout=EXIT_WITHIN_S) == 1012
    returncode = await asyncio.to_thread(a.proc.wait, EXIT_WITHIN_S)
    elapsed = time.monotonic() - started
    assert returncode in (0, -signal.SIGTERM)  # uvicorn re-raises the signal it handled
    assert elapsed < EXIT_WITHIN_S, f"took {elapsed:.1f} s to exit"

    # nothing in the room changed: same state, presence left as it was (the
    # clients come straight back), same newest connection of every seat
    after = await stored(redis_url, code)
    assert after == before
    assert all(p["connected"] for p in after["state"]["players"])
    lines = [json.loads(line) for line in (tmp_path / "a.log").read_text().splitlines()]
    closed = [x for x in lines if x.get("event") == "ws_closed" and x.get("player")]
    assert sorted(x["player"] for x in closed) == ["p1", "p2", "p3"]
    assert {x["close_code"] for x in closed} == {1012} and {x["room"] for x in closed} == {code}

    # a new process on the same Redis; the clients reconnect with their tokens
    b = spawn(spawn_crisp, redis_url, tmp_path / "b.log")
    players = [await Player.join(b, code, p, t) for p, t in seats]
    ana, ben, cid = players
    assert ben.view["status"] == "playing" and ben.view["holding"] == "JD"
    assert ben.updates[0]["events"] == [] and ana.view["holding"] is None
    assert all(p["connected"] for p in ana.view["players"])
    await ben.act("jack")
    assert (await ben.wait_event("peek"))["card"] == "2S"
    await play_rounds_to_game_over(players)
    over = ana.view
    assert over["status"] == "game_over" and over["winners"]
    assert max(p["total"] for p in over["players"]) >= 50
    assert [p.events("disconnected") for p in players] == [[], [], []]
    await close_all(players)
