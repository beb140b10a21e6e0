"""R1 players and cards, R2 the set-up of a round (deal order, slots, the first
peek, the stock, the dealer and the first turn)."""

from __future__ import annotations

import random

import pytest

from crisp.engine import FULL_DECK, Card, IllegalAction, add_player, new_table, parse_deck
from tests.engine.helpers import (
    ALL_CARDS,
    T0,
    cards_in,
    deal_order,
    deck_for,
    kinds,
    lobby,
    pid,
    start,
)

# -- R1 --------------------------------------------------------------------------------


def test_r1_1_a_game_needs_at_least_two_players() -> None:
    g = lobby(1)
    assert g.plays("p1") == ["options"]
    err = g.refuse("p1", "start")
    assert (err.code, err.rule) == ("illegal", "R1.1")


@pytest.mark.parametrize("n", [2, 3, 5, 8])
def test_r1_1_two_to_eight_players_can_play(n: int) -> None:
    g = start(players=n)
    assert len(g.state.players) == n
    assert all(None not in g.hand(p) for p in g.ids)


def test_r1_1_a_ninth_player_is_refused_room_full() -> None:
    g = lobby(8)
    with pytest.raises(IllegalAction) as info:
        add_player(g.state, "Nine", g.now)
    assert info.value.code == "room_full"


def test_r1_2_one_deck_of_52_distinct_cards() -> None:
    assert len(FULL_DECK) == 52 and len({c.text for c in FULL_DECK}) == 52
    assert {c.rank for c in FULL_DECK} == set("A23456789TJQK")
    assert {c.suit for c in FULL_DECK} == set("SHDC")
    g = start(players=4)
    assert sorted(cards_in(g.state)) == sorted(ALL_CARDS)


def test_r1_2_a_test_deck_must_be_52_distinct_cards() -> None:
    with pytest.raises(ValueError):
        parse_deck(ALL_CARDS[:51])
    with pytest.raises(ValueError):
        parse_deck([*ALL_CARDS[:51], ALL_CARDS[0]])
    with pytest.raises(ValueError):
        new_table("A", test_deck=[*ALL_CARDS[:51], "XX"])
    with pytest.raises(ValueError):
        Card.parse("10D")  # ten is "T"


@pytest.mark.parametrize(
    ("card", "value"),
    [("AS", 1), ("2H", 2), ("5D", 5), ("9C", 9), ("TD", 10), ("JS", 10), ("QH", 10), ("KC", 10)],
)
def test_r1_3_card_values(card: str, value: int) -> None:
    assert Card.parse(card).value == value
    assert str(Card.parse(card)) == card


def test_r1_3_round_sums_use_card_values() -> None:
    # p1 holds A + 9 + T = 20, p2 holds 2 + 3 + 4 = 9; p2 plays and calls, p1 plays
    g = start({"p1": ["AS", "9C", "TD"], "p2": ["2H", "3H", "4H"]}, stock=["5C", "6C"], dealer=0)
    g.play_turn()  # p2 discards 5C
    g.act("p2", "crisp")
    g.play_turn()  # p1's final turn: discards 6C
    assert g.state.status == "round_over"
    assert g.state.last_round is not None
    assert g.state.last_round.sums == {"p1": 20, "p2": 9}


def test_r1_4_dealt_face_cards_count_ten_each() -> None:
    g = start({"p1": ["JS", "QH", "KC"], "p2": ["AH", "AD", "AC"]}, stock=["2C", "3C"], dealer=0)
    g.play_turn()
    g.act("p2", "crisp")
    g.play_turn()
    assert g.state.last_round is not None
    assert g.state.last_round.sums == {"p1": 30, "p2": 3}
    # (J/Q/K entering a hand by a Queen swap: test_r8_*, by a discard draw: test_r13_3_*;
    #  never from the stock: test_r6_1_*)


# -- R2 --------------------------------------------------------------------------------


def test_r2_1_first_dealer_is_chosen_at_random() -> None:
    dealers = set()
    for seed in range(40):
        g = lobby(4)
        g.rng = random.Random(seed)
        g.act("p1", "start")
        assert g.state.dealer is not None
        assert g.state.dealer == random.Random(seed).randrange(4)
        dealers.add(g.state.dealer)
    assert dealers == {0, 1, 2, 3}


def test_r2_1_first_dealer_comes_from_the_rng() -> None:
    class Fixed(random.Random):
        def randrange(self, n: int) -> int:  # type: ignore[override]
            return n - 1

    g = lobby(5)
    g.rng = Fixed(1)
    g.act("p1", "start")
    assert g.state.dealer == 4
    assert g.view("p1")["dealer"] == "p5"


def test_r2_1_dealer_moves_one_seat_clockwise_every_round() -> None:
    g = start(players=3, dealer=1)
    dealers = [g.view("p1")["dealer"]]
    for _ in range(4):
        g.play_turn()
        caller = g.state.windows[-1]
        g.act(g.state.players[caller.player].id, "crisp")
        while g.state.status == "playing":
            g.play_turn()
        assert g.state.status == "round_over"
        g.act("p1", "next_round")
        dealers.append(g.view("p1")["dealer"])
        g.ready_all()
    assert dealers == ["p2", "p3", "p1", "p2", "p3"]


@pytest.mark.parametrize(("n", "dealer"), [(2, 0), (2, 1), (3, 1), (4, 3), (8, 5)])
def test_r2_2_deal_starts_after_the_dealer_one_card_at_a_time(n: int, dealer: int) -> None:
    deck = list(ALL_CARDS)
    random.Random(n * 10 + dealer).shuffle(deck)
    g = lobby(n, deck=deck, dealer=dealer)
    g.act("p1", "start")
    # the k-th card of the deck goes to seat (dealer + 1 + k) % n, pass k // n:
    # pass 0 fills the left slots, pass 1 the middle, pass 2 the right (R2.2, R2.3)
    for k in range(3 * n):
        seat, slot = (dealer + 1 + k) % n, k // n
        assert g.hand(pid(seat))[slot] == deck[k]
    assert deal_order(n, dealer)[0] == ((dealer + 1) % n, 0)
    # the rest is the stock, top first
    assert g.stock == deck[3 * n:]


def test_r2_2_worked_example_three_players_dealer_p2() -> None:
    deck = deck_for({"p1": ["AS", "2S", "3S"], "p2": ["4S", "5S", "6S"], "p3": ["7S", "8S", "9S"]},
                    stock=["TS"], dealer=1)
    # dealer p2: the first card goes to p3, then p1, then p2; three passes
    assert deck[:10] == ["7S", "AS", "4S", "8S", "2S", "5S", "9S", "3S", "6S", "TS"]
    g = lobby(3, deck=deck, dealer=1)
    g.act("p1", "start")
    assert g.hands() == {"p1": ["AS", "2S", "3S"], "p2": ["4S", "5S", "6S"],
                         "p3": ["7S", "8S", "9S"]}
    assert g.stock[0] == "TS"


def test_r2_3_positions_change_only_by_a_swap() -> None:
    g = start({"p1": ["AS", "2S", "3S"], "p2": ["4S", "5S", "6S"]},
              stock=["7H", "JH", "8H", "9H"], dealer=1)
    # p1 starts (dealer p2): discard 7H; p2: Jack; p1: swap 8H into the middle
    before = g.hands()
    g.play_turn()
    assert g.hands() == before
    g.draw()
    g.act("p2", "jack")
    assert g.hands() == before
    g.draw()
    g.act("p1", "swap", slot="middle")
    assert g.hands() == {"p1": ["AS", "8H", "3S"], "p2": ["4S", "5S", "6S"]}


def test_r2_4_each_player_peeks_once_at_left_and_right_only() -> None:
    g = start({"p1": ["AS", "2S", "3S"], "p2": ["4S", "5S", "6S"], "p3": ["7S", "8S", "9S"]},
              dealer=0, ready=False)
    deal = g.log[-7:]  # round_started and six peeks
    assert kinds(deal) == ["round_started"] + ["peek"] * 6
    for p, (left, _middle, right) in g.hands().items():
        peeks = [e for e in g.seen(p, g.log) if e["kind"] == "peek"]
        assert peeks == [
            {"kind": "peek", "player": p, "slot": "left", "card": left},
            {"kind": "peek", "player": p, "slot": "right", "card": right},
        ]
    # the peeks are in no view; a reconnect does not send them again (R16.3)
    for p in g.ids:
        v = g.view(p)
        assert all(pl["cards"] == [None, None, None] for pl in v["players"])
        assert v["holding"] is None
    n = len(g.log)
    g.connect("p2", False)
    g.connect("p2", True)
    assert "peek" not in kinds(g.log[n:])


def test_r2_4_peek_events_are_for_their_player_only() -> None:
    g = start(players=4, ready=False)
    for e in g.log:
        if e.kind == "peek":
            for p in g.ids:
                assert (g.seen(p, [e]) != []) == (p == e.data["player"])


def test_r2_5_the_rest_is_the_stock_and_the_discard_pile_starts_empty() -> None:
    for n in (2, 5, 8):
        g = start(players=n)
        v = g.view("p1")
        assert v["stock_count"] == 52 - 3 * n
        assert v["discard_count"] == 0 and v["discard_top"] is None


def test_r2_5_a_discarded_card_is_face_up_on_the_pile() -> None:
    g = start(players=3, stock=["7H"], dealer=2)
    g.play_turn()
    for p in g.ids:
        v = g.view(p)
        assert (v["discard_top"], v["discard_count"]) == ("7H", 1)
        assert {"kind": "discarded", "player": "p1", "card": "7H", "timeout": False} in g.seen(p)


@pytest.mark.parametrize(("n", "dealer", "first"), [(2, 0, "p2"), (2, 1, "p1"), (4, 3, "p1"),
                                                    (4, 1, "p3"), (8, 7, "p1")])
def test_r2_6_the_player_after_the_dealer_takes_the_first_turn(
        n: int, dealer: int, first: str) -> None:
    g = start(players=n, dealer=dealer)
    assert g.turn_player == first
    assert g.plays(first) == ["draw"] and g.view(first)["legal"] == g.legal(first)
    assert {"kind": "turn_started", "player": first, "final": False} in g.seen("p1")


def test_r2_sheet_example_player_left_of_dealer_starts() -> None:
    # "Pemain di sebelah kiri bandar mendapat giliran pertama" / "يلعب الدور الأول اللاعب
    # الجالس على يسار الموزّع": clockwise, the seat after the dealer.
    g = start(players=3, dealer=1)
    assert g.turn_player == "p3"
    assert g.view("p3")["turn"]["may_start_at"] >= T0
