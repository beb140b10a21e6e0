"""Logs: a whole game played against `python -m crisp serve` at debug level with JSON
logs gives one JSON object per line, room codes on every room event, and never a
token, even when clients try to smuggle theirs into a logged message. Store
failures are logged once per outage, with the room code."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

import pytest

from crisp.server.ops.hooks import ServerHooks
from crisp.server.ops.logs import JsonFormatter
from crisp.server.ops.observed import observed_store
from crisp.store import MemoryStore, StoreUnavailable, Versioned
from tests.support.play import play_rounds_to_game_over
from tests.support.player import Player, close_all
from tests.support.rooms import create_room, join_room, start_game
from tests.support.servers import ProcServer

ROOM_EVENTS = {
    "room_created", "player_joined", "player_kicked", "game_started", "round_over",
    "game_over", "ws_opened", "ws_closed", "error",
}


@pytest.fixture
def server(spawn_crisp: Callable[..., ProcServer]) -> ProcServer:
    return spawn_crisp(CRISP_LOG_LEVEL="debug", CRISP_LOG_FORMAT="json")



async def test_a_game_at_debug_level_logs_json_with_room_codes_and_no_token(
    server: ProcServer,
) -> None:
    code, pid, token = await create_room(server, "Ana")
    seats = [(pid, token)] + [await join_room(server, code, n) for n in ("Ben", "Cid")]
    tokens = [t for _, t in seats]
    ana, ben, cid = [await Player.join(server, code, p, t) for p, t in seats]

    # attempts to get a token into the logs: a real token on the wrong room, as a
    # message type, as an unknown field, in a second hello, in a bad hello
    stray = await Player.join(server, "ZZZZ", "-", "-", hello=False)
    await stray.send({"type": "hello", "token": token})
    assert await stray.wait_closed() == 4401
    bad = await Player.join(server, code, "-", "-", hello=False)
    await bad.send({"type": "hello", "token": token, token: 1})
    assert await bad.wait_closed() == 4401
    silent = await Player.join(server, code, "-", "-", hello=False)
    await silent.close()  # closed before hello: a debug line
    for msg in ({"type": tokens[1]}, {"type": "ready", tokens[1]: 1, "id": tokens[1]},
                {"type": "hello", "token": tokens[1]}):
        await ben.send(msg)
    await ben.wait(lambda p: len(p.errors) == 3, what="3 errors")
    assert {e["code"] for e in ben.errors} == {"bad_message"}
    await ben.act("start")  # not_host
    await ben.wait(lambda p: len(p.errors) == 4, what="not_host")

    await ana.act("kick", player=cid.pid)
    assert await cid.wait_closed() == 4403
    await start_game([ana, ben], ready=False, limit=50)
    await play_rounds_to_game_over([ana, ben])
    await close_all([ana, ben])
    def closes_logged(text: str) -> bool:  # the three seats' closes (one was kicked)
        events = [json.loads(raw) for raw in text.splitlines() if raw.startswith("{")]
        return len([x for x in events if x.get("event") == "ws_closed" and "player" in x]) >= 3

    await server.log_shows(closes_logged)
    server.stop()

    assert server.log_path is not None
    text = server.log_path.read_text()
    for t in tokens:
        assert t not in text, "a token was logged"
    lines: list[dict[str, Any]] = []
    for raw in text.splitlines():
        line = json.loads(raw)  # every line is one JSON object
        assert {"ts", "level", "logger", "msg"} <= set(line), raw
        lines.append(line)
    seen = {x["event"] for x in lines if "event" in x}
    assert seen >= ROOM_EVENTS, ROOM_EVENTS - seen
    for x in lines:
        if x.get("event") in ROOM_EVENTS:
            assert x["room"] == code and code in x["msg"], x
    assert any(x["level"] == "debug" and x["logger"].startswith("crisp") for x in lines)
    errors = [x for x in lines if x.get("event") == "error"]
    assert {x["level"] for x in errors} == {"warning"}
    codes = [x["code"] for x in errors]  # then maybe refusals while driving (wrong_phase)
    # one line per seat and error code per log interval (the throttle): the three
    # bad messages of one seat are one line
    assert codes[:2] == ["bad_message", "not_host"] and codes.count("bad_message") == 1
    assert codes[2:].count("not_host") == 0
    closes = {(x["player"], x["close_code"]) for x in lines if x.get("event") == "ws_closed"
              and "player" in x}
    assert closes == {("p1", 1000), ("p2", 1000), ("p3", 4403)}
    kicked = [x for x in lines if x.get("event") == "player_kicked"]
    assert [x["player"] for x in kicked] == ["p3"]
    over = [x for x in lines if x.get("event") == "game_over"]
    assert len(over) == 1 and over[0]["winners"]
    assert not any(x["msg"] == "connection open" for x in lines)  # ours replace uvicorn's
    assert any(x["logger"] == "uvicorn.access" for x in lines)


class FlakyStore(MemoryStore):
    down = False

    async def load(self, code: str) -> Versioned | None:
        if self.down:
            raise StoreUnavailable("redis: connection refused")
        return await super().load(code)


async def test_store_failures_are_logged_once_per_outage_with_the_room(
    caplog: pytest.LogCaptureFixture,
) -> None:
    inner = FlakyStore()
    store = observed_store(inner, ServerHooks())
    caplog.set_level(logging.INFO, logger="crisp.server.store")
    inner.down = True
    for _ in range(3):
        with pytest.raises(StoreUnavailable):
            await store.load("K7QX")
    inner.down = False
    assert await store.load("K7QX") is None
    out = [json.loads(JsonFormatter().format(r)) for r in caplog.records]
    assert [(x["level"], x["event"], x["op"]) for x in out] == [
        ("warning", "store_failure", "load"), ("info", "store_ok", "load")]
    assert out[0]["room"] == "K7QX" and "K7QX" in out[0]["msg"]
