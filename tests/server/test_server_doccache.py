"""The document a process saved last is trusted only through the compare-and-set
(crisp/server/doccache.py, issue 13): two `Rooms` on one store play two server
processes, and each change one of them makes from a copy the other has made out
of date must land on the stored document, refusals and no-ops included."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from crisp.engine import actions as engine_actions
from crisp.server.rooms import Rooms
from crisp.store import Store, create_store


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.redis)])
async def shared_store(request: pytest.FixtureRequest) -> AsyncIterator[Store]:
    url = request.getfixturevalue("redis_url") if request.param == "redis" else None
    store = create_store(url, idle_ttl_s=600)
    await store.start()
    try:
        yield store
    finally:
        await store.close()


async def test_a_change_from_an_out_of_date_copy_lands_on_the_stored_document(
    shared_store: Store,
) -> None:
    a, b = Rooms(shared_store), Rooms(shared_store)
    seat = await a.create("Ana")
    code = seat.room_code
    await a.act(code, "p1", engine_actions.SetOptions(limit=50))  # a keeps version n
    await b.act(code, "p1", engine_actions.SetOptions(limit=100))
    await b.join(code, "Bo")
    await a.act(code, "p1", engine_actions.SetOptions(limit=150))  # from a's old copy
    doc = await b.load(code)
    assert doc is not None
    assert doc.state.options.limit == 150
    assert [p.name for p in doc.state.players] == ["Ana", "Bo"]  # b's join is kept


async def test_a_refusal_from_an_out_of_date_copy_is_decided_again(shared_store: Store) -> None:
    a, b = Rooms(shared_store), Rooms(shared_store)
    seat = await a.create("Ana")
    code = seat.room_code
    await a.set_locked(code, "p1", True)  # a's copy: locked
    await b.set_locked(code, "p1", False)
    joined = await a.join(code, "Bo")  # refused on a's copy, accepted on the stored one
    assert joined.player_id == "p2"


async def test_no_change_on_an_out_of_date_copy_is_decided_again(shared_store: Store) -> None:
    a, b = Rooms(shared_store), Rooms(shared_store)
    seat = await a.create("Ana")
    code = seat.room_code
    await a.connect(code, "p1", "conn-a")  # a's copy: conn-a is the seat's newest
    await b.connect(code, "p1", "conn-b")
    await a.disconnect(code, "p1", "conn-b")  # a no-op on a's copy
    doc = await b.load(code)
    assert doc is not None and doc.conns == {} and not doc.state.players[0].connected
