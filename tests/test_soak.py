"""The soak of issue 23 (crisp/bench/soak/, docs/benchmarks.md "Soak").

First the accounting on made-up histories, so that it is known to catch each
defect it counts (an acknowledged action lost, one applied twice, an untrue
refusal, an event nobody sent, a stored change never published); then the CI
minute: 40 rooms x 4 seats on two `crisp serve` processes and one Redis with an
append-only file, 60 s of play at half the game's durations with the four fault
kinds compressed into the minute (garbage clients, Redis frozen 10 s, Redis
killed and restarted, a server process killed and restarted), and the whole
accounting asserted. The faults' lengths are real time (a frozen Redis is
frozen for 10 s); everything else waits for states (the soak polls its seats
and Redis), and the verdict does not depend on the machine's speed."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import orjson
import pytest

from crisp import engine
from crisp.bench.soak import SoakConfig, run_soak
from crisp.bench.soak.account import account
from crisp.bench.soak.client import ActionRecord
from crisp.bench.soak.record import Gap, Recorder
from crisp.bench.soak.report import table
from crisp.engine import State

# ---- the accounting on made-up histories ----


class History:
    """A two-seat table played through the engine, published to a witness the way
    the servers publish it (one message per change), with the seats' records."""

    def __init__(self) -> None:
        s = engine.new_table("A", time_scale=1.0, now=0)
        s, _, _ = engine.add_player(s, "B", 0)
        for pid in ("p1", "p2"):
            s, _ = engine.set_connected(s, pid, True, 0)
        self.state = s
        self.v = 1
        self.witness = Recorder()
        self.records: dict[tuple[str, str], list[ActionRecord]] = {("R", "p1"): [], ("R", "p2"): []}
        self.now = 0

    def act(self, pid: str, kind: str, *, publish: bool = True, **fields: Any) -> ActionRecord:
        """`pid` sends `kind`, the engine applies it; its record says acked."""
        base = self.state.version
        self.now += 100
        action = engine.action_from_dict({"type": kind, **fields})
        self.state, events = engine.apply(self.state, pid, action, self.now, random.Random(1))
        self.v += 1
        if publish:
            self.publish([e.to_json() for e in events])
        record = ActionRecord(str(len(self.records[("R", pid)]) + 1), kind, fields, base,
                              self.now, acked=self.state.version)  # fmt: skip
        self.records[("R", pid)].append(record)
        return record

    def publish(self, events: list[dict[str, Any]]) -> None:
        message = {"t": "change", "v": self.v, "state": self.state.to_json(), "events": events}
        self.witness.on_message("crisp:room:R", orjson.dumps(message))

    def start(self) -> None:
        self.act("p1", "start")
        self.act("p1", "ready")
        self.act("p2", "ready")
        self.now = max(self.now, self.state.turn.may_start_at if self.state.turn else 0)

    def turn_player(self) -> str:
        assert self.state.turn is not None
        return self.state.players[self.state.turn.player].id

    def check(self) -> dict[str, Any]:
        return account(self.records, self.witness).to_json()


def test_a_clean_history_is_every_action_acknowledged_once() -> None:
    h = History()
    h.start()
    p = h.turn_player()
    h.act(p, "draw", source="stock")
    h.act(p, "discard")
    acc = h.check()
    assert acc["sent"] == 5 and acc["outcomes"] == {"acked": 5}
    assert not any(acc["violations"].values()), acc


def test_each_defect_is_counted() -> None:
    h = History()
    h.start()
    p = h.turn_player()
    drew = h.act(p, "draw", source="stock", publish=False)  # acknowledged, never stored
    h.act(p, "discard")
    h.v += 1
    h.publish([{"kind": "discarded", "data": {"player": p}}])  # the same discard again
    h.records[("R", p)].append(ActionRecord("9", "crisp", {}, h.state.version, h.now,
                                            code="store_unavailable"))  # fmt: skip
    h.act(p, "crisp")  # ... yet the witness sees a crisp call: the refusal was untrue
    h.records[("R", p)].pop()
    h.publish([{"kind": "ready", "data": {"player": p}}])  # an event nobody sent
    acc = h.check()
    assert acc["violations"]["lost_acked"] == 1, acc
    assert acc["violations"]["applied_twice"] == 1, acc
    assert acc["violations"]["untrue_refusal"] == 1, acc
    assert acc["violations"]["unexplained"] == 1, acc
    assert drew.acked is not None


def test_an_unknown_outcome_is_settled_by_the_history() -> None:
    h = History()
    h.start()
    p = h.turn_player()
    h.act(p, "draw", source="stock").acked = None
    h.records[("R", p)][-1].code = "outcome_unknown"  # applied: its event is stored
    h.records[("R", p)].append(ActionRecord("8", "discard", {}, h.state.version, h.now,
                                            code="lost:1006"))  # never applied  # fmt: skip
    h.act(p, "discard")
    acc = h.check()
    assert acc["outcomes"] == {"acked": 4, "outcome_unknown:applied": 1,
                               "lost:not_applied": 1}, acc  # fmt: skip
    assert not any(acc["violations"].values()), acc


def test_a_change_stored_but_never_published_is_replayed() -> None:
    h = History()
    h.start()
    p = h.turn_player()
    before = h.state.to_json()
    record = h.act(p, "draw", source="stock", publish=False)  # Redis died holding it
    record.acked, record.code = None, "lost:1006"
    h.witness.gaps.append(Gap("R", before, h.state.to_json(), h.now + 50))
    h.witness.trace("R").state = h.state.to_json()
    h.act(p, "discard")
    acc = h.check()
    assert acc["gaps"] == 1 and acc["outcomes"]["lost:applied"] == 1, acc
    assert not any(acc["violations"].values()), acc
    wrong = State.from_json(before)  # a stored table no unknown action explains
    wrong.holding = wrong.stock[0]
    h.witness.gaps.append(Gap("R", before, wrong.to_json(), h.now))
    assert h.check()["violations"]["unresolved"] == 1


# ---- the CI minute (marked `soak`: its own step of .ci/run, `pytest -m soak`) ----


@pytest.mark.soak
@pytest.mark.redis
def test_a_minute_of_play_under_faults_accounts_for_every_action(tmp_path: Path) -> None:
    cfg = SoakConfig(rooms=40, players=4, duration_s=60, pace="table", think_ms=500,
                     time_scale=0.5, sample_s=5, warm_s=20, settle_s=60, recover_s=5,
                     progress_s=10, work=tmp_path)  # fmt: skip
    report = run_soak(cfg)
    text = table(report)
    acc, clients, rooms = report["accounting"], report["clients"], report["rooms"]
    assert {f["fault"].split(":")[1] for f in report["faults"] if ":" in f["fault"]} >= {
        "garbage", "freeze", "redis", "server"}, text  # fmt: skip
    assert acc["sent"] > 500 and acc["outcomes"].get("acked", 0) > 0.8 * acc["sent"], text
    assert not any(acc["violations"].values()), (acc["examples"], text)
    assert report["unanswered"]["outside_faults"] == 0 and clients["backwards"] == 0, text
    assert clients["on_stored"] == clients["total"] == 160, (clients["off"], text)
    assert clients["fatal"] == 0 and report["witness_losses"] == 0, text
    assert rooms["stuck"] == 0, (rooms["not_progressed"], text)
    assert rooms["progressed"] + rooms["waiting_for_human"] == 40, text
    for kind in ("forged", "malformed", "huge", "silent"):  # each met its true close
        assert report["garbage"].get(kind), text
    assert report["ok"], text
