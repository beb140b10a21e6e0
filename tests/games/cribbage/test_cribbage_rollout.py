"""The hard player's fast play-out (bots/rollout.py) keeps the rules of the play
exactly: laid out greedily, it scores what the game scores for the same cards."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from crisp.games.cribbage.bots.rollout import lay_points, play_out
from crisp.games.cribbage.cards import rank, value
from crisp.games.cribbage.pegging import score_lay
from tests.games.cribbage.helpers import Table

_VALUE = [min(r + 1, 10) for r in range(13)]


def greedy(hand: list[str], series: list[str], count: int) -> str:
    best, key = "", (-1, -1)
    for c in hand:
        if count + value(c) <= 31:
            k = (lay_points([rank(x) for x in [*series, c]], count + value(c)), value(c))
            if k > key:
                best, key = c, k
    return best


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32), st.sampled_from([2, 3, 4]))
def test_c5_the_play_out_scores_what_the_game_scores(seed: int, n: int) -> None:
    t = Table(n, dealer=0, seed=seed)
    for s, p in enumerate(t.players):
        t.give(p, *t.state.held[s][: 2 if n == 2 else 1])
    if t.state.status != "play":
        return  # his heels won (never at 0 points) - or nothing to play
    start_scores = list(t.state.scores)
    hands = [[rank(c) for c in h] for h in t.state.held]
    leader = t.state.turn
    assert leader is not None
    first = greedy(list(t.state.held[leader]), [], 0)
    seq, cnt = [rank(first)], value(first)
    h = [list(x) for x in hands]
    h[leader].remove(rank(first))
    expected = play_out(seq, cnt, h, [False] * n, leader)
    expected[leader] += lay_points(seq, cnt)
    while t.state.status == "play":
        turn = t.state.turn
        assert turn is not None
        series = [c for _, c in t.state.series]
        t.lay(t.players[turn], greedy(list(t.state.held[turn]), series, t.state.count()))
    got = [t.state.scores[t.state.side(s)] - start_scores[t.state.side(s)] for s in range(n)]
    if n == 4:
        expected = [expected[s] + expected[(s + 2) % 4] for s in range(4)]
    assert got == expected


def test_lay_points_is_score_lay() -> None:
    for series in (["4H", "6S", "5D"], ["5H", "6S", "5D", "7C"], ["TH", "KS", "9D", "2C"],
                   ["2H", "2S", "2D", "2C"], ["7H", "8S"]):
        cnt = sum(value(c) for c in series)
        assert lay_points([rank(c) for c in series], cnt) == sum(
            i.points for i in score_lay(series))
