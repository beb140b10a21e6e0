"""Per-client HTTP limits (issue 12; protocol.md v1.1: HTTP 429 `rate_limited` with
`Retry-After`): room creation, joins and look-ups of unknown codes each have their
own budget, kept in the store (shared by every process on one Redis); the client
is the peer address, or what a trusted proxy reports."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable

import httpx

from crisp.server.ops.settings import Settings
from crisp.server.rooms.codes import ALPHABET, CODE_LEN, new_code
from tests.support.rooms import create_room, join_room
from tests.support.servers import ThreadServer

LIMITS = {"http_limits": "on", "limit_rooms": "3/1h", "limit_joins": "4/1h",
          "limit_lookups": "5/1h"}


def _limited(r: httpx.Response) -> None:
    assert r.status_code == 429, r.text
    assert r.json()["error"]["code"] == "rate_limited"
    assert int(r.headers["retry-after"]) >= 1


async def test_a_guessing_client_gets_429_long_before_it_finds_a_room(
    make_server: Callable[..., ThreadServer],
) -> None:
    """The enumeration budget: guesses spend look-ups; once spent, every look-up is
    refused, also of a room that exists (the answers tell nothing any more)."""
    server = make_server(**LIMITS)
    code, _, _ = await create_room(server)
    async with server.http() as c:
        answers = [(await c.get(f"/api/rooms/{new_code()}")).status_code for _ in range(5)]
        assert answers == [404] * 5
        for guess in (new_code(), new_code(), code):
            _limited(await c.get(f"/api/rooms/{guess}"))
        # a join of an unknown code is a look-up too, and it is refused the same way
        _limited(await c.post(f"/api/rooms/{new_code()}/players", json={"name": "Eve"}))


async def test_found_rooms_do_not_spend_look_ups(make_server: Callable[..., ThreadServer]) -> None:
    server = make_server(**LIMITS)
    code, _, _ = await create_room(server)
    async with server.http() as c:
        for _ in range(20):
            assert (await c.get(f"/api/rooms/{code}")).status_code == 200
        for _ in range(5):
            assert (await c.get(f"/api/rooms/{new_code()}")).status_code == 404
        _limited(await c.get(f"/api/rooms/{new_code()}"))


async def test_concurrent_guesses_cannot_overdraw_the_budget(
    make_server: Callable[..., ThreadServer],
) -> None:
    server = make_server(**LIMITS)
    async with server.http() as c:
        got = await asyncio.gather(*(c.get(f"/api/rooms/{new_code()}") for _ in range(40)))
    statuses = sorted(r.status_code for r in got)
    assert statuses.count(404) == 5 and statuses.count(429) == 35


async def test_room_creation_has_its_own_budget(make_server: Callable[..., ThreadServer]) -> None:
    server = make_server(**LIMITS)
    async with server.http() as c:
        for _ in range(3):
            assert (await c.post("/api/rooms", json={"name": "Ana"})).status_code == 201
        _limited(await c.post("/api/rooms", json={"name": "Ana"}))
        # the other budgets are untouched
        assert (await c.get(f"/api/rooms/{new_code()}")).status_code == 404


async def test_joins_have_their_own_budget(make_server: Callable[..., ThreadServer]) -> None:
    server = make_server(**LIMITS)
    code, _, _ = await create_room(server)
    names = ["Ben", "Cid", "Dee", "Eve", "Fay"]
    for name in names[:4]:
        await join_room(server, code, name)
    async with server.http() as c:
        _limited(await c.post(f"/api/rooms/{code}/players", json={"name": names[4]}))
        assert (await c.get(f"/api/rooms/{code}")).status_code == 200  # look-ups still fine
        assert (await c.post("/api/rooms", json={"name": "Ana"})).status_code == 201


async def test_a_refused_budget_recovers_with_time(
    make_server: Callable[..., ThreadServer],
) -> None:
    server = make_server(http_limits="on", limit_lookups="2/1s")
    async with server.http() as c:
        for _ in range(2):
            assert (await c.get(f"/api/rooms/{new_code()}")).status_code == 404
        r = await c.get(f"/api/rooms/{new_code()}")
        _limited(r)
        await asyncio.sleep(0.6)  # pacing: the client tries again once its budget refilled
        assert (await c.get(f"/api/rooms/{new_code()}")).status_code == 404


async def test_forwarded_for_is_ignored_from_an_untrusted_peer(
    make_server: Callable[..., ThreadServer],
) -> None:
    server = make_server(**LIMITS)
    async with server.http() as c:
        for i in range(5):
            headers = {"X-Forwarded-For": f"198.51.100.{i}"}
            assert (await c.get(f"/api/rooms/{new_code()}", headers=headers)).status_code == 404
        elsewhere = {"X-Forwarded-For": "203.0.113.9"}
        _limited(await c.get(f"/api/rooms/{new_code()}", headers=elsewhere))


async def test_forwarded_for_counts_from_a_trusted_proxy(
    make_server: Callable[..., ThreadServer],
) -> None:
    server = make_server(**LIMITS, trusted_proxies=["127.0.0.1"])
    async with server.http() as c:
        for _ in range(5):
            r = await c.get(f"/api/rooms/{new_code()}", headers={"X-Forwarded-For": "198.51.100.7"})
            assert r.status_code == 404
        _limited(await c.get(f"/api/rooms/{new_code()}",
                             headers={"X-Forwarded-For": "198.51.100.7"}))
        # another client behind the same proxy has its own budget; a client that puts
        # an address of its own in front does not escape (the proxy's entry is last)
        other = {"X-Forwarded-For": "198.51.100.8"}
        assert (await c.get(f"/api/rooms/{new_code()}", headers=other)).status_code == 404
        spoofed = {"X-Forwarded-For": "10.9.9.9, 198.51.100.7"}
        _limited(await c.get(f"/api/rooms/{new_code()}", headers=spoofed))


async def test_ipv6_clients_count_per_64(make_server: Callable[..., ThreadServer]) -> None:
    server = make_server(**LIMITS, trusted_proxies=["127.0.0.1"])
    async with server.http() as c:
        for i in range(5):
            xff = {"X-Forwarded-For": f"2001:db8:1:2::{i + 1:x}"}
            assert (await c.get(f"/api/rooms/{new_code()}", headers=xff)).status_code == 404
        _limited(await c.get(f"/api/rooms/{new_code()}",
                             headers={"X-Forwarded-For": "2001:db8:1:2:ffff::1"}))
        elsewhere = {"X-Forwarded-For": "2001:db8:1:3::1"}
        assert (await c.get(f"/api/rooms/{new_code()}", headers=elsewhere)).status_code == 404


async def test_budgets_hold_across_processes_on_redis(
    redis_url: str, spawn_server: Callable[..., ThreadServer]
) -> None:
    a = spawn_server(redis_url=redis_url, **LIMITS)
    b = spawn_server(redis_url=redis_url, **LIMITS)
    async with a.http() as ca, b.http() as cb:
        got = [await (ca if i % 2 else cb).get(f"/api/rooms/{new_code()}") for i in range(8)]
        assert [r.status_code for r in got] == [404] * 5 + [429] * 3


async def test_the_test_hook_turns_http_limits_off_only_with_test_hooks() -> None:
    assert not Settings(test_hooks=True, http_limits="off").effective_http_limits
    assert Settings(test_hooks=False, http_limits="off").effective_http_limits
    assert Settings(test_hooks=True).effective_http_limits


def test_the_enumeration_arithmetic_of_the_defaults() -> None:
    """docs/deploy.md, "Room codes": with 100,000 live rooms, finding any room by
    guessing at the default look-up rate takes one client more than a day and
    1,000 clients more than an hour (expected time, burst included)."""
    codes = len(ALPHABET) ** CODE_LEN
    live = 100_000
    budget = Settings().limit_lookups
    assert budget is not None
    guesses_per_hit = codes / live

    def hours_to_find(clients: int) -> float:
        burst = clients * budget.count
        return max(0.0, guesses_per_hit - burst) / (clients * budget.per_s) / 3600

    assert hours_to_find(1) > 24 * 365  # years, in fact
    assert hours_to_find(1000) > 24  # a day, ten times the hour asked for
    # and the chance that 1,000 clients find any room within the first hour is small
    first_hour = 1000 * (budget.count + budget.per_s * 3600)
    assert 1 - math.exp(-first_hour / guesses_per_hit) < 0.05
