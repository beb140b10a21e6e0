"""R16.3 (revised): the state keeps, per seat, the looks of the current round that
are still valid (slot, card, why, seq), so that a look missed while away is owed and
a computer player's memory can be rebuilt (R17.2). Never in a view."""

from __future__ import annotations

import json

import pytest

from crisp.engine import Event, Look, Options, State, looks_for, owed_peeks, redact
from crisp.engine.vocabulary import Slot
from tests.engine.helpers import Game, call_and_finish, card_strings, start

HANDS = {"p1": ["AS", "2S", "3S"], "p2": ["4S", "5S", "6S"], "p3": ["7S", "8S", "9S"]}


def looks(g: Game, player: str) -> list[tuple[str, str, str]]:
    """(slot, card, why) of the player's valid looks, oldest first."""
    return [(look.slot.label, look.card.text, look.why) for look in looks_for(g.state, player)]


def peek_seqs(events: list[Event], player: str) -> list[int | None]:
    return [e.look for e in events if e.kind == "peek" and e.to == player]


def test_r16_3_the_deal_records_each_seats_left_and_right() -> None:
    g = start(HANDS, dealer=2, ready=False)
    for p, hand in HANDS.items():
        assert looks(g, p) == [("left", hand[0], "deal"), ("right", hand[2], "deal")]
        seqs = [look.seq for look in looks_for(g.state, p)]
        assert peek_seqs(g.log, p) == seqs  # each peek event names its look
    all_seqs = sorted(look.seq for p in HANDS for look in looks_for(g.state, p))
    assert all_seqs == list(range(1, 7)) and g.state.look_seq == 6


def test_r16_3_looks_never_reach_a_view_or_the_wire() -> None:
    g = start(HANDS, dealer=2, ready=False)
    for p in g.ids:
        v = g.view(p)
        assert "looks" not in json.dumps(v) and "look_seq" not in v
        assert list(card_strings(v)) == []
        for e in g.log:  # `look` is server-side metadata, never in a redacted event
            shown = redact(e, p)
            assert shown is None or "look" not in shown


def test_r16_3_a_swap_drops_the_look_and_records_the_drawn_card() -> None:
    g = start(HANDS, stock=["5C"], dealer=2)
    g.draw()
    g.act("p1", "swap", slot="left")
    assert looks(g, "p1") == [("right", "3S", "deal"), ("left", "5C", "draw")]
    swapped = next(e for e in g.last if e.kind == "swapped")
    assert swapped.look == looks_for(g.state, "p1")[-1].seq  # R4.1: the drawer saw it
    assert "look" not in (redact(swapped, "p2") or {})


def test_r16_3_a_swap_into_an_unseen_middle_is_a_look_too() -> None:
    g = start(HANDS, stock=["5C"], dealer=2)
    g.draw()
    g.act("p1", "swap", slot="middle")
    assert looks(g, "p1") == [("left", "AS", "deal"), ("right", "3S", "deal"),
                              ("middle", "5C", "draw")]


def test_r16_3_a_card_taken_from_the_pile_and_swapped_in_is_recorded() -> None:
    g = start(HANDS, stock=["5C"], dealer=2, options=Options(discard_draw=True))
    g.play_turn()  # p1 discards 5C
    g.until_may_start()
    g.act("p2", "draw", source="discard")
    g.act("p2", "swap", slot="right")
    assert looks(g, "p2") == [("left", "4S", "deal"), ("right", "5C", "draw")]


def test_r16_3_a_discarded_draw_is_no_look() -> None:
    g = start(HANDS, stock=["5C"], dealer=2)
    before = g.state.look_seq
    g.play_turn()
    assert g.state.look_seq == before
    assert looks(g, "p1") == [("left", "AS", "deal"), ("right", "3S", "deal")]


def test_r7_1_r16_3_a_jack_records_the_middle_once_per_slot() -> None:
    g = start(HANDS, stock=["JH", "5C", "6C", "JD"], dealer=2)
    g.draw()
    g.act("p1", "jack")
    assert looks(g, "p1")[-1] == ("middle", "2S", "jack")
    assert peek_seqs(g.last, "p1") == [looks_for(g.state, "p1")[-1].seq]
    g.play_turns(2)  # p2, p3
    g.draw()
    g.act("p1", "jack")  # a second Jack looks again at the same card
    assert looks(g, "p1") == [("left", "AS", "deal"), ("right", "3S", "deal"),
                              ("middle", "2S", "jack")]  # one look per slot, the newest


@pytest.mark.parametrize("slot", ["left", "middle", "right"])
@pytest.mark.parametrize("target_slot", ["left", "middle", "right"])
def test_r8_r16_3_a_queen_drops_both_looks_and_records_what_each_side_sees(
        slot: str, target_slot: str) -> None:
    g = start(HANDS, stock=["QH", "5C"], dealer=2)
    g.draw()
    g.act("p1", "queen", slot=slot, target="p2", target_slot=target_slot)
    i, j = Slot.parse(slot), Slot.parse(target_slot)
    assert i is not None and j is not None
    mine = {x[0]: x for x in looks(g, "p1")}
    theirs = {x[0]: x for x in looks(g, "p2")}
    if slot == "middle":  # R8.2: no look at a middle; the old look left with its card
        assert "middle" not in mine
    else:
        assert mine[slot] == (slot, HANDS["p2"][j], "queen")
    if target_slot == "middle":  # R8.3
        assert "middle" not in theirs
    else:  # R8.4: p2 sees a card that p1 may never have seen
        assert theirs[target_slot] == (target_slot, HANDS["p1"][i], "queen_target")
    for p in ("p1", "p2"):
        seats_hand = g.hand(p)
        for look in looks_for(g.state, p):  # every look is for the card there now
            assert seats_hand[look.slot] == look.card.text
    assert looks(g, "p3") == [("left", "7S", "deal"), ("right", "9S", "deal")]


def test_r16_3_a_queen_moves_a_looked_at_card_away_from_its_owner() -> None:
    g = start(HANDS, stock=["5C", "QH", "6C"], dealer=2)
    g.play_turn()  # p1
    g.draw()  # p2: Queen, its middle (never seen) for p1's left (p1 saw AS)
    g.act("p2", "queen", slot="middle", target="p1", target_slot="left")
    assert looks(g, "p1") == [("right", "3S", "deal"), ("left", "5S", "queen_target")]
    assert looks(g, "p2") == [("left", "4S", "deal"), ("right", "6S", "deal")]


def test_r16_3_the_reveal_clears_the_record_and_seq_never_goes_back() -> None:
    g = start(HANDS, stock=["5C", "6C", "7C"], dealer=2)
    call_and_finish(g, "p1")
    assert g.state.status == "round_over"
    assert all(looks_for(g.state, p) == [] for p in g.ids)
    last = g.state.look_seq
    g.act("p1", "next_round")
    seqs = [look.seq for p in g.ids for look in looks_for(g.state, p)]
    assert min(seqs) == last + 1 and len(seqs) == 6


def test_r16_3_owed_peeks_are_the_valid_looks_after_a_delivered_seq() -> None:
    g = start(HANDS, stock=["5C", "QH", "6C"], dealer=2, ready=False)
    deal = looks_for(g.state, "p1")
    assert [e.to_json() for e in owed_peeks(g.state, "p1", 0)] == [
        e.to_json() for e in g.log if e.kind == "peek" and e.to == "p1"]
    assert owed_peeks(g.state, "p1", deal[0].seq)[0].data == {
        "player": "p1", "slot": "right", "card": "3S"}
    assert owed_peeks(g.state, "p1", g.state.look_seq) == []
    g.ready_all()
    g.play_turn()
    g.draw()
    g.act("p2", "queen", slot="middle", target="p1", target_slot="left")  # AS leaves
    owed = owed_peeks(g.state, "p1", 0)
    assert [redact(e, "p1") for e in owed] == [
        {"kind": "peek", "player": "p1", "slot": "right", "card": "3S"},
        {"kind": "peek", "player": "p1", "slot": "left", "card": "5S"}]
    assert all(redact(e, "p2") is None for e in owed)  # addressed to p1 only
    assert [e.look for e in owed] == [look.seq for look in looks_for(g.state, "p1")]
    assert owed_peeks(g.state, "nobody", 0) == []


def test_r16_3_looks_round_trip_through_json() -> None:
    g = start(HANDS, stock=["JH", "5C"], dealer=2)
    g.draw()
    g.act("p1", "jack")
    raw = json.loads(json.dumps(g.state.to_json()))
    back = State.from_json(raw)
    assert back == g.state
    middle = g.state.players[0].hand[Slot.MIDDLE]
    assert middle is not None
    assert looks_for(back, "p1")[-1] == Look(g.state.look_seq, Slot.MIDDLE, middle, "jack")
    e = [x for x in g.log if x.kind == "peek"][-1]
    assert Event.from_json(json.loads(json.dumps(e.to_json()))).look == e.look


def test_r17_2_a_computer_players_memory_rebuilt_from_the_looks() -> None:
    # the recipe of docs/engine-api.md: the view first, then the owed peeks from 0
    from crisp.bots import Memory

    g = start(HANDS, stock=["5C", "QH", "JD", "6C"], dealer=2)
    g.draw()
    g.act("p1", "swap", slot="middle")  # p1 drew 5C into its middle
    g.draw()
    g.act("p2", "queen", slot="right", target="p1", target_slot="left")
    memory = Memory("p1", "normal")
    memory.observe(g.view("p1"), [])
    memory.observe(None, [r for e in owed_peeks(g.state, "p1", 0)
                          if (r := redact(e, "p1")) is not None])
    assert memory.hand("p1") == ["6S", "5C", "3S"]
    assert memory.cards() <= {look.card.text for look in looks_for(g.state, "p1")} | {
        g.view("p1")["discard_top"]}
