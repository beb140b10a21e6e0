"""Whole games: random legal play to the end for 2, 3 and 4 players (seeded), the
same seed plays the same game, cards are conserved, every view for each seat and
a watcher shows only what C9 lets it see, the JSON round trip; bad input is
refused with its code and changes nothing; the contract suite's audit."""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from typing import Any

import pytest

from crisp.games.api import BadMessage, GameError
from crisp.games.cribbage import GAME
from crisp.games.cribbage.cards import DECK
from crisp.games.cribbage.state import State
from tests.games.contract.audit import SEED_BASE, play
from tests.games.cribbage.helpers import Table

CARD = re.compile(r"^[A2-9TJQK][SHDC]$")


def cards_in(value: Any) -> set[str]:
    if isinstance(value, dict):
        return {c for v in value.values() for c in cards_in(v)}
    if isinstance(value, list | tuple):
        return {c for v in value for c in cards_in(v)}
    return {value} if isinstance(value, str) and CARD.match(value) else set()


def may_see(state: State, seat: int | None) -> set[str]:
    """C9.1, C9.2: laid cards, the starter, what has been shown; a seat's own cards."""
    out = {c for laid in state.laid for c in laid}
    if state.starter:
        out.add(state.starter)
    for e in state.show:
        out.update(e.cards)
    if any(e.whose == "crib" for e in state.show):
        out.update(state.crib)
    if seat is not None:
        out.update(state.dealt[seat])
    return out


def all_cards(state: State) -> Counter[str]:
    c: Counter[str] = Counter()
    for h in (*state.held, *state.laid, state.crib, state.stock):
        c.update(h)
    if state.starter:
        c[state.starter] += 1
    return c


def random_game(n: int, seed: int, options: dict[str, Any] | None = None) -> Table:
    """Random legal moves (any legal message, any card) until the game is over."""
    t = Table(n, dealer=None, seed=seed, options=options)
    rng = random.Random(seed)
    for _ in range(20_000):
        if GAME.outcome(t.state) is not None:
            return t
        for viewer in [*t.players, None]:
            v = t.view(viewer)
            seat = None if viewer is None else t.players.index(viewer)
            assert cards_in(v) <= may_see(t.state, seat), (viewer, t.state.status)
            json.dumps(v)
        if t.state.hand_no:
            assert all_cards(t.state) == Counter(DECK)
        assert GAME.from_json(json.loads(json.dumps(GAME.to_json(t.state)))) == t.state
        moves = []
        for p in GAME.to_act(t.state, t.now):
            s = t.players.index(p)
            for kind in GAME.legal(t.state, p, t.now):
                if kind == "give":
                    k = 2 if n == 2 else 1
                    moves.append((p, {"type": kind,
                                      "cards": rng.sample(list(t.state.held[s]), k)}))
                elif kind == "lay":
                    moves.append((p, {"type": kind,
                                      "card": rng.choice(t.view(p)["playable"])}))
                elif kind == "claim":
                    moves.append((p, {"type": kind, "points": rng.randrange(0, 20)}))
                else:
                    moves.append((p, {"type": kind}))
        if moves and rng.random() < 0.9:
            p, m = rng.choice(moves)
            t.send(p, m)
        else:
            due = GAME.due(t.state)
            t.wait(1_000 if due is None else max(1, due - t.now))
    raise AssertionError("no end")


@pytest.mark.parametrize("n", [2, 3, 4])
def test_c9_2_random_games_to_the_end_show_nobody_a_card_they_may_not_see(n: int) -> None:
    t = random_game(n, 100 + n)
    assert t.state.status == "game_over"
    assert max(t.state.scores) == t.state.options.target


def test_random_games_with_muggins_and_timers() -> None:
    for n in (2, 3, 4):
        t = random_game(n, 7 + n, {"muggins": True, "turn_seconds": 15, "target": 61})
        assert t.state.status == "game_over"


def test_the_same_seed_plays_the_same_game() -> None:
    a, b = random_game(3, 5), random_game(3, 5)
    assert GAME.to_json(a.state) == GAME.to_json(b.state)
    assert [e.data for e in a.log] == [e.data for e in b.log]
    assert GAME.to_json(random_game(3, 6).state) != GAME.to_json(a.state)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_the_contract_audit_with_muggins_and_timers(n: int) -> None:
    """The contract's audit (tests/games/contract runs it with the defaults)."""
    assert play(GAME, n, SEED_BASE + 40 + n,
                options={"muggins": True, "turn_seconds": 15, "target": 61}).moves


# C10.1, every level plays to the end: tests/games/contract's
# test_every_level_plays_to_the_end[cribbage-*] (the same games, once).


def test_c9_1_public_counts_and_laid_cards() -> None:
    t = Table(3, dealer=0, seed=8)
    v = t.view(None)
    assert v["hand"] is None and v["gave"] is None and v["coach"] is None
    assert [p["held"] for p in v["players"]] == [5, 5, 5]
    assert v["starter"] is None and v["crib"]["cards"] is None


def test_c9_2_at_hand_over_every_hand_and_the_crib_are_public() -> None:
    t = Table(2, dealer=0, seed=3)
    t.play_to(lambda s: s.status in ("hand_over", "game_over"))
    v = t.view(None)
    shown = {c for e in v["show"] for c in e["cards"]}
    assert shown == {c for laid in t.state.laid for c in laid} | set(t.state.crib)


@pytest.mark.parametrize("message", [
    {"type": "give", "cards": "AS"}, {"type": "give", "cards": ["1S"]},
    {"type": "lay", "card": "AS "}, {"type": "lay"}, {"type": "claim", "points": -1},
    {"type": "claim", "points": True}, {"type": "claim", "points": 30},
    {"type": "shuffle"}, {}])
def test_bad_messages_are_bad_message(message: dict[str, Any]) -> None:
    with pytest.raises(BadMessage):
        GAME.parse(message)


def _refused(t: Table, player: str, message: dict[str, Any], code: str,
             rule: str | None = None) -> None:
    before = GAME.to_json(t.state)
    with pytest.raises(GameError) as e:
        t.send(player, message)
    assert e.value.code == code, e.value.message
    if rule:
        assert e.value.rule == rule
    assert GAME.to_json(t.state) == before


def test_bad_input_is_refused_with_its_code_and_changes_nothing() -> None:
    t = Table(2, dealer=0, seed=12)
    held = list(t.state.held[0])
    other = next(c for c in DECK if c not in held)
    _refused(t, "p1", {"type": "give", "cards": held[:1]}, "illegal", "C3.4")
    _refused(t, "p1", {"type": "give", "cards": held[:3]}, "illegal", "C3.4")
    _refused(t, "p1", {"type": "give", "cards": [held[0], held[0]]}, "illegal", "C3.4")
    _refused(t, "p1", {"type": "give", "cards": [held[0], other]}, "illegal", "C3.4")
    _refused(t, "p1", {"type": "lay", "card": held[0]}, "wrong_phase")
    _refused(t, "p1", {"type": "ready"}, "wrong_phase")
    _refused(t, "p9", {"type": "ready"}, "unknown_player")
    t.give("p1", *held[:2])
    t.give("p2", *t.state.held[1][:2])
    _refused(t, "p1", {"type": "lay", "card": t.state.held[0][0]}, "not_your_turn", "C5.1")
    _refused(t, "p2", {"type": "lay", "card": held[0]}, "illegal", "C5.1")
    _refused(t, "p2", {"type": "give", "cards": list(t.state.held[1][:2])}, "wrong_phase")


def test_c9_2_the_deal_and_the_cards_given_are_sealed_for_the_replay_only() -> None:
    t = Table(2, dealer=0, seed=4)
    t.give("p1", *t.state.held[0][:2])
    started = next(e for e in t.log if e.kind == "hand_started")
    assert started.data["deal"]["hands"]["p1"] == list(t.state.dealt[0])
    gave = next(e for e in t.log if e.kind == "gave")
    assert gave.data["cards"] == list(t.state.gave[0])
    for viewer in ("p1", "p2", None):
        assert GAME.redact(started, viewer) == {"kind": "hand_started", "hand_no": 1,
                                                "dealer": "p1"}
        assert GAME.redact(gave, viewer) == {"kind": "gave", "player": "p1", "count": 2}
