"""`crisp bench --game` (issue 38): the generic seat's pieces, without a server: the
view's next moment, the check of what a server hosts, the games and seat counts the
command accepts, which update answers a message, and the profile's categories."""

from __future__ import annotations

import random
from typing import Any

import pytest

from crisp.bench.cli import main
from crisp.bench.client import Room
from crisp.bench.gameclient import GameClient, game_for, hosted_check, next_time
from crisp.bench.pacing import PACES
from crisp.bench.profile import categories
from crisp.bench.stats import Stats
from crisp.games import registry


def test_next_time_is_the_earliest_future_moment_the_view_names() -> None:
    view = {"peek_ends_at": 900, "turn": {"may_start_at": 1500, "draw_deadline": 1200},
            "claim": {"muggins_until": 1100, "deep": {"x_at": 1001}}, "locked": True,
            "seq_at": False, "version": 5000}  # fmt: skip
    assert next_time(view, 1000) == 1100  # past, two levels down, bools and other keys: not
    assert next_time({"turn": None}, 0) is None


def test_a_game_the_server_does_not_list_is_named_with_what_it_hosts() -> None:
    listing = {"games": [{"id": "crisp"}]}
    assert hosted_check("crisp", listing) is None
    line = hosted_check("cribbage", listing)
    assert line is not None and "does not host 'cribbage'" in line and "crisp" in line


def test_games_and_seat_counts() -> None:
    assert game_for("crisp", 4).id == "crisp"
    with pytest.raises(ValueError, match="registered"):
        game_for("nosuch", 4)
    with pytest.raises(ValueError, match="--players"):
        game_for("crisp", 9)


def test_the_command_refuses_an_unknown_game(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--game", "nosuch", "--rooms", "1"]) == 2
    assert "no game 'nosuch' is registered" in capsys.readouterr().err
    assert main(["--game", "crisp", "--bot-level", "genius"]) == 2
    assert "--bot-level" in capsys.readouterr().err


class _Driver:
    stats = Stats()
    pace = PACES["table"]
    rng = random.Random(1)
    t_measure = t_stop = float("inf")
    refused = 0.0

    def spawn(self, coro: Any) -> None:
        coro.close()


def test_which_update_answers_a_message() -> None:
    client = GameClient(_Driver(), Room("ABCD", 2), "p2", "t", False, registry.get("crisp"),
                        "easy")  # fmt: skip
    assert client.answered([{"kind": "drew", "player": "p2", "source": "stock"}], "draw", {})
    assert not client.answered([{"kind": "drew", "player": "p1", "source": "stock"}], "draw", {})
    assert client.answered([{"kind": "round_started", "round": 1}], "start", {})
    client.game_id = "other"  # any other game: an event of this seat's
    client.view = {"legal": ["lay", "ready"]}
    assert client.answered([{"kind": "laid", "player": "p2"}], "lay", {})
    assert not client.answered([{"kind": "laid", "player": "p1"}], "lay", {})
    client.view = {"legal": ["lay"]}  # or a view that no longer offers what was sent
    assert client.answered([], "ready", {})


def test_profile_categories_take_the_innermost_frame_that_names_one() -> None:
    lines = [
        "run (asyncio/events.py:80);change (crisp/server/rooms/service.py:10);"
        "text (crisp/server/wire/projection.py:5) 3\n",
        "run (asyncio/events.py:80);execute (redis/asyncio/client.py:9) 2\n",
        "run (asyncio/events.py:80) 1\n",
    ]
    total, cats = categories(lines)
    assert total == 6
    assert cats["views per seat and encoding"] == 3
    assert cats["Redis commands (the store)"] == 2
    assert cats["event loop (stack)"] == 1


def _report(target: str, per_s: float, p99: float, cpu: float) -> dict[str, Any]:
    return {"config": {"target": target}, "answered_per_s": per_s, "changes_per_action": 1.0,
            "latency_ms": {"p50": 1.0, "p95": 2.0, "p99": p99},
            "server": {"cpu_ms_per_action": cpu, "cpu_ms_per_change": cpu,
                       "cpu_ms_per_update": cpu / 4, "idle_rss_kib_per_conn": 40.0,
                       "redis_bytes_per_room": 1000,
                       "loop_lag_ms": {"p99": 1.0, "max": 2.0, "over_10ms": 0}},
            "processes": {"server": {"peak_rss_mb": 200.0, "cpu_pct": 40.0}},
            "redis": {"commands_per_action": 3.0},
            "machine": {"others_pct": 0.0, "loadavg_1m": 0.5}}  # fmt: skip


def test_three_targets_side_by_side_and_their_medians() -> None:
    from crisp.bench.report import compare, medians

    runs = [[_report("crisp", 700, 600, 1.2), _report("floor", 950, 300, 0.42),
             _report("outside", 960, 310, 0.40)] for _ in range(3)]  # fmt: skip
    runs[1][1] = _report("floor", 900, 900, 0.5)  # one noisy run: the median ignores it
    text = compare(*runs[0])
    head = text.splitlines()[1]
    assert "crisp / floor" in head and "floor / outside" in head
    assert "load average" in text
    med = medians(runs)
    cpu = next(line for line in med.splitlines() if line.startswith("server CPU per action"))
    assert cpu.split()[-2:] == ["2.86x", "1.05x"]
