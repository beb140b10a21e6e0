"""The adapter as the table uses it: bad input refused and nothing changed, the JSON
round trip, random legal play to the end with a seeded generator, the same seed
giving the same game, the 104 cards conserved."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from crisp.games.api import BadMessage, Ctx, Setup
from crisp.games.crapette import GAME
from crisp.games.crapette.state import State
from crisp.games.crapette.vocabulary import Calls
from tests.games.crapette.helpers import Play, full


@pytest.mark.parametrize("message", [
    {"type": "move", "from": "tableau:8", "to": "tableau:0"},
    {"type": "move", "from": "hand", "to": "tableau:0"},
    {"type": "move", "from": "tableau:0"},
    {"type": "crapette"},
    {"type": "crapette", "version": "3"},
    {"type": "crapette", "version": 3, "show": "tableau:0"},
    {"type": "crapette", "version": 3, "show": []},
    {"type": "draw"},
    {},
])  # fmt: skip
def test_a_message_that_is_no_crapette_action_is_bad_message(message: dict[str, Any]) -> None:
    with pytest.raises(BadMessage):
        GAME.parse(message)


def test_out_of_turn_is_not_your_turn_and_changes_nothing() -> None:
    g = Play(full(["KS 8C", "9H"], turned="4D"))
    err = g.refuse("p2", "move", **{"from": "tableau:0", "to": "tableau:1"})
    assert (err.code, err.rule) == ("not_your_turn", "K3")
    assert g.refuse("p2", "end").code == "not_your_turn"
    assert g.refuse("w1", "end").code == "not_a_player"


@pytest.mark.parametrize(("src", "dst", "rule"), [
    ("opponent_crapette", "tableau:0", "K4.5"),  # not yours but to a foundation
    ("opponent_waste", "opponent_crapette", "K4.5"),
    ("tableau:0", "crapette", "K4.6"),  # one's own crapette is no destination
    ("tableau:0", "turned", "K4.6"),
    ("turned", "waste", "K3.4"),
    ("foundation:0", "tableau:1", "K4.2"),
    ("tableau:0", "tableau:0", "K4.3"),
    ("tableau:0", "foundation:1", "K4.2"),
])  # fmt: skip
def test_a_forbidden_move_is_illegal_naming_the_rule(src: str, dst: str, rule: str) -> None:
    g = Play(full(["KS 8C", "9H"], foundations=["2S"], crapette=("KS", "KD 3H"),
                  waste=("", "5C"), turned="4D"))
    err = g.refuse("p1", "move", **{"from": src, "to": dst})
    assert (err.code, err.rule) == ("illegal", rule)
    assert err.message.endswith(f"({rule})")


def random_game(seed: int, calls: Calls = Calls.OBVIOUS) -> tuple[State, list[Any]]:
    """Random legal messages from both seats (calls too) to the end."""
    rng = random.Random(seed)
    state, _ = GAME.start(["p1", "p2"], {"calls": calls.value}, Setup(), Ctx(0, rng))
    log: list[Any] = []
    now = 0
    while GAME.outcome(state) is None:
        now += 1
        other = "p2" if state.mover == "p1" else "p1"
        if state.can_call(state.seat(other)) and rng.random() < 0.1:
            version = rng.choice(state.record).version
            player, message = other, {"type": "crapette", "version": version}
        else:
            v = GAME.view(state, state.mover, now)
            player = state.mover
            if v["moves"] and (rng.random() < 0.85 or "end" not in v["legal"]):
                message = {"type": "move", **rng.choice(v["moves"])}
            else:
                message = {"type": "end"}
        assert message["type"] in GAME.legal(state, player, now)
        state, evs = GAME.apply(state, player, GAME.parse(message), Ctx(now, rng))
        log.append((player, message, [GAME.redact(e, None) for e in evs]))
        assert len(GAME.cards(state)) == 104 and len(set(GAME.cards(state))) == 104
        if now % 25 == 0:
            raw = json.loads(json.dumps(GAME.to_json(state)))
            assert GAME.from_json(raw) == state
            assert GAME.to_json(GAME.from_json(raw)) == raw
    return state, log


@pytest.mark.parametrize("calls", list(Calls))
def test_random_legal_play_ends_in_a_win_or_blocked(calls: Calls) -> None:
    for seed in range(3):
        state, log = random_game(seed, calls)
        assert state.why in ("out", "blocked") and log
        out = GAME.outcome(state)
        assert out is not None
        assert log[-1][2][-1]["kind"] == "game_over"


def test_the_same_seed_plays_the_same_game() -> None:
    first, log1 = random_game(11)
    again, log2 = random_game(11)
    assert first == again and log1 == log2
    other, _ = random_game(12)
    assert other != first


def test_json_round_trip_mid_turn_with_records_and_calls() -> None:
    g = Play(full(["KS 8C", "9H", "KS 7D"], foundations=["2H"], crapette=("5S 3H", "KD"),
                  turned="4D"), Calls.STRICT)
    g.move("p1", "tableau:0", "tableau:1")
    g.move("p1", "tableau:2", "tableau:1")
    g.send("p2", "crapette", version=g.state.record[1].version)  # judged, whatever it is
    raw = json.loads(json.dumps(GAME.to_json(g.state)))
    assert GAME.from_json(raw) == g.state
