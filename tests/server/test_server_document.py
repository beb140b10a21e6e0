"""The room document is saved by what its model says (issue 22): every field of
`RoomDoc` changed alone is a change that `Rooms.mutate` saves, and it comes back
from the store as it went in, on the memory store and on Redis. A field added to
`RoomDoc` without a sample here fails `test_every_field_has_a_sample`: add one, and
the round trip proves it is saved."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from typing import Any

import pytest

from crisp.server.rooms.changes import Outcome
from crisp.server.rooms.computer_seats import ComputerSeat, Plan
from crisp.server.rooms.document import ConnRef, RoomDoc, changed_fields
from crisp.server.rooms.round_record import RecordMeta, Span
from crisp.server.rooms.service import Rooms
from crisp.store import Store, create_store


def _samples(doc: RoomDoc) -> dict[str, Any]:
    """A value different from the current one, for every field but the code."""
    state = doc.state.copy()
    state.version += 1
    return {
        "state": state,
        "token_hashes": {**doc.token_hashes, "p9": "ab" * 32},
        "conns": {"p1": ConnRef("c0ffee", 3)},
        "created_ms": doc.created_ms + 1,
        "locked": not doc.locked,
        "conn_seq": doc.conn_seq + 5,
        "revoked": doc.revoked | {"cd" * 32},
        "computer": {"p1": ComputerSeat({"seat": "p1"}, Plan("draw", 1234))},
        "saves": ("feedface",),
        "watchers": doc.watchers | {"w4tch3r"},  # R18.1
        "record": RecordMeta(game=2, base=3, end=5, spans=(Span(1, 3, 2, 900, 40, False),),
                             dropped=(), live=True),  # R18.2
        "game": "another",  # v2: never changed by the server, but kept as written
    }


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.redis)])
async def store(request: pytest.FixtureRequest) -> AsyncIterator[Store]:
    url = request.getfixturevalue("redis_url") if request.param == "redis" else None
    s = create_store(url, idle_ttl_s=600)
    await s.start()
    try:
        yield s
    finally:
        await s.close()


async def test_every_field_has_a_sample(store: Store) -> None:
    rooms = Rooms(store)
    seat = await rooms.create("Ana")
    doc = await rooms.load(seat.room_code)
    assert doc is not None
    names = {f.name for f in dataclasses.fields(RoomDoc)} - {"room_code"}
    assert set(_samples(doc)) == names, "a new RoomDoc field: give it a sample here"


@pytest.mark.parametrize("name", [f.name for f in dataclasses.fields(RoomDoc)
                                  if f.name != "room_code"])
async def test_each_field_changed_alone_is_saved_and_comes_back(
    store: Store, name: str
) -> None:
    rooms = Rooms(store)
    seat = await rooms.create("Ana")
    before = await rooms.load(seat.room_code)
    assert before is not None
    value = _samples(before)[name]
    assert name in changed_fields(before, before.with_(**{name: value}))
    out = await rooms.mutate(
        seat.room_code, lambda doc, _now: Outcome(doc.with_(**{name: value}), followed=True)
    )
    assert out is not None
    rooms.docs.forget(seat.room_code)  # from the store, not this process's copy
    after = await rooms.load(seat.room_code)
    assert after is not None
    got = getattr(after, name)
    if name == "state":
        assert got.to_json() == value.to_json()
    elif name == "saves":
        assert got[1:] == value and len(got) == 2  # the save's own id comes first
    else:
        assert got == value
