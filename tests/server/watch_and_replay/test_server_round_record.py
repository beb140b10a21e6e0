"""The round records' bookkeeping (rooms/round_record.py, R18.2) without a server:
changes' events in, the room's log as a store would hold it out. Every round of a
game read back whole; a round too long to keep; the game's bound trimming its oldest
rounds from the log's start while the others still read right; a rematch's new game
with no rounds; every save of a room with a log carrying a LogWrite."""

from __future__ import annotations

import random
from typing import Any

import pytest
import redis.asyncio as aioredis

from crisp.engine import Event
from crisp.server.rooms import round_record
from crisp.server.rooms.round_record import RecordMeta, follow, replay_of
from crisp.store import LogWrite, RedisStore
from tests.engine.helpers import Game, lobby


class Log:
    """A room's log as the store keeps it (docs/store.md, "Room logs")."""

    def __init__(self) -> None:
        self.entries: list[str] = []
        self.meta = RecordMeta()

    def save(self, game: Game, events: list[Event], now: int) -> LogWrite | None:
        self.meta, write = follow(self.meta, events, game.state.options, now)
        if write is not None:
            if write.reset:
                self.entries = []
            del self.entries[: write.trim]
            self.entries += write.append
        assert len(self.entries) == self.meta.end - self.meta.base
        return write

    def replay(self, n: int) -> dict[str, Any] | None:
        span = self.meta.span(n)
        if span is None or span.open or span.too_long:
            return None
        first = span.first - self.meta.base
        return replay_of(self.entries[first : first + span.entries], self.meta.game, n,
                         span.moves)


def _play(seed: int, log: Log, rounds: int, players: int = 3, calls_after: int = 4) -> Game:
    """Rounds of random play from the stock, each change's events saved to `log`;
    crisp is called at the first window after `calls_after` turns."""
    rng = random.Random(seed)
    g = lobby(players)
    g.act("p1", "options", limit=150)
    log.save(g, g.last, g.now)
    for n in range(rounds):
        log.save(g, g.act("p1", "start" if n == 0 else "next_round"), g.now)
        for p in g.ids:
            log.save(g, g.act(p, "ready"), g.now)
        turns = 0
        while g.state.status == "playing":
            who = g.turn_player
            assert who is not None
            turn = g.state.turn
            if turn is not None and g.now < turn.may_start_at:
                log.save(g, g.at(turn.may_start_at), g.now)
            log.save(g, g.act(who, "draw", source="stock"), g.now)
            while g.state.holding is not None:
                held = g.state.holding
                kind = "king" if held.rank == "K" else "discard"
                if held.rank not in "JQK" and rng.random() < 0.5:
                    log.save(g, g.act(who, "swap", slot=rng.choice(["left", "right"])), g.now)
                else:
                    log.save(g, g.act(who, kind), g.now)
                t = g.state.turn
                if t is not None and g.turn_player == who and t.extra_draws > 0:
                    log.save(g, g.act(who, "draw", source="stock"), g.now)
            turns += 1
            if "crisp" in g.plays(who) and turns > calls_after:
                log.save(g, g.act(who, "crisp"), g.now)
        if g.state.status == "game_over":
            break
    return g


def test_r18_2_every_round_of_a_game_reads_back_whole() -> None:
    log = Log()
    g = _play(1, log, rounds=3)
    assert g.state.round == 3
    for n in (1, 2, 3):
        rep = log.replay(n)
        assert rep is not None and rep["round"] == n
        assert [m["i"] for m in rep["moves"]] == list(range(len(rep["moves"])))
        hist = g.state.history[n - 1]
        assert rep["reveal"]["caller"] == hist.caller
        assert rep["reveal"]["scores"] == dict(hist.scores)
    assert log.replay(4) is None
    # a save without events of a room with a log still refreshes the log's expiry
    assert log.save(g, [], g.now) == LogWrite()


def test_r18_2_nothing_is_written_before_there_is_a_log() -> None:
    log = Log()
    g = lobby(2)
    assert log.save(g, g.act("p1", "options", limit=50), g.now) is None
    assert log.save(g, [], g.now) is None and log.entries == []


def test_r18_2_a_round_too_long_to_keep(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(round_record, "MAX_ROUND_BYTES", 3_000)
    log = Log()
    _play(2, log, rounds=2)
    spans = {s.round: s for s in log.meta.spans}
    assert any(s.too_long for s in spans.values())
    for n, span in spans.items():
        assert (log.replay(n) is None) == span.too_long
        assert span.size <= 3_000


def test_r18_2_the_game_bound_trims_the_oldest_rounds(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(round_record, "MAX_GAME_BYTES", 12_000)
    log = Log()
    g = _play(3, log, rounds=6)
    kept = [s.round for s in log.meta.spans]
    assert log.meta.dropped and kept, (log.meta.dropped, kept)
    assert sorted([*log.meta.dropped, *kept]) == list(range(1, g.state.round + 1))
    assert (log.meta.base > 0 and sum(s.size for s in log.meta.spans) <= 12_000) or len(kept) == 1
    for n in log.meta.dropped:
        assert log.replay(n) is None
    for n in kept:  # the log's indices still point at each kept round
        rep = log.replay(n)
        assert rep is not None and rep["round"] == n


def test_r18_2_a_rematch_is_a_new_game_with_no_rounds() -> None:
    log = Log()
    g = _play(4, log, rounds=15)
    assert g.state.status == "game_over"
    game = log.meta.game
    write = log.save(g, g.act("p1", "rematch"), g.now)
    assert write is not None and write.reset and log.entries == []
    assert log.meta.spans == () and log.meta.game == game + 1
    log.save(g, g.act("p1", "start"), g.now)
    rep_header = log.entries[0]
    assert '"round":1' in rep_header and f'"game":{game + 1}' in rep_header
    assert log.replay(1) is None  # in play


@pytest.mark.redis
@pytest.mark.parametrize(("players", "calls_after", "most"), [
    (4, 12, 16 * 1024),  # a typical round: 4 players, crisp after 3 turns each
    (8, 120, 96 * 1024),  # a long one: 8 players, 15 turns each, the stock rebuilt
])
async def test_r18_2_bytes_in_redis_per_round(
    redis_url: str, players: int, calls_after: int, most: int
) -> None:
    """The figures of docs/server.md, "Round records": one round's record in Redis
    (the list's MEMORY USAGE, and the JSON lines' bytes), under `most`."""
    log = Log()
    writes: list[LogWrite] = []
    g = lobby(players)
    g.act("p1", "start")
    store = RedisStore(redis_url)
    await store.start()
    try:
        await store.create("SIZE", "{}")
        version = 1
        log.meta = RecordMeta()
        _play_one(g, log, writes, calls_after)
        for write in writes:
            version = await store.save("SIZE", version, "{}", log=write) or 0
        r = aioredis.from_url(redis_url)
        memory = int(await r.memory_usage("crisp:room:SIZE:log") or 0)
        await r.aclose()
    finally:
        await store.close()
    size = sum(len(e) for e in log.entries)
    moves = log.meta.spans[0].moves
    print(f"{players} players, {moves} moves: {size} bytes of JSON, {memory} in Redis")
    assert 0 < size <= memory <= most, (size, memory)


def _play_one(g: Game, log: Log, writes: list[LogWrite], calls_after: int) -> None:
    """The round `g` just dealt, every change's LogWrite kept in `writes`."""
    rng = random.Random(7)
    first = g.log[-(1 + 2 * len(g.ids)):]  # round_started and the peeks
    writes.append(log.save(g, first, g.now) or LogWrite())
    for p in g.ids:
        writes.append(log.save(g, g.act(p, "ready"), g.now) or LogWrite())
    turns = 0
    while g.state.status == "playing":
        who = g.turn_player
        assert who is not None
        turn = g.state.turn
        if turn is not None and g.now < turn.may_start_at:
            writes.append(log.save(g, g.at(turn.may_start_at), g.now) or LogWrite())

        def act(kind: str, who: str = who, **fields: Any) -> None:  # a save per action
            writes.append(log.save(g, g.act(who, kind, **fields), g.now) or LogWrite())

        act("draw", source="stock")
        while g.state.holding is not None:
            held = g.state.holding
            if held.rank == "Q" and g.state.turn and g.state.turn.drawn_from == "stock":
                target = rng.choice([p for p in g.ids if p != who])
                act("queen", slot="left", target=target, target_slot="right")
            elif held.rank in "JK" and g.state.turn and g.state.turn.drawn_from == "stock":
                act("jack" if held.rank == "J" else "king")
            elif held.rank not in "JQK" and rng.random() < 0.5:
                act("swap", slot=rng.choice(["left", "right"]))
            else:
                act("discard")
            t = g.state.turn
            if t is not None and g.turn_player == who and t.extra_draws > 0:
                act("draw", source="stock")
        turns += 1
        if "crisp" in g.plays(who) and turns > calls_after:
            writes.append(log.save(g, g.act(who, "crisp"), g.now) or LogWrite())


def test_r18_2_a_round_that_ends_and_the_next_that_starts_in_one_save() -> None:
    """Away seats confirm the next round at once (R17.2): one change may hold a
    round's reveal and the next deal; each round gets its own entry, in order."""
    played = Log()
    g = _play(5, played, rounds=1)
    assert g.state.status == "round_over"
    reveal = max(i for i, ev in enumerate(g.log) if ev.kind == "round_over")
    log = Log()
    for ev in g.log[:reveal]:  # the round, one event per save, up to its reveal
        log.save(g, [ev], g.now)
    log.save(g, [*g.log[reveal:], *g.act("p1", "next_round")], g.now)  # one save
    assert [s.round for s in log.meta.spans] == [1, 2]
    one, two = log.meta.spans
    assert not one.open and two.open and two.first == one.first + one.entries
    assert one.moves == played.meta.spans[0].moves
    rep = log.replay(1)
    assert rep is not None and rep["reveal"] is not None and log.replay(2) is None
