"""R7 Jack, R8 Queen (all nine slot pairs with their peeks), R9 King (extra
draws, chains, the King on the pile first)."""

from __future__ import annotations

import pytest

from crisp.engine import Options
from tests.engine.helpers import (
    FACE_CARDS,
    NUMBER_CARDS,
    card_strings,
    kinds,
    start,
)

HANDS = {"p1": ["AS", "2S", "3S"], "p2": ["4S", "5S", "6S"], "p3": ["7S", "8S", "9S"]}
SLOTS = ["left", "middle", "right"]

# -- R7 --------------------------------------------------------------------------------


def test_r7_1_jack_looks_once_at_ones_own_middle_card() -> None:
    g = start(HANDS, stock=["JH", "5C"], dealer=2)
    g.draw()
    g.act("p1", "jack")
    assert g.seen("p1") == [
        {"kind": "jack", "player": "p1", "card": "JH"},
        {"kind": "peek", "player": "p1", "slot": "middle", "card": "2S"},
        {"kind": "turn_started", "player": "p2", "final": False},
    ]
    for p in ("p2", "p3"):
        assert "peek" not in kinds(g.seen(p))
        assert "2S" not in card_strings(g.seen(p))
    for p in g.ids:  # look once: the card is in no view afterwards
        assert "2S" not in card_strings(g.view(p))
    assert g.hands() == HANDS


# -- R8 --------------------------------------------------------------------------------


@pytest.mark.parametrize("slot", SLOTS)
@pytest.mark.parametrize("target_slot", SLOTS)
def test_r8_1_queen_swaps_blind_in_every_slot_pair(slot: str, target_slot: str) -> None:
    g = start(HANDS, stock=["QH", "5C"], dealer=2)
    g.draw()
    i, j = SLOTS.index(slot), SLOTS.index(target_slot)
    mine, theirs = HANDS["p1"][i], HANDS["p2"][j]
    g.act("p1", "queen", slot=slot, target="p2", target_slot=target_slot)
    # R8.2: each card takes the position the other card left
    p1, p2 = list(HANDS["p1"]), list(HANDS["p2"])
    p1[i], p2[j] = theirs, mine
    assert g.hands() == {"p1": p1, "p2": p2, "p3": HANDS["p3"]}
    queen = {"kind": "queen", "player": "p1", "slot": slot, "target": "p2",
             "target_slot": target_slot, "card": "QH"}
    # R8.2: the player looks at the card received unless it landed in the middle
    p1_peeks = [e for e in g.seen("p1") if e["kind"] == "peek"]
    assert p1_peeks == ([] if slot == "middle" else
                        [{"kind": "peek", "player": "p1", "slot": slot, "card": theirs}])
    # R8.3: the same for the other player
    p2_peeks = [e for e in g.seen("p2") if e["kind"] == "peek"]
    assert p2_peeks == ([] if target_slot == "middle" else
                        [{"kind": "peek", "player": "p2", "slot": target_slot, "card": mine}])
    # the swap itself shows neither card to anyone (R8.1, R6.4)
    for p in g.ids:
        seen = g.seen(p)
        assert seen[0] == queen
        assert [e for e in seen if e["kind"] not in ("peek",)] == [
            queen, {"kind": "turn_started", "player": "p2", "final": False}]
        assert mine not in card_strings(g.view(p)) and theirs not in card_strings(g.view(p))
    assert [e for e in g.seen("p3") if e["kind"] == "peek"] == []
    # the peeks come after the public queen event, the player's own first
    assert kinds(g.last)[0] == "queen"
    peek_to = [e.to for e in g.last if e.kind == "peek"]
    assert peek_to == (["p1"] if slot != "middle" else []) + (
        ["p2"] if target_slot != "middle" else [])


def test_r8_1_a_queen_swaps_with_another_player_not_oneself() -> None:
    g = start(HANDS, stock=["QH"], dealer=2)
    g.draw()
    err = g.refuse("p1", "queen", slot="left", target="p1", target_slot="right")
    assert (err.code, err.rule) == ("illegal", "R8.1")
    err = g.refuse("p1", "queen", slot="left", target="p9", target_slot="right")
    assert err.code == "unknown_player"


def test_r8_1_queen_with_any_other_player() -> None:
    g = start(HANDS, stock=["QH"], dealer=2)
    g.draw()
    g.act("p1", "queen", slot="right", target="p3", target_slot="middle")
    assert g.hands() == {"p1": ["AS", "2S", "8S"], "p2": HANDS["p2"],
                         "p3": ["7S", "3S", "9S"]}


def test_r8_4_sheet_example_unknown_middle_card_to_an_opponents_left() -> None:
    # "a player who swaps away their unknown middle card into an opponent's left position
    # lets that opponent see a card the player never saw"
    g = start(HANDS, stock=["QH"], dealer=2)
    p1_ever = card_strings(g.seen("p1", g.log))
    assert "2S" not in set(p1_ever)  # p1 never saw its middle card
    g.draw()
    g.act("p1", "queen", slot="middle", target="p2", target_slot="left")
    assert g.seen("p2")[1] == {"kind": "peek", "player": "p2", "slot": "left", "card": "2S"}
    assert "2S" not in set(card_strings(g.seen("p1", g.log)))  # and still never does
    assert g.hand("p1")[1] == "4S" and "4S" not in set(card_strings(g.seen("p1")))


def test_r8_5_the_crisp_caller_is_a_valid_queen_target_in_final_turns() -> None:
    g = start(HANDS, stock=["5C", "QH"], dealer=2)
    g.play_turn()  # p1
    g.act("p1", "crisp")
    g.draw()
    assert g.view("p2")["turn"]["final"] is True
    g.act("p2", "queen", slot="right", target="p1", target_slot="left")
    assert g.hand("p1") == ["6S", "2S", "3S"] and g.hand("p2") == ["4S", "5S", "AS"]
    assert {"kind": "peek", "player": "p1", "slot": "left", "card": "6S"} in g.seen("p1")
    assert {"kind": "peek", "player": "p2", "slot": "right", "card": "AS"} in g.seen("p2")


def test_r1_4_a_face_card_enters_a_hand_by_a_queen_swap() -> None:
    g = start({"p1": ["AS", "2S", "3S"], "p2": ["KH", "5S", "6S"]}, stock=["QH", "7C"],
              dealer=1)
    g.draw()
    g.act("p1", "queen", slot="left", target="p2", target_slot="left")
    assert g.hand("p1") == ["KH", "2S", "3S"]
    g.act("p1", "crisp")
    g.play_turn()
    assert g.state.last_round is not None
    assert g.state.last_round.sums == {"p1": 15, "p2": 12}


# -- R9 --------------------------------------------------------------------------------


def test_r9_1_king_grants_two_extra_draws_played_like_normal_draws() -> None:
    g = start(HANDS, stock=["KH", "5C", "JH", "6C"], dealer=2)
    g.draw()
    g.act("p1", "king")
    assert g.turn_player == "p1" and g.state.turn is not None
    assert g.state.turn.extra_draws == 2
    assert g.view("p2")["turn"]["extra_draws"] == 2
    assert g.plays("p1") == ["draw"]
    g.act("p1", "draw", source="stock")  # extra draw 1: a swap
    assert g.view("p1")["turn"]["extra_draws"] == 1
    g.act("p1", "swap", slot="right")
    assert g.turn_player == "p1"
    g.act("p1", "draw", source="stock")  # extra draw 2: a special
    assert g.view("p1")["turn"]["extra_draws"] == 0
    g.act("p1", "jack")
    assert g.turn_player == "p2"
    assert g.hand("p1") == ["AS", "2S", "5C"]
    assert g.discard == ["3S", "JH", "KH"]  # R9.3: the King last, once its draws are made
    assert kinds(g.log).count("turn_started") == 2  # the first turn and p2's


def test_r9_1_extra_draws_need_no_start_delay() -> None:
    g = start(HANDS, stock=["KH", "5C", "6C"], dealer=2)
    g.draw()
    g.act("p1", "king")
    g.act("p1", "draw", source="stock")  # at once, same clock
    g.act("p1", "discard")
    g.act("p1", "draw", source="stock")
    g.act("p1", "discard")
    assert g.turn_player == "p2"


def test_r9_2_king_chain_adds_two() -> None:
    g = start(HANDS, stock=["KH", "KD", "2C", "3C", "4C", "5C"], dealer=2)
    g.draw()
    g.act("p1", "king")  # owed: 2
    g.act("p1", "draw", source="stock")  # KD, owed 1
    assert g.holding == "KD"
    g.act("p1", "king")  # 1 + 2 = 3
    assert g.last[0].data == {"player": "p1", "extra_draws": 3, "card": "KD"}
    assert g.view("p1")["turn"]["extra_draws"] == 3
    for card in ("2C", "3C", "4C"):
        assert g.turn_player == "p1"
        g.act("p1", "draw", source="stock")
        assert g.holding == card
        g.act("p1", "discard")
    assert g.turn_player == "p2"
    assert g.discard == ["2C", "3C", "4C", "KH", "KD"]  # R9.3: in play order, KD on top


def test_r9_2_three_kings_in_a_row() -> None:
    g = start(HANDS, stock=["KH", "KD", "KC", "2C", "3C", "4C", "5C", "6C"], dealer=2)
    g.play_turn()  # K(2) -> K(1+2=3) -> K(2+2=4) -> four number cards
    assert g.discard == ["2C", "3C", "4C", "5C", "KH", "KD", "KC"]
    assert [e.data["extra_draws"] for e in g.log if e.kind == "king"] == [2, 3, 4]
    assert g.turn_player == "p2"


def test_r9_3_a_played_king_lies_beside_the_piles_during_its_extra_draws() -> None:
    g = start(HANDS, stock=["5C", "KH", "6C", "7C", "8C"], dealer=2)
    g.play_turn()  # p1 discards 5C
    g.draw()
    g.act("p2", "king")
    for p in g.ids:  # public, beside the piles; the pile is as it was
        v = g.view(p)
        assert v["turn"]["kings"] == ["KH"]
        assert (v["discard_top"], v["discard_count"]) == ("5C", 1)
    g.act("p2", "draw", source="stock")
    g.act("p2", "discard")  # the first extra draw is resolved: the King still lies aside
    assert g.view("p3")["turn"]["kings"] == ["KH"]
    assert g.view("p3")["discard_top"] == "6C"
    g.act("p2", "draw", source="stock")
    g.act("p2", "discard")  # the last one: the King goes on the pile, on top
    assert g.turn_player == "p3"
    assert g.discard == ["5C", "6C", "7C", "KH"]
    for p in g.ids:
        v = g.view(p)
        assert v["turn"]["kings"] == [] and v["discard_top"] == "KH"


def test_r9_3_chained_kings_lie_beside_the_piles_in_play_order() -> None:
    g = start(HANDS, stock=["KH", "5C", "KD", "6C", "7C", "8C"], dealer=2)
    g.draw()
    g.act("p1", "king")
    g.act("p1", "draw", source="stock")
    g.act("p1", "discard")  # 5C
    g.act("p1", "draw", source="stock")
    g.act("p1", "king")  # KD: two more draws, both Kings beside the piles
    assert g.view("p2")["turn"]["kings"] == ["KH", "KD"]
    assert g.discard == ["5C"]
    g.act("p1", "draw", source="stock")
    g.act("p1", "swap", slot="left")  # AS goes on the pile
    g.act("p1", "draw", source="stock")
    g.act("p1", "discard")
    assert g.discard == ["5C", "AS", "7C", "KH", "KD"]  # the last King played on top


def test_r9_3_a_played_king_is_never_taken_back_during_its_own_extra_draws() -> None:
    # with discard-pile draws on (R13.1), an extra draw takes the pile's top, never the King
    g = start(HANDS, stock=["5C", "KH", "7C"], dealer=2, options=Options(discard_draw=True))
    g.play_turn()  # p1 discards 5C
    g.draw()
    g.act("p2", "king")
    g.act("p2", "draw", source="discard")
    assert g.holding == "5C"
    g.act("p2", "swap", slot="middle")  # 5S goes on the pile
    g.act("p2", "draw", source="discard")
    assert g.holding == "5S"
    g.act("p2", "swap", slot="left")
    assert g.discard == ["4S", "KH"] and g.turn_player == "p3"
    assert g.hand("p2") == ["5S", "5C", "6S"]


def test_r9_3_the_first_extra_draw_from_an_empty_pile_is_refused() -> None:
    # the King is not on the pile: with nothing else there, the pile is empty (R13.4)
    g = start(HANDS, stock=["KH", "5C"], dealer=2, options=Options(discard_draw=True))
    g.draw()
    g.act("p1", "king")
    err = g.refuse("p1", "draw", source="discard")
    assert (err.code, err.rule) == ("illegal", "R13.4")


def test_r9_3_a_king_beside_the_piles_stays_out_of_a_rebuilt_stock() -> None:
    # 8 players: 24 cards dealt, 28 in the stock, the last of them a King
    pool = [c for c in FACE_CARDS if c != "KH"] + NUMBER_CARDS
    hand_cards = pool[:24]
    hands = {f"p{i + 1}": hand_cards[3 * i:3 * i + 3] for i in range(8)}
    stock = [*pool[24:24 + 27], "KH"]
    g = start(hands, stock=stock, dealer=7)
    for _ in range(27):
        g.play_turn()
    assert g.stock == ["KH"]
    g.draw()
    who = g.turn_player
    assert who is not None
    g.act(who, "king")
    assert g.state.stock == [] and len(g.discard) == 27
    g.act(who, "draw", source="stock")  # R4.2: the pile turned over, without the King
    assert [e.data for e in g.last if e.kind == "stock_rebuilt"] == [{"count": 27}]
    assert g.holding == stock[0] and "KH" not in g.stock
    g.act(who, "discard")
    g.act(who, "draw", source="stock")
    g.act(who, "discard")
    assert g.discard[-1] == "KH" and g.turn_player != who
