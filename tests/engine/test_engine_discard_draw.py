"""R13 host option: drawing from the discard pile."""

from __future__ import annotations

import pytest

from crisp.engine import Options
from tests.engine.helpers import call_and_finish, card_strings, start

HANDS = {"p1": ["AS", "2S", "3S"], "p2": ["4S", "5S", "6S"], "p3": ["7S", "8S", "9S"]}
ON = Options(discard_draw=True)


def test_r13_1_off_by_default() -> None:
    g = start(HANDS, stock=["7H", "8H"], dealer=2)
    assert g.view("p1")["options"]["discard_draw"] is False
    g.play_turn()
    g.until_may_start()
    err = g.refuse("p2", "draw", source="discard")
    assert (err.code, err.rule) == ("illegal", "R13.1")


def test_r13_1_take_the_top_card_of_the_discard_pile_instead_of_the_stock() -> None:
    g = start(HANDS, stock=["7H", "8H"], dealer=2, options=ON)
    g.play_turn()  # p1 discards 7H
    g.until_may_start()
    g.act("p2", "draw", source="discard")
    assert g.holding == "7H"
    assert g.stock[0] == "8H"  # the stock is untouched
    for p in g.ids:  # a discard draw is public, card included
        assert g.seen(p) == [{"kind": "drew", "player": "p2", "source": "discard",
                              "card": "7H"}]
        v = g.view(p)
        assert (v["discard_count"], v["discard_top"]) == (0, None)
        assert v["turn"]["drawn_from"] == "discard"


def test_r13_1_every_king_extra_draw_may_come_from_the_pile() -> None:
    g = start(HANDS, stock=["7H", "KH"], dealer=2, options=ON)
    g.play_turn()  # p1 discards 7H
    g.draw()  # p2: KH from the stock
    g.act("p2", "king")
    assert g.discard == ["7H"]  # the King lies beside the piles (R9.3)
    g.act("p2", "draw", source="discard")
    assert g.holding == "7H"
    g.act("p2", "swap", slot="left")  # 4S goes on the pile
    g.act("p2", "draw", source="discard")  # ... and is taken back
    assert g.holding == "4S"
    g.act("p2", "swap", slot="right")
    assert g.hand("p2") == ["7H", "5S", "4S"]
    assert g.discard == ["6S", "KH"]
    assert g.turn_player == "p3"


def test_r13_2_a_card_from_the_pile_must_be_swapped_in() -> None:
    g = start(HANDS, stock=["7H"], dealer=2, options=ON)
    g.play_turn()
    g.draw(source="discard")
    assert g.plays("p2") == ["swap"]
    err = g.refuse("p2", "discard")
    assert (err.code, err.rule) == ("illegal", "R13.2")
    g.act("p2", "swap", slot="middle")
    assert g.hand("p2") == ["4S", "7H", "6S"] and g.discard == ["5S"]
    assert g.seen("p3")[0] == {"kind": "swapped", "player": "p2", "slot": "middle",
                               "discarded": "5S"}


@pytest.mark.parametrize("face", ["JH", "QH"])
def test_r13_3_a_face_card_from_the_pile_has_no_effect(face: str) -> None:
    g = start(HANDS, stock=[face], dealer=2, options=ON)
    g.play_turn()  # p1 discards the J/Q unused
    g.draw(source="discard")
    assert g.holding == face
    assert g.plays("p2") == ["swap"]
    for kind in ("jack", "queen", "king"):
        fields = {"slot": "left", "target": "p1", "target_slot": "left"} if kind == "queen" \
            else {}
        err = g.refuse("p2", kind, **fields)
        assert err.code == "illegal" and err.rule in ("R13.3", "R5.3")
    kind = "jack" if face == "JH" else "queen"
    fields = {"slot": "left", "target": "p1", "target_slot": "left"} if kind == "queen" else {}
    assert g.refuse("p2", kind, **fields).rule == "R13.3"
    g.act("p2", "swap", slot="left")  # R6.1 is about the stock only
    assert g.hand("p2")[0] == face


def test_r13_3_a_king_from_the_pile_is_a_plain_ten() -> None:
    # a King reaches the pile's top once the turn that played it ends (R9.3)
    g = start({"p1": ["AS", "2S", "3S"], "p2": ["4S", "5S", "6S"]},
              stock=["KH", "7C", "8C", "9C"], dealer=1, options=ON)
    g.play_turn()  # p1: KH, then 7C and 8C discarded; the King ends on top
    assert g.discard == ["7C", "8C", "KH"] and g.turn_player == "p2"
    g.until_may_start()
    g.act("p2", "draw", source="discard")
    assert g.holding == "KH" and g.plays("p2") == ["swap"]
    err = g.refuse("p2", "king")
    assert (err.code, err.rule) == ("illegal", "R13.3")
    assert g.view("p2")["turn"]["extra_draws"] == 0  # no extra draws
    g.act("p2", "swap", slot="right")
    assert g.turn_player == "p1" and g.view("p1")["turn"]["extra_draws"] == 0
    g.act("p2", "crisp")
    while g.state.status == "playing":
        g.play_turn()
    assert g.state.last_round is not None
    assert g.state.last_round.sums["p2"] == 4 + 5 + 10  # the King counts 10 (R1.4)


def test_r13_4_with_an_empty_pile_the_player_must_draw_from_the_stock() -> None:
    g = start(HANDS, stock=["7H"], dealer=2, options=ON)
    assert g.view("p1")["discard_count"] == 0
    assert g.plays("p1") == ["draw"]
    err = g.refuse("p1", "draw", source="discard")
    assert (err.code, err.rule) == ("illegal", "R13.4")
    g.act("p1", "draw", source="stock")


def test_r13_4_the_pile_emptied_by_a_discard_draw() -> None:
    g = start(HANDS, stock=["7H", "KD", "2C", "3C"], dealer=2, options=ON)
    g.play_turn()
    g.draw(source="discard")  # p2 empties the pile
    g.act("p2", "swap", slot="left")
    assert g.discard == ["4S"]
    g.draw(source="discard")  # p3 empties it again
    assert g.view("p1")["discard_count"] == 0
    g.act("p3", "swap", slot="left")
    assert g.discard == ["7S"]


def test_r13_discard_draws_show_no_hidden_card() -> None:
    g = start(HANDS, stock=["7H", "8H"], dealer=2, options=ON)
    g.play_turn()
    g.draw(source="discard")
    g.act("p2", "swap", slot="right")
    for p in ("p1", "p3"):
        assert set(card_strings(g.seen(p, g.log[-3:]))) <= {"7H", "6S"}


def test_r13_whole_round_with_discard_draws() -> None:
    g = start(HANDS, stock=["7H", "AH", "AD"], dealer=2, options=ON)
    call_and_finish(g, "p1")
    assert g.state.status == "round_over"
