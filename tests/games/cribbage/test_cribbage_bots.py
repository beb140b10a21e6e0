"""C10.1, C10.2: computer players at three levels that see only their seat's
view: permuting the cards a bot cannot see never changes a decision; C10.4 the
calibration of a well-discarded hand."""

from __future__ import annotations

import random
from dataclasses import replace
from statistics import mean
from typing import Any

import pytest

from crisp.games.cribbage import GAME
from crisp.games.cribbage.cards import DECK, unseen
from crisp.games.cribbage.coach import choice_values
from crisp.games.cribbage.expect import hand_ev
from crisp.games.cribbage.state import State
from crisp.games.cribbage.view import hidden_from
from tests.games.cribbage.helpers import Table


def permuted(state: State, seat: int, rng: random.Random) -> State:
    """The same table with the cards `seat` cannot see shuffled among their places
    (the others' hands and gifts, the crib, the undealt cards)."""
    hidden = sorted(hidden_from(state, seat))
    image = hidden[:]
    rng.shuffle(image)
    f = dict(zip(hidden, image, strict=True))

    def m(cards: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(f.get(c, c) for c in cards)

    def others(field: tuple[tuple[str, ...], ...]) -> tuple[tuple[str, ...], ...]:
        return tuple(h if s == seat else m(h) for s, h in enumerate(field))

    return replace(state, held=others(state.held), gave=others(state.gave),
                   dealt=others(state.dealt), crib=m(state.crib), stock=m(state.stock))


def decisions(t: Table, level: str) -> list[tuple[State, str, Any]]:
    """(state, player, message) at every decision of a game played by `level`."""
    out = []
    for _ in range(3000):
        if GAME.outcome(t.state) is not None:
            break
        moved = False
        for p in GAME.to_act(t.state, t.now):
            bot = GAME.bot(level)
            msg = bot.decide(bot.fresh(p), GAME.view(t.state, p, t.now), t.now,
                             random.Random(1))
            if msg is not None:
                out.append((t.state, p, msg))
                t.send(p, msg)
                moved = True
                break
        if not moved:
            t.until_due()
    return out


@pytest.mark.parametrize("level", ["easy", "normal", "hard"])
@pytest.mark.parametrize("n", [2, 4])
def test_c10_2_permuting_the_unseen_cards_never_changes_a_decision(level: str, n: int) -> None:
    t = Table(n, dealer=0, seed=31 + n, options={"target": 61, "muggins": True})
    rng = random.Random(7)
    seen = decisions(t, level)
    assert len(seen) > 20
    for state, p, msg in seen[::3]:
        seat = state.seat_of(p)
        other = permuted(state, seat, rng)
        assert other != state or not hidden_from(state, seat)
        assert GAME.view(other, p, 0) == GAME.view(state, p, 0)
        bot = GAME.bot(level)
        again = bot.decide(bot.fresh(p), GAME.view(other, p, t.now), t.now, random.Random(1))
        assert again == msg


def test_c10_1_the_three_levels_and_away_seats_time_outs_use_normal() -> None:
    assert GAME.bot_levels == ("easy", "normal", "hard")
    with pytest.raises(Exception):  # noqa: B017
        GAME.bot("grandmaster")


def test_c10_1_bots_claim_the_truth_and_call_muggins_on_a_short_claim() -> None:
    t = Table(2, dealer=0, seed=9, options={"muggins": True})
    t.play_to(lambda s: s.status != "give" and s.status != "play")
    claim = t.state.claim
    assert claim is not None
    by = t.players[claim.by]
    t.send(by, {"type": "claim", "points": 0})
    other = t.players[1 - claim.by]
    true = GAME.bot("normal").true_points(GAME.view(t.state, other, t.now))  # type: ignore[attr-defined]
    msg = GAME.bot("normal").decide({"player": other}, GAME.view(t.state, other, t.now),
                                    t.now, random.Random(1))
    assert msg == ({"type": "muggins"} if true > 0 else None)
    assert GAME.bot("easy").decide({"player": other}, GAME.view(t.state, other, t.now),
                                   t.now, random.Random(1)) is None


def test_c10_4_a_well_discarded_kept_hand_averages_about_8_points() -> None:
    """The normal discard's kept hands over random deals, by exact expectation
    (starter included): the published figure is about 8 (docs/bots.md)."""
    rng = random.Random(3)
    kept_means = []
    for i in range(150):
        dealt = rng.sample(DECK, 6)
        own = i % 2 == 0
        gave = max(choice_values(dealt, 2, own), key=lambda gv: gv[1])[0]
        kept = [c for c in dealt if c not in gave]
        kept_means.append(hand_ev(kept, unseen(dealt)))
    assert 7.0 <= mean(kept_means) <= 9.0
