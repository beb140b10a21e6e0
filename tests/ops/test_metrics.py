"""GET /metrics (Prometheus text format) after a real game, the store wrapper's
failure counting, and per-app registries."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families

from crisp.bench.procs import free_port
from crisp.engine import ACTION_TYPES
from crisp.server.app import create_app
from crisp.server.ops.hooks import ServerHooks
from crisp.server.ops.metrics import PrometheusHooks
from crisp.server.ops.observed import observed_store
from crisp.server.ops.settings import Settings
from crisp.store import RedisStore, StoreUnavailable
from tests.support.decks import deck
from tests.support.play import play_rounds_to_game_over, simple_policy
from tests.support.player import Player, close_all
from tests.support.rooms import start_game, table
from tests.support.servers import ThreadServer

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def parse(text: str) -> Samples:
    out: Samples = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            out[(s.name, frozenset(s.labels.items()))] = s.value
    return out


def value(samples: Samples, name: str, **labels: str) -> float:
    key = (name, frozenset(labels.items()))
    assert key in samples, f"{name}{labels} missing"
    return samples[key]


def label_values(samples: Samples, name: str, label: str) -> dict[str, float]:
    return {dict(k[1])[label]: v for k, v in samples.items() if k[0] == name}


async def scrape(server: ThreadServer) -> Samples:
    async with server.http() as client:
        r = await client.get("/metrics")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/plain")
    return parse(r.text)


def no_ready_in_first_peek(p: Player, v: dict[str, Any], now: int) -> dict[str, Any] | None:
    """simple_policy, but the first round's peek phase ends by its timer (the scheduler)."""
    if v["status"] == "peek" and v["round"] == 1:
        return None
    return simple_policy(p, v, now)


@pytest.fixture
def server(redis_url: str) -> Iterator[ThreadServer]:
    # connect_rate_per_s 0, like every other test server (tests/server/conftest.py): the
    # test's one address opens every connection, a fresh one for each clock move, and on
    # a fast machine a game's moves passed the default 30/s (burst 60) and one request
    # was closed unanswered (connect_rate; a fresh-clone CI run, docs/testing.md)
    s = ThreadServer(
        Settings(test_hooks=True, clock="manual", redis_url=redis_url, http_limits="off",
                 connect_rate_per_s=0)
    ).start()
    yield s
    s.stop()


@pytest.mark.redis
async def test_metrics_after_a_game(server: ThreadServer) -> None:
    _code, (ana, ben) = await table(server, 2, deck=deck("AS", "TH", "2S", "9H"), dealer=0)
    await ben.act("start")  # refused: not_host
    await ben.wait_error()
    async with server.http() as client:
        assert (await client.get("/api/rooms/ZZZZ")).status_code == 404
    await start_game([ana, ben], ready=False, limit=50)
    await play_rounds_to_game_over([ana, ben], no_ready_in_first_peek)
    assert ana.view["status"] == "game_over"
    # settled: every socket's writer done (a latency is observed after its update is
    # written, which its reader may see first; CI once scraped in between: 22 of 23)
    await server.advance(0)

    m = await scrape(server)
    actions = label_values(m, "crisp_actions_total", "type")
    assert actions["start"] == 2 and actions["options"] == 1  # one refused, one accepted
    assert actions["draw"] >= 2 and actions["crisp"] >= 1
    # the kit's players play random legal moves (crisp.bots): only the game's actions
    assert set(actions) <= set(ACTION_TYPES) - {"kick", "rematch"}
    assert value(m, "crisp_errors_total", code="not_host") == 1
    assert value(m, "crisp_http_errors_total", status="404", code="not_found") == 1
    # action -> update latency: one observation per accepted action, all well under a second
    errors = label_values(m, "crisp_errors_total", "code")
    count = value(m, "crisp_action_update_seconds_count")
    assert count == sum(actions.values()) - sum(errors.values())
    assert value(m, "crisp_action_update_seconds_bucket", le="1.0") == count
    assert 0 < value(m, "crisp_action_update_seconds_sum") / count < 0.5
    # the first peek phase ended by its timer; crisp windows may have closed by theirs
    lateness = value(m, "crisp_timer_lateness_seconds_count")
    assert lateness >= 1
    assert value(m, "crisp_timer_lateness_seconds_bucket", le="1.0") == lateness
    for op in ("create", "load", "save", "subscribe", "claim_due", "next_due_ms", "room_count"):
        assert value(m, "crisp_store_op_seconds_count", op=op) > 0, op
        assert value(m, "crisp_store_failures_total", op=op) == 0, op
    assert value(m, "crisp_store_op_seconds_count", op="save") >= actions["draw"]
    assert value(m, "crisp_rooms_active") == 1
    assert value(m, "crisp_players_connected") == 2
    assert value(m, "crisp_rooms_created_total") == 1
    assert value(m, "crisp_players_joined_total") == 1
    assert value(m, "crisp_ws_opened_total") == 2
    assert value(m, "crisp_updates_total") > count
    assert value(m, "process_resident_memory_bytes") > 0

    await ben.close()  # the client closes with 1000
    await ana.wait_view(lambda v: not v["players"][1]["connected"])
    m = await scrape(server)
    assert value(m, "crisp_ws_closed_total", code="1000") == 1
    assert value(m, "crisp_players_connected") == 1
    await close_all([ana])


async def test_store_failures_are_counted_by_op() -> None:
    hooks = PrometheusHooks()
    store = observed_store(RedisStore(f"redis://127.0.0.1:{free_port()}/0"), hooks)
    try:
        with pytest.raises(StoreUnavailable):
            await store.load("ABCD")
        assert await store.ping() is False
    finally:
        await store.close()
    m = parse(hooks.render().decode())
    assert value(m, "crisp_store_failures_total", op="load") == 1
    assert value(m, "crisp_store_failures_total", op="ping") == 1
    assert value(m, "crisp_store_failures_total", op="save") == 0
    assert value(m, "crisp_store_op_seconds_count", op="load") == 1


async def get_metrics(app: FastAPI, rooms: int = 0) -> httpx.Response:
    """Run the app's lifespan, create `rooms` rooms, then GET /metrics (no server)."""
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            for _ in range(rooms):
                assert (await client.post("/api/rooms", json={"name": "Ana"})).status_code == 201
            return await client.get("/metrics")


async def test_each_app_has_its_own_registry() -> None:
    first, second = create_app(Settings()), create_app(Settings())  # no duplicate series
    m0 = parse((await get_metrics(first, rooms=1)).text)
    m1 = parse((await get_metrics(second)).text)
    assert value(m0, "crisp_rooms_created_total") == 1
    assert value(m0, "crisp_rooms_active") == 1
    assert value(m1, "crisp_rooms_created_total") == 0
    assert REGISTRY.get_sample_value("crisp_rooms_created_total") is None  # not the global one
    other = create_app(Settings(), hooks=ServerHooks())
    assert (await get_metrics(other)).status_code == 404  # other hooks: no metrics
