"""K1-K5, K7, K8, K10: one named test per rule (K6, the calls: test_crapette_calls.py;
the fault finder: test_crapette_fault_finder.py)."""

from __future__ import annotations

import random
from collections import Counter

from crisp.games.api import Ctx
from crisp.games.crapette import GAME
from crisp.games.crapette.board import BY_NAME, NAME
from crisp.games.crapette.cards import COLOUR, RANK, parse
from crisp.games.crapette.moves import legal_moves, refusal
from crisp.games.crapette.state import Options, State
from crisp.games.crapette.vocabulary import Calls
from tests.games.crapette.helpers import P, Play, board, deck, full, started


def test_k1_1_two_players_each_with_a_full_deck_104_cards() -> None:
    state, _ = started((deck(), deck()))
    assert Counter(GAME.cards(state)) == Counter(f"{c}#{n}" for c in
                                                 [r + s for s in "SHDC" for r in
                                                  "A23456789TJQK"] for n in (1, 2))
    assert GAME.seats.min == GAME.seats.max == 2


def test_k1_2_ace_is_low_and_hearts_diamonds_are_red() -> None:
    assert RANK[parse("AS")] == 0 and RANK[parse("KS")] == 12
    assert COLOUR[parse("5H")] == COLOUR[parse("5D")] == 1
    assert COLOUR[parse("5S")] == COLOUR[parse("5C")] == 0


def test_k2_1_k10_the_deal_from_each_deck_top() -> None:
    d0 = deck("KH")
    d1 = deck("QH")
    state, _ = started((d0, d1))
    b = state.board
    assert [len(b.crapette[s]) for s in (0, 1)] == [13, 13]
    assert b.crapette[0][-1] == parse(d0[0]) and b.crapette[1][-1] == parse(d1[0])
    assert [p for p in b.tableau] == [(parse(c),) for c in (*d0[13:17], *d1[13:17])]
    assert b.turned == parse(d0[17])  # seat 0 starts (K above Q); card 17 is its stock's top
    assert len(b.stock[0]) == 34 and b.stock[1][-1] == parse(d1[17]) and len(b.stock[1]) == 35
    assert b.waste == ((), ()) and b.foundations == (-1,) * 8


def test_k2_2_eight_tableau_piles_and_eight_empty_foundations() -> None:
    state, _ = started((deck(), deck()))
    v = GAME.view(state, "p1", 0)
    assert len(v["tableau"]) == 8 and v["foundations"] == [None] * 8


def test_k2_3_the_higher_crapette_top_starts() -> None:
    state, evs = started((deck("5S"), deck("9D")))
    assert state.mover == "p2"
    assert [e for e in evs if e["kind"] == "crapette_top"] == [
        {"kind": "crapette_top", "player": "p1", "card": "5S"},
        {"kind": "crapette_top", "player": "p2", "card": "9D"}]


def _tied(tab0: list[str], tab1: list[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    filler = ["2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "TS", "JS", "QS", "KS"]
    d0 = deck("7H", *filler, *tab0)
    d1 = deck("7C", *filler, *tab1)
    return d0, d1


def test_k2_3_a_tie_goes_to_the_higher_tableau_cards_highest_first() -> None:
    state, _ = started(_tied(["KH", "2D", "3D", "4D"], ["QH", "JD", "TD", "9D"]))
    assert state.mover == "p1"  # K beats Q at the first comparison
    state, _ = started(_tied(["KH", "2D", "3D", "4D"], ["KD", "2H", "3H", "5H"]))
    assert state.mover == "p2"  # K = K, 4 < 5 after sorting: 4 3 2 vs 5 3 2


def test_k2_3_all_equal_the_first_player_is_chosen_at_random() -> None:
    decks = _tied(["KH", "2D", "3D", "4D"], ["KD", "2H", "3H", "4H"])
    movers = {started(decks, seed)[0].mover for seed in range(20)}
    assert movers == {"p1", "p2"}


def test_k2_3_a_rematch_decides_again_on_the_new_deal() -> None:
    """The adapter keeps no memory of a previous game: `start` decides again."""
    assert started((deck("5S"), deck("9D")))[0].mover == "p2"
    assert started((deck("9S"), deck("5D")))[0].mover == "p1"


def test_k2_4_the_next_crapette_card_is_turned_when_the_top_leaves() -> None:
    g = Play(full(["KS 8C", "9H"], crapette=("2C 7H", "KD"), turned="4D"))
    evs = g.move("p1", "crapette", "tableau:0")
    assert {"kind": "crapette_top", "player": "p1", "card": "2C"} in evs
    assert g.view()["players"][0]["crapette"] == {"count": 1, "top": "2C"}


def test_k2_5_every_tableau_card_is_dealt_face_up() -> None:
    state, _ = started((deck(), deck()))
    assert all(len(p) == 1 for p in GAME.view(state, None, 0)["tableau"])


def test_k3_1_a_turn_starts_by_turning_the_stock_top() -> None:
    g = Play(full([], crapette=("KS", "KD"), turned="4D", stock=("", "2C 9S")))
    evs = g.send("p1", "end")
    assert evs[-1] == {"kind": "turned", "player": "p2", "card": "9S"}
    assert g.view("p2")["turn"]["turned"] == "9S"


def test_k3_1_k3_5_an_empty_stock_at_the_turn_start_is_rebuilt_from_the_waste() -> None:
    g = Play(full([], turned="4D", waste=("", "2C 9S 5H")))
    evs = g.send("p1", "end")
    assert evs[1:] == [{"kind": "restocked", "player": "p2", "count": 3},
                       {"kind": "turned", "player": "p2", "card": "2C"}]  # put there first
    assert g.view("p2")["players"][1]["stock"] == {"count": 2}


def test_k3_2_moves_one_card_at_a_time_in_any_order() -> None:
    g = Play(full(["KS 8C", "9H", "KC 7D"], turned="4D"))
    g.move("p1", "tableau:2", "tableau:0")  # 7D on 8C, then 8C... the order is free
    assert g.view()["tableau"][0] == ["KS", "8C", "7D"]
    assert g.view()["turn"]["moves"] == 1


def test_k3_3_using_the_turned_card_turns_the_next_one() -> None:
    g = Play(full(["KS 8C"], turned="7D", stock=("2S 3S", "")))
    evs = g.move("p1", "turned", "tableau:0")
    assert evs[-1] == {"kind": "turned", "player": "p1", "card": "3S"}


def test_k3_4_end_puts_the_turned_card_on_the_waste_and_passes_the_turn() -> None:
    g = Play(full([], turned="4D", stock=("", "2C")))
    evs = g.send("p1", "end")
    assert evs[0] == {"kind": "ended", "player": "p1", "card": "4D", "why": "end"}
    assert g.view()["players"][0]["waste"] == {"count": 1, "top": "4D"}
    assert g.state.mover == "p2"


def test_k3_4_with_no_turned_card_end_simply_passes() -> None:
    g = Play(full([], crapette=("KS", "KD"), stock=("", "2C")))
    assert g.send("p1", "end")[0] == {"kind": "ended", "player": "p1", "card": None,
                                      "why": "end"}


def test_k3_5_the_waste_is_rebuilt_during_a_turn_when_the_turned_card_is_used() -> None:
    """K9: my stock is empty and my turned card goes up: my waste becomes my stock."""
    g = Play(full([], foundations=["3H"], turned="4H", waste=("9C 2D", "")))
    evs = g.move("p1", "turned", "foundation:0")
    assert evs[1:] == [{"kind": "restocked", "player": "p1", "count": 2},
                       {"kind": "turned", "player": "p1", "card": "9C"}]


def test_k3_5_never_at_the_end_of_a_turn() -> None:
    g = Play(full([], turned="4H", waste=("9C 2D", ""), stock=("", "2C")))
    g.send("p1", "end")
    assert g.view()["players"][0]["stock"] == {"count": 0}
    assert g.view()["players"][0]["waste"] == {"count": 3, "top": "4H"}


def test_k3_6_never_off_ones_own_waste() -> None:
    g = Play(full(["9H"], turned="4H", waste=("8C", "")))
    err = g.refuse("p1", "move", **{"from": "waste", "to": "tableau:0"})
    assert (err.code, err.rule) == ("illegal", "K3.6")


def test_k4_1_sources_and_nothing_from_an_empty_pile_or_the_stock() -> None:
    g = Play(full([], crapette=("", "KD"), turned=None, stock=("2S", "")))
    err = g.refuse("p1", "move", **{"from": "crapette", "to": "tableau:0"})
    assert (err.code, err.rule) == ("illegal", "K4.1")
    err = g.refuse("p1", "move", **{"from": "stock", "to": "tableau:0"})
    assert (err.code, err.rule) == ("illegal", "K4.1")


def test_k4_2_foundations_ace_then_same_suit_up_and_never_back() -> None:
    g = Play(full(["KS AH", "KS 2H", "KS 2S"], turned="3H"))
    err = g.refuse("p1", "move", **{"from": "tableau:1", "to": "foundation:0"})
    assert (err.code, err.rule) == ("illegal", "K4.2")
    g.move("p1", "tableau:0", "foundation:3")  # any empty foundation
    err = g.refuse("p1", "move", **{"from": "tableau:2", "to": "foundation:3"})
    assert err.rule == "K4.2"  # 2S on AH: wrong suit
    g.move("p1", "tableau:1", "foundation:3")
    g.move("p1", "turned", "foundation:3")
    assert g.view()["foundations"][3] == "3H"
    err = g.refuse("p1", "move", **{"from": "foundation:3", "to": "tableau:0"})
    assert err.rule == "K4.2"


def test_k4_3_tableau_one_lower_other_colour() -> None:
    """K9: 6♦ onto 7♠ is allowed; 6♥ onto 7♥ is not."""
    g = Play(full(["KS 7S", "KC 7H", "KC 6D", "KD 6H"], turned="2C"))
    err = g.refuse("p1", "move", **{"from": "tableau:3", "to": "tableau:1"})
    assert (err.code, err.rule) == ("illegal", "K4.3")
    g.move("p1", "tableau:2", "tableau:0")
    assert g.view()["tableau"][0] == ["KS", "7S", "6D"]


def test_k4_3_an_empty_pile_takes_any_card_when_the_crapette_is_empty() -> None:
    g = Play(board(tableau=["", "KS 7H"] + ["KS"] * 6, crapette=("", "KD"), turned="2C"))
    g.move("p1", "tableau:1", "tableau:0")
    assert g.view()["tableau"][0] == ["7H"]


def test_k4_3_the_obligation_to_fill_an_empty_pile_from_the_crapette() -> None:
    """K9: an empty pile while my crapette has cards: only moves to a foundation and
    my crapette top onto the empty pile; `end` is refused; `moves` lists only those."""
    start = board(tableau=["", "KS 8C"] + ["KS AD"] + ["KS"] * 5, crapette=("2S 3S 7H", "KD"),
                  turned="7D")
    g = Play(start)
    v = g.view()
    assert v["legal"] == ["move"]
    assert sorted((m["from"], m["to"]) for m in v["moves"]) == sorted(
        [("crapette", "tableau:0")] + [("tableau:2", f"foundation:{i}") for i in range(8)])
    err = g.refuse("p1", "move", **{"from": "turned", "to": "tableau:1"})
    assert (err.code, err.rule) == ("illegal", "K4.3")
    err = g.refuse("p1", "move", **{"from": "crapette", "to": "tableau:1"})
    assert err.rule == "K4.3"  # not even the crapette elsewhere
    err = g.refuse("p1", "end")
    assert (err.code, err.rule) == ("illegal", "K4.3")
    g.move("p1", "tableau:2", "foundation:0")  # a foundation move is allowed
    g.move("p1", "crapette", "tableau:0")
    assert "end" in g.view()["legal"]


def test_k4_4_loading_same_suit_one_apart_never_an_empty_pile() -> None:
    """K9: the opponent's waste top is 9♣: 8♣ or 10♣ may go on it, not 8♠."""
    g = Play(full(["KS 8C", "KH 8S", "KH TC"], waste=("", "9C"), crapette=("KS", "")))
    err = g.refuse("p1", "move", **{"from": "tableau:1", "to": "opponent_waste"})
    assert (err.code, err.rule) == ("illegal", "K4.4")
    err = g.refuse("p1", "move", **{"from": "tableau:0", "to": "opponent_crapette"})
    assert err.rule == "K4.4"  # the opponent's crapette is empty
    moves = g.view()["moves"]
    for src in ("tableau:0", "tableau:2"):  # 8C and TC
        assert {"from": src, "to": "opponent_waste"} in moves
    g.move("p1", "tableau:0", "opponent_waste")
    assert g.view()["players"][1]["waste"] == {"count": 2, "top": "8C"}


def test_k4_5_the_opponents_tops_go_to_a_foundation_and_nowhere_else() -> None:
    g = Play(full(["KH 4D"], foundations=["2S"], crapette=("KS", "KC 3S"), waste=("", "5C")))
    err = g.refuse("p1", "move", **{"from": "opponent_waste", "to": "tableau:0"})
    assert (err.code, err.rule) == ("illegal", "K4.5")
    g.move("p1", "opponent_crapette", "foundation:0")
    assert g.view()["foundations"][0] == "3S"


def test_k4_6_legal_moves_are_exactly_the_moves_refusal_lets_pass() -> None:
    rng = random.Random(5)
    piles = list(NAME)

    def c() -> str:
        return rng.choice("A23456") + rng.choice("SHDC")

    for _ in range(300):
        tab = [" ".join(c() for _ in range(rng.randrange(3))) for _ in range(8)]
        b = board(tableau=tab, foundations=[rng.choice([None, c()]) for _ in range(8)],
                  crapette=(rng.choice(["", c()]), rng.choice(["", c()])),
                  waste=(rng.choice(["", c()]), rng.choice(["", c()])),
                  turned=rng.choice([None, c()]))
        legal = set(legal_moves(b))
        assert legal == {(s, d) for s in piles for d in piles if refusal(b, (s, d)) is None}
        assert len(legal) == len(legal_moves(b))


def test_k5_1_a_player_with_no_card_left_wins_at_once() -> None:
    g = Play(full([], foundations=["3H"], crapette=("", "KD"), turned="4H"))
    evs = g.move("p1", "turned", "foundation:0")
    assert evs[-1] == {"kind": "game_over", "winners": ["p1"], "left": {"p1": 0, "p2": 1},
                       "why": "out"}
    out = GAME.outcome(g.state)
    assert out is not None and out.winners == ("p1",) and out.points == {"p1": 1, "p2": 0}
    err = g.refuse("p2", "end")
    assert err.code == "wrong_phase"


def test_k5_1_k9_moving_the_opponents_last_card_up_makes_them_win() -> None:
    g = Play(full([], foundations=["3S"], crapette=("KS", ""), waste=("", "4S"), turned="2D"))
    evs = g.move("p1", "opponent_waste", "foundation:0")
    assert evs[-1]["winners"] == ["p2"] and evs[-1]["why"] == "out"


def test_k5_2_thirty_idle_turns_block_the_game_a_draw() -> None:
    g = Play(full([], turned="4D", stock=("2C 3C", "5C 6C")))
    for turn in range(29):
        g.send(g.state.mover, "end")
        assert g.view()["turn"]["idle_turns"] == turn + 1
    evs = g.send(g.state.mover, "end")
    assert evs[-1]["kind"] == "game_over" and evs[-1]["winners"] == []
    assert evs[-1]["why"] == "blocked" and set(evs[-1]["left"]) == {"p1", "p2"}
    out = GAME.outcome(g.state)
    assert out is not None and out.winners == () and set(out.points.values()) == {0}


def test_k5_2_a_card_to_a_foundation_or_off_a_crapette_resets_the_count() -> None:
    g = Play(full(["KS 8C"], crapette=("2S 7H", "KD"), turned="4D", stock=("2C 3C", "5C")))
    g.send("p1", "end")
    g.send("p2", "end")
    assert g.view()["turn"]["idle_turns"] == 2
    g.move("p1", "crapette", "tableau:0")
    assert g.view()["turn"]["idle_turns"] == 0


def test_k7_1_the_move_timer_ends_the_turn_even_under_the_obligation() -> None:
    start = board(tableau=["", "KS"] + ["KS"] * 6, crapette=("2S 3S", "KD"), turned="7D")
    g = Play(start, move_seconds=15)
    g.state = State(P, Options(Calls.OBVIOUS, 15, True, 0.5), start, deadline=7_500)
    assert GAME.due(g.state) == 7_500
    same, evs = GAME.advance(g.state, Ctx(7_499, random.Random(1)))
    assert evs == [] and same == g.state
    after, evs = GAME.advance(g.state, Ctx(7_500, random.Random(1)))
    assert evs[0].data["why"] == "timeout" and after.mover == "p2"
    assert after.deadline == 7_500 + 7_500  # the scaled 15 s from the turn's start


def test_k7_1_each_move_restarts_the_timer() -> None:
    state, _ = started((deck(), deck()), move_seconds=30)
    assert state.deadline == 30_000
    assert GAME.options["move_seconds"].choices == (None, 15, 30, 60)


def test_k8_1_k8_2_everyone_sees_the_same_public_table_and_no_hidden_card() -> None:
    state, _ = started((deck(), deck()))
    views = [GAME.view(state, p, 0) for p in (*P, None)]
    for v in views:
        assert v["tableau"] == views[0]["tableau"] and v["players"] == views[0]["players"]
        assert set(v["players"][0]) == {"id", "crapette", "stock", "waste", "left"}
        assert set(v["players"][0]["stock"]) == {"count"}  # the stock shows a count only
    hidden = GAME.hidden(state, "p1")
    assert hidden == GAME.hidden(state, None) and hidden  # the owner too


def test_k10_a_test_deck_must_be_two_full_decks() -> None:
    import pytest

    from crisp.games.api import BadMessage, Setup

    with pytest.raises(BadMessage):
        GAME.start(list(P), {}, Setup(decks=(deck(),)), Ctx(0, random.Random(1)))
    with pytest.raises(BadMessage):
        GAME.start(list(P), {}, Setup(decks=(deck(), deck()[:51])), Ctx(0, random.Random(1)))


def test_pile_names_round_trip() -> None:
    assert all(BY_NAME[n] == p for p, n in NAME.items())
