"""R3 turn order, R4 drawing (and the R4.2 rebuild of the stock), R5 resolving a
drawn card, R6 special cards drawn from the stock."""

from __future__ import annotations

import pytest

from crisp.engine import Options
from tests.engine.helpers import (
    FACE_CARDS,
    NUMBER_CARDS,
    Game,
    card_strings,
    kinds,
    start,
)

# -- R3 --------------------------------------------------------------------------------


def test_r3_1_play_goes_clockwise_one_turn_at_a_time() -> None:
    g = start(players=4, dealer=2)
    order = []
    for _ in range(9):
        order.append(g.turn_player)
        for p in g.ids:
            if p != g.turn_player:
                assert g.refuse(p, "draw", source="stock").code == "not_your_turn"
        g.play_turn()
    assert order == ["p4", "p1", "p2", "p3", "p4", "p1", "p2", "p3", "p4"]


def test_r3_2_a_turn_is_one_draw_and_its_resolution() -> None:
    g = start(players=3, stock=["5H", "6H"], dealer=0)
    assert g.turn_player == "p2"
    err = g.refuse("p2", "discard")
    assert (err.code, err.rule) == ("illegal", "R5")
    g.act("p2", "draw", source="stock")
    err = g.refuse("p2", "draw", source="stock")  # one draw, resolved before anything else
    assert (err.code, err.rule) == ("illegal", "R3.2")
    assert g.plays("p2") == ["swap", "discard"]
    g.act("p2", "discard")
    assert g.turn_player == "p3"  # the turn is over
    assert g.refuse("p2", "draw", source="stock").code == "not_your_turn"


# -- R4 --------------------------------------------------------------------------------


def test_r4_1_a_draw_takes_the_top_card_seen_only_by_the_drawer() -> None:
    g = start(players=3, stock=["7D", "8D"], dealer=2)
    assert g.stock[:2] == ["7D", "8D"]
    g.act("p1", "draw", source="stock")
    assert g.holding == "7D" and g.stock[0] == "8D"
    assert g.seen("p1") == [{"kind": "drew", "player": "p1", "source": "stock", "card": "7D"}]
    for other in ("p2", "p3"):
        assert g.seen(other) == [{"kind": "drew", "player": "p1", "source": "stock",
                                  "card": None}]
        v = g.view(other)
        assert v["holding"] is None and "7D" not in card_strings(v)
    assert g.view("p1")["holding"] == "7D"
    assert g.view("p1")["turn"]["drawn_from"] == "stock"
    assert g.view("p2")["turn"]["drawn_from"] == "stock"  # public: who drew from where


def _eight_player_hands(keep_out: list[str]) -> tuple[dict[str, list[str]], list[str]]:
    """Hands for 8 players made of all the face cards and some number cards, so that
    the 28 cards of the stock are number cards (plus `keep_out`, which stays out of
    the hands)."""
    pool = [c for c in FACE_CARDS + NUMBER_CARDS if c not in keep_out][:24]
    hands = {f"p{i + 1}": pool[3 * i:3 * i + 3] for i in range(8)}
    rest = [c for c in NUMBER_CARDS if c not in pool and c not in keep_out]
    return hands, rest


def _exhaust(g: Game) -> list[str]:
    """Play turns (the first one swaps, the others discard) until the stock is empty;
    the discard pile, bottom first."""
    g.play_turn(how="swap", slot="left")
    while g.state.stock:
        g.play_turn()
    return g.discard


def test_r4_2_empty_stock_turns_the_discard_pile_over_without_shuffling() -> None:
    hands, stock = _eight_player_hands([])
    assert len(stock) == 28
    g = start(hands, stock=stock, dealer=7)
    pile = _exhaust(g)
    assert len(pile) == 28 and pile[0] == hands["p1"][0]  # p1 swapped out its left card
    assert g.view("p1")["stock_count"] == 0
    g.until_may_start()
    who = g.turn_player
    assert who is not None
    g.act(who, "draw", source="stock")
    rebuilt = [e for e in g.last if e.kind == "stock_rebuilt"]
    assert [e.data for e in rebuilt] == [{"count": 28}]
    assert kinds(g.last) == ["stock_rebuilt", "drew"]
    # turned over: the card discarded first is the top of the new stock
    assert g.holding == pile[0]
    assert g.stock == pile[1:]
    assert g.discard == []
    for p in g.ids:
        v = g.view(p)
        assert (v["stock_count"], v["discard_count"], v["discard_top"]) == (27, 0, None)
        assert {"kind": "stock_rebuilt", "count": 28} in g.seen(p)


def test_r4_2_rebuild_during_a_timeout_draw() -> None:
    # R14.2a: "the top card of the stock is drawn and discarded for them (R4.2 applies
    # if the stock is empty)"
    hands, stock = _eight_player_hands([])
    g = start(hands, stock=stock, dealer=7, options=Options(draw_seconds=30))
    pile = _exhaust(g)
    who = g.turn_player
    turn = g.state.turn
    assert turn is not None and turn.draw_deadline is not None
    g.at(turn.draw_deadline)
    assert kinds(g.last) == ["timeout", "stock_rebuilt", "discarded", "turn_started"]
    assert g.last[1].data == {"count": 28}
    assert g.last[2].data == {"player": who, "card": pile[0], "timeout": True}
    assert g.stock == pile[1:]
    assert g.discard == [pile[0]]


def test_r4_2_the_rebuilt_stock_is_drawn_in_discard_order() -> None:
    hands, stock = _eight_player_hands([])
    g = start(hands, stock=stock, dealer=7)
    pile = _exhaust(g)
    drawn = []
    for _ in range(5):
        drawn.append(g.draw())
        g.act(g.turn_player or "", "discard")
    assert drawn == pile[:5]


# -- R5 --------------------------------------------------------------------------------


@pytest.mark.parametrize(("slot", "index"), [("left", 0), ("middle", 1), ("right", 2)])
def test_r5_1_swap_replaces_a_card_in_the_same_position(slot: str, index: int) -> None:
    g = start({"p1": ["AS", "2S", "3S"], "p2": ["4S", "5S", "6S"]}, stock=["9D"], dealer=1)
    g.draw()
    g.act("p1", "swap", slot=slot)
    want = ["AS", "2S", "3S"]
    old = want[index]
    want[index] = "9D"
    assert g.hand("p1") == want
    assert g.discard == [old]
    for p in g.ids:  # the replaced card is face up; the drawn card stays unknown
        assert g.seen(p)[0] == {"kind": "swapped", "player": "p1", "slot": slot,
                                "discarded": old}
        assert "9D" not in card_strings(g.seen(p)) or p == "p1"
        assert "9D" not in card_strings(g.view(p))
        assert g.view(p)["discard_top"] == old
    assert g.turn_player == "p2"


def test_r5_2_discard_puts_the_drawn_card_on_the_pile() -> None:
    g = start({"p1": ["AS", "2S", "3S"], "p2": ["4S", "5S", "6S"]}, stock=["9D"], dealer=1)
    g.draw()
    g.act("p1", "discard")
    assert g.hands()["p1"] == ["AS", "2S", "3S"]
    assert g.discard == ["9D"]
    assert g.seen("p2")[0] == {"kind": "discarded", "player": "p1", "card": "9D",
                               "timeout": False}


def test_r5_exactly_one_resolution() -> None:
    g = start(players=2, stock=["9D"], dealer=1)
    g.draw()
    g.act("p1", "swap", slot="left")
    for kind in ("swap", "discard", "jack", "queen", "king"):
        fields = {"slot": "left"} if kind == "swap" else {}
        if kind == "queen":
            fields = {"slot": "left", "target": "p2", "target_slot": "left"}
        assert g.refuse("p1", kind, **fields).code == "not_your_turn"


def test_r5_3_a_number_card_cannot_be_played_as_a_special() -> None:
    g = start(players=2, stock=["9D"], dealer=1)
    g.draw()
    for kind in ("jack", "king"):
        err = g.refuse("p1", kind)
        assert (err.code, err.rule) == ("illegal", "R5.3")
    err = g.refuse("p1", "queen", slot="left", target="p2", target_slot="left")
    assert (err.code, err.rule) == ("illegal", "R5.3")


# -- R6 --------------------------------------------------------------------------------


@pytest.mark.parametrize("face", ["JH", "QH", "KH"])
@pytest.mark.parametrize("slot", ["left", "middle", "right"])
def test_r6_1_a_face_card_from_the_stock_is_never_swapped_in(face: str, slot: str) -> None:
    g = start(players=2, stock=[face], dealer=1)
    g.draw()
    assert "swap" not in g.legal("p1")
    err = g.refuse("p1", "swap", slot=slot)
    assert (err.code, err.rule) == ("illegal", "R6.1")


@pytest.mark.parametrize(("face", "legal"), [("JH", ["discard", "jack"]),
                                             ("QH", ["discard", "queen"]),
                                             ("KH", ["king"])])
def test_r6_legal_resolutions_of_a_face_card_from_the_stock(face: str, legal: list[str]) -> None:
    g = start(players=2, stock=[face], dealer=1)
    g.draw()
    assert g.plays("p1") == legal
    assert g.view("p1")["legal"] == ["kick", *legal, "leave"]  # p1 hosts; anyone may leave


@pytest.mark.parametrize("face", ["JH", "QH"])
def test_r6_2_a_drawn_jack_or_queen_may_be_discarded_unused(face: str) -> None:
    g = start({"p1": ["AS", "2S", "3S"], "p2": ["4S", "5S", "6S"]}, stock=[face], dealer=1)
    g.draw()
    g.act("p1", "discard")
    assert kinds(g.last) == ["discarded", "turn_started"]  # no effect, no peek
    assert g.discard == [face]
    assert g.hands() == {"p1": ["AS", "2S", "3S"], "p2": ["4S", "5S", "6S"]}


def test_r6_2_a_used_jack_is_then_discarded() -> None:
    g = start(players=2, stock=["JH"], dealer=1)
    g.draw()
    g.act("p1", "jack")
    assert g.discard == ["JH"]
    assert g.view("p2")["discard_top"] == "JH"


def test_r6_2_a_used_queen_is_then_discarded() -> None:
    g = start(players=2, stock=["QH"], dealer=1)
    g.draw()
    g.act("p1", "queen", slot="left", target="p2", target_slot="left")
    assert g.discard == ["QH"]


def test_r6_3_a_drawn_king_must_be_used_then_discarded() -> None:
    g = start(players=2, stock=["KH", "5C", "6C"], dealer=1)
    g.draw()
    err = g.refuse("p1", "discard")
    assert (err.code, err.rule) == ("illegal", "R6.3")
    assert g.plays("p1") == ["king"]
    g.act("p1", "king")
    assert g.discard == [] and g.view("p2")["turn"]["kings"] == ["KH"]  # R9.3
    g.play_turn()  # the two extra draws
    assert g.discard == ["5C", "6C", "KH"]


def test_r6_4_playing_a_special_is_public_but_not_the_swapped_cards() -> None:
    g = start({"p1": ["AS", "2S", "3S"], "p2": ["4S", "5S", "6S"], "p3": ["7S", "8S", "9S"]},
              stock=["JH", "QH", "KH", "5C", "6C"], dealer=2)
    g.draw()
    g.act("p1", "jack")
    for p in ("p2", "p3"):
        assert g.seen(p) == [{"kind": "jack", "player": "p1", "card": "JH"},
                             {"kind": "turn_started", "player": "p2", "final": False}]
    g.draw()
    g.act("p2", "queen", slot="middle", target="p3", target_slot="left")
    public = {"kind": "queen", "player": "p2", "slot": "middle", "target": "p3",
              "target_slot": "left", "card": "QH"}
    assert g.seen("p1")[0] == public
    assert g.seen("p1") == [public, {"kind": "turn_started", "player": "p3", "final": False}]
    # the swapped cards (5S and 7S) are named to nobody but the peeking player
    assert "5S" not in card_strings(g.seen("p1")) and "7S" not in card_strings(g.seen("p1"))
    assert "7S" not in card_strings(g.seen("p2"))  # landed in p2's middle: no look
    g.draw()
    g.act("p3", "king")
    for p in ("p1", "p2"):
        assert g.seen(p)[0] == {"kind": "king", "player": "p3", "extra_draws": 2,
                                "card": "KH"}
