"""Crapette's computer players: every level plays audited games to the end with its
seat's view only (the contract suite's `play`), calls the faults its level sees,
and easy leaves catchable faults now and then. No timing is asserted here (the
decision times are measured in docs/bots.md)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from crisp.games.api import Ctx
from crisp.games.crapette import GAME
from crisp.games.crapette.bots.plans import easy
from crisp.games.crapette.faults import assess
from crisp.games.crapette.moves import legal_moves
from crisp.games.crapette.vocabulary import Calls
from tests.games.contract.audit import SEED_BASE, play
from tests.games.crapette.helpers import Play, full


@pytest.mark.parametrize("level", GAME.bot_levels)
def test_k7_2_each_level_plays_audited_games_to_the_end_seeing_its_seat_only(level: str) -> None:
    for seed in range(2):
        played = play(GAME, 2, SEED_BASE + seed, level=level)
        assert played.final["status"] == "game_over"


@pytest.mark.parametrize("calls", ["off", "combination", "strict"])
def test_levels_against_each_other_under_every_calls_mode(calls: str) -> None:
    played = play(GAME, 2, SEED_BASE + 5, options={"calls": calls})
    assert played.final["status"] == "game_over"


def test_normal_calls_an_obvious_fault() -> None:
    start = full(["KS 8C", "9H"], foundations=["2H"], crapette=("5S 3H", "KD"), turned="4D")
    g = Play(start, Calls.OBVIOUS)
    bot = GAME.bot("normal")
    memory = bot.observe(bot.fresh("p2"), g.view("p2"), [])
    evs = g.move("p1", "tableau:0", "tableau:1")
    memory = bot.observe(memory, g.view("p2"), evs)
    message = bot.decide(memory, g.view("p2"), 0, random.Random(1))
    assert message == {"type": "crapette", "version": g.last_version()}
    assert g.send("p2", **json.loads(json.dumps(message)))[0]["right"] is True


def test_hard_calls_a_combination_fault_and_shows_the_sequence() -> None:
    start = full(["6C 5D", "6S"], foundations=["5C"], crapette=("KS", "QD"), turned="9H",
                 waste=("", "TH"), stock=("2D", "3D"))
    g = Play(start, Calls.COMBINATION)
    bot = GAME.bot("hard")

    def seen() -> dict[str, Any]:
        return {**g.view("p2"), "options": {"calls": "combination"}}

    memory = bot.observe(bot.fresh("p2"), seen(), [])
    evs = g.move("p1", "turned", "opponent_waste")
    memory = bot.observe(memory, seen(), evs)
    message = bot.decide(memory, seen(), 0, random.Random(1))
    assert message is not None and message["show"] == [
        {"from": "tableau:0", "to": "tableau:1"}, {"from": "tableau:0", "to": "foundation:0"}]
    out = g.send("p2", **json.loads(json.dumps(message)))
    assert (out[0]["right"], out[0]["fault"]) == (True, "combination")


def test_normal_does_not_see_combination_faults() -> None:
    start = full(["6C 5D", "6S"], foundations=["5C"], crapette=("KS", "QD"), turned="9H",
                 waste=("", "TH"), stock=("2D", "3D"))
    g = Play(start, Calls.COMBINATION)
    bot = GAME.bot("normal")
    memory = bot.observe(bot.fresh("p2"), g.view("p2"), [])
    memory = bot.observe(memory, g.view("p2"), g.move("p1", "turned", "opponent_waste"))
    assert bot.decide(memory, g.view("p2"), 0, random.Random(1)) is None


def test_easy_makes_a_catchable_fault_now_and_then_on_purpose() -> None:
    start = full(["KS 8C", "9H"], foundations=["2H"], crapette=("5S 3H", "KD"), turned="4D")
    rng = random.Random(3)
    faults = 0
    for _ in range(400):
        move = easy(start, legal_moves(start), rng)
        assert move is not None
        faults += assess(start, move, Calls.OBVIOUS).obvious
    assert 20 < faults < 120  # about FAULT_RATE of the time


def test_the_mover_bot_never_sends_end_under_the_obligation() -> None:
    g = Play(full(["", "KS 8C"], crapette=("2S 3S 7H", "KD"), turned="7D"))
    for level in GAME.bot_levels:
        bot = GAME.bot(level)
        memory = bot.observe(bot.fresh("p1"), g.view("p1"), [])
        message = bot.decide(memory, g.view("p1"), 0, random.Random(1))
        assert message is not None and message["type"] == "move", level
        GAME.apply(g.state, "p1", GAME.parse(json.loads(json.dumps(message))),
                   Ctx(0, random.Random(1)))


def test_selfplay_measures_a_pairing_with_a_95_interval() -> None:
    from crisp.games.crapette.bots.selfplay import match, wilson

    low, high = wilson(50, 100)
    assert 0.40 < low < 0.5 < high < 0.60
    out = match("normal", "easy", 2, Calls.COMBINATION)
    assert out["games"] == 2 and out["wins"] + out["draws"] <= 2
    assert set(out["levels"]) == {"normal", "easy"}
    assert out["ci95"][0] <= out["share"] <= out["ci95"][1]
