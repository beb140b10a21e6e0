"""R16 online play: options (R16.1), the peek phase (R16.2), look-once (R16.3),
public information (R16.4), next round and rematch (R16.5); the first dealer and
the shuffles from a CSPRNG by default."""

from __future__ import annotations

import random
import secrets

import pytest

from crisp.engine import Options, action_from_dict, apply, redact, set_connected
from crisp.engine import table as engine_table
from tests.engine.helpers import (
    ALL_CARDS,
    PEEK,
    T0,
    call_and_finish,
    card_strings,
    cards_in,
    kinds,
    lobby,
    start,
    with_totals,
)

HANDS = {"p1": ["AS", "2S", "3S"], "p2": ["4S", "5S", "6S"], "p3": ["7S", "8S", "9S"]}
START = action_from_dict({"type": "start"})

# -- R16.1 -----------------------------------------------------------------------------


def test_r16_1_defaults() -> None:
    g = lobby(2)
    assert g.view("p1")["options"] == {"limit": 100, "draw_seconds": None,
                                       "discard_draw": False, "watchers": True}  # R18.1
    assert g.state.options == Options()


def test_r16_1_the_host_sets_any_subset_of_the_options_in_the_lobby() -> None:
    g = lobby(3)
    assert g.legal("p1") == ["options", "start", "kick", "add_bot", "leave"]
    assert g.legal("p2") == ["leave"]
    g.act("p1", "options", discard_draw=True)
    g.act("p1", "options", draw_seconds=60, limit=150)
    assert g.view("p3")["options"] == {"limit": 150, "draw_seconds": 60, "discard_draw": True,
                                       "watchers": True}
    g.act("p1", "options", limit=50)
    assert g.view("p3")["options"] == {"limit": 50, "draw_seconds": 60, "discard_draw": True,
                                       "watchers": True}
    g.act("p1", "options", draw_seconds=None)
    assert g.view("p3")["options"] == {"limit": 50, "draw_seconds": None, "discard_draw": True,
                                       "watchers": True}
    err = g.refuse("p2", "options", limit=100)
    assert err.code == "not_host"


def test_r16_1_options_are_fixed_once_the_game_starts() -> None:
    g = start(HANDS, stock=["5C"], dealer=2, ready=False)
    assert g.refuse("p1", "options", limit=50).code == "wrong_phase"  # peek phase
    g.ready_all()
    assert g.refuse("p1", "options", limit=50).code == "wrong_phase"  # playing
    call_and_finish(g, "p1")
    assert g.state.status == "round_over"
    assert g.refuse("p1", "options", limit=50).code == "wrong_phase"
    with_totals(g, {"p2": 200})
    g.act("p1", "next_round")
    g.ready_all()
    call_and_finish(g)
    assert g.state.status == "game_over"
    assert g.refuse("p1", "options", discard_draw=True).code == "wrong_phase"
    assert g.state.options == Options()
    g.act("p1", "rematch")  # issue 11: back to the lobby, where the options change again
    g.act("p1", "options", discard_draw=True)
    assert g.state.options == Options(discard_draw=True)


# -- R16.2 -----------------------------------------------------------------------------


def test_r16_2_the_first_turn_starts_when_every_connected_player_is_ready() -> None:
    g = start(HANDS, dealer=2, ready=False)
    assert g.view("p1")["peek_ends_at"] == T0 + PEEK
    assert g.view("p1")["turn"] is None
    for p in g.ids:
        assert g.plays(p) == ["ready"]
    g.at(T0 + 1000)
    g.act("p2", "ready")
    assert g.seen("p3") == [{"kind": "ready", "player": "p2"}]
    assert [pl["ready"] for pl in g.view("p1")["players"]] == [False, True, False]
    assert g.plays("p2") == []
    err = g.refuse("p2", "ready")
    assert (err.code, err.rule) == ("illegal", "R16.2")
    g.act("p3", "ready")
    assert g.state.status == "peek"
    g.at(T0 + 2500)
    g.act("p1", "ready")
    assert g.state.status == "playing"
    assert kinds(g.last) == ["ready", "turn_started"]
    assert g.view("p1")["turn"]["may_start_at"] == T0 + 2500
    assert g.view("p1")["peek_ends_at"] is None
    assert g.plays("p1") == ["draw"]
    assert [pl["ready"] for pl in g.view("p1")["players"]] == [False, False, False]


def test_r16_2_or_ten_seconds_after_the_deal() -> None:
    g = start(HANDS, dealer=2, ready=False)
    g.act("p2", "ready")
    g.at(T0 + PEEK - 1)
    assert g.state.status == "peek"
    assert g.refuse("p1", "draw", source="stock").code == "wrong_phase"
    g.at(T0 + PEEK)
    assert g.state.status == "playing" and g.turn_player == "p1"
    assert kinds(g.last) == ["turn_started"]
    err = g.refuse("p1", "ready")
    assert (err.code, err.rule) == ("wrong_phase", "R16.2")


def test_r16_2_ready_after_ten_seconds_without_advance_is_refused() -> None:
    g = start(HANDS, dealer=2, ready=False)
    g.now = T0 + PEEK  # apply() ends the peek phase first
    assert g.refuse("p1", "ready").code == "wrong_phase"


def test_r16_2_disconnected_players_are_not_waited_for() -> None:
    g = lobby(3, deck=None)
    g.act("p1", "start")
    g.connect("p3", False)
    g.act("p1", "ready")
    assert g.state.status == "peek"
    g.act("p2", "ready")
    assert g.state.status == "playing"


def test_r16_2_a_disconnect_completes_the_peek_phase() -> None:
    g = start(HANDS, dealer=2, ready=False)
    g.at(T0 + 3000)
    g.act("p1", "ready")
    g.act("p3", "ready")
    g.at(T0 + 4000)
    g.connect("p2", False)
    assert [(e.kind, e.data) for e in g.last] == [
        ("disconnected", {"player": "p2"}), ("turn_started", {"player": "p1", "final": False})]
    assert g.state.status == "playing"
    assert g.view("p1")["turn"]["may_start_at"] == T0 + 4000


def test_r16_2_a_reconnect_before_everyone_is_ready_keeps_the_phase_open() -> None:
    g = start(HANDS, dealer=2, ready=False)
    g.connect("p3", False)
    g.act("p1", "ready")
    g.connect("p3", True)
    g.act("p2", "ready")
    assert g.state.status == "peek"  # p3 is back and has not confirmed
    g.act("p3", "ready")
    assert g.state.status == "playing"


def test_r16_2_with_nobody_connected_the_phase_lasts_ten_seconds() -> None:
    g = start(HANDS, dealer=2, ready=False)
    for p in g.ids:
        g.connect(p, False)
    assert g.state.status == "peek"
    g.at(T0 + PEEK)
    assert g.state.status == "playing"


def test_r16_2_every_round_has_a_peek_phase() -> None:
    g = start(HANDS, stock=["5C", "6C", "7C"], dealer=2)
    call_and_finish(g, "p1")
    g.at(g.now + 5000)
    g.act("p1", "next_round")
    assert g.state.status == "peek"
    assert g.view("p1")["peek_ends_at"] == g.now + PEEK
    for p in g.ids:
        peeks = [e for e in g.seen(p) if e["kind"] == "peek"]
        assert [e["slot"] for e in peeks] == ["left", "right"]
        assert [e["card"] for e in peeks] == [g.hand(p)[0], g.hand(p)[2]]


# -- R16.3 -----------------------------------------------------------------------------


def test_r16_3_a_reconnecting_player_gets_the_table_but_not_the_peeked_cards() -> None:
    g = start(HANDS, stock=["JH", "5C"], dealer=2)
    g.draw()
    g.act("p1", "jack")
    g.connect("p1", False)
    g.connect("p1", True)
    assert "peek" not in kinds(g.last)
    v = g.view("p1")
    assert set(card_strings(v)) <= {"JH"}  # only the discard top


def test_r16_3_the_only_hidden_card_in_a_snapshot_is_the_one_held_now() -> None:
    g = start(HANDS, stock=["9H", "5C"], dealer=2)
    g.draw()
    g.connect("p1", False)
    g.connect("p1", True)
    v = g.view("p1")
    assert v["holding"] == "9H"
    assert set(card_strings(v)) == {"9H"}
    for p in ("p2", "p3"):
        assert g.view(p)["holding"] is None and set(card_strings(g.view(p))) == set()
    g.act("p1", "swap", slot="left")
    assert g.view("p1")["holding"] is None
    assert set(card_strings(g.view("p1"))) == {"AS"}


# -- R16.4 -----------------------------------------------------------------------------


def test_r16_4_face_up_information_is_public() -> None:
    g = start(HANDS, stock=["9H", "KD", "5C", "6C", "7C"], dealer=2,
              options=Options(discard_draw=True))
    g.play_turn()  # p1 discards 9H
    g.draw(source="discard")  # p2 takes it
    g.act("p2", "swap", slot="left")
    g.act("p2", "crisp")
    for p in g.ids:
        v = g.view(p)
        assert v["discard_top"] == "4S" and v["discard_count"] == 1
        assert v["stock_count"] == 52 - 9 - 1
        assert v["crisp"]["caller"] == "p2"
        seen = g.seen(p, g.log)
        assert {"kind": "drew", "player": "p2", "source": "discard", "card": "9H"} in seen
        assert {"kind": "discarded", "player": "p1", "card": "9H", "timeout": False} in seen
        assert {"kind": "crisp", "player": "p2"} in seen
    g.draw()
    for p in g.ids:
        assert g.view(p)["turn"]["drawn_from"] == "stock"


# -- R16.5 -----------------------------------------------------------------------------


def test_r16_5_the_host_starts_the_next_round() -> None:
    g = start(HANDS, stock=["5C", "6C", "7C"], dealer=2)
    assert g.refuse("p1", "next_round").code == "wrong_phase"
    call_and_finish(g, "p1")
    err = g.refuse("p2", "next_round")
    assert err.code == "not_host"
    g.act("p1", "next_round")
    assert kinds(g.last) == ["round_started"] + ["peek"] * 6
    assert redact(g.last[0], "p2") == {"kind": "round_started", "round": 2, "dealer": "p1"}
    # R18.2: the deal is sealed in the event, for the round's record only
    deal = g.last[0].data
    assert set(g.last[0].sealed) == {"hands", "stock", "discard"} and deal["discard"] == []
    assert deal["hands"] == {p.id: [c.text for c in p.hand] for p in g.state.players}
    assert deal["stock"] == [c.text for c in reversed(g.state.stock)]
    assert g.state.status == "peek" and g.view("p2")["round"] == 2
    assert sorted(cards_in(g.state)) == sorted(ALL_CARDS)
    assert g.view("p2")["discard_count"] == 0
    assert g.view("p2")["last_round"]["round"] == 1  # the last reveal stays in the view
    assert all(pl["cards"] == [None] * 3 for pl in g.view("p2")["players"])
    assert g.view("p2")["crisp"] == {"caller": None, "window": None, "windows": [],
                                     "final_turns_left": []}


def test_r16_5_or_when_every_player_confirms() -> None:
    # `ready` at round_over is a documented addition to the protocol
    g = start(HANDS, stock=["5C", "6C", "7C"], dealer=2)
    call_and_finish(g, "p1")
    for p in g.ids:
        assert "ready" in g.legal(p)
    g.act("p2", "ready")
    g.act("p3", "ready")
    assert g.state.status == "round_over"
    assert [pl["ready"] for pl in g.view("p1")["players"]] == [False, True, True]
    g.act("p1", "ready")
    assert kinds(g.last)[:2] == ["ready", "round_started"]
    assert g.state.status == "peek" and g.state.round == 2


def test_r16_5_a_disconnected_player_must_confirm_too() -> None:
    g = start(HANDS, stock=["5C", "6C", "7C"], dealer=2)
    call_and_finish(g, "p1")
    g.connect("p3", False)
    g.act("p1", "ready")
    g.act("p2", "ready")
    assert g.state.status == "round_over"  # the host may still go on
    g.act("p1", "next_round")
    assert g.state.status == "peek"


def test_r16_5_rematch_returns_to_the_lobby_with_the_same_seats_and_options() -> None:
    # issue 11 (was: the rematch dealt at once): everyone goes back to the lobby with
    # the same seats and options, totals reset; the host may change options and start
    opts = Options(limit=50, draw_seconds=45, discard_draw=True)
    g = start(HANDS, stock=["5C", "6C", "7C"], dealer=2, options=opts)
    with_totals(g, {"p3": 49})
    call_and_finish(g, "p1")
    assert g.state.status == "game_over"
    assert g.refuse("p2", "rematch").code == "not_host"
    assert g.refuse("p1", "ready").code == "wrong_phase"
    g.act("p1", "rematch")
    assert [(e.kind, e.data) for e in g.last] == [("rematch", {"player": "p1"})]
    assert g.state.status == "lobby"
    for p in g.ids:
        v = g.view(p)
        assert v["status"] == "lobby" and v["round"] == 0 and v["dealer"] is None
        assert v["winners"] == [] and v["last_round"] is None and v["history"] == []
        assert v["turn"] is None and v["stock_count"] == 0 and v["discard_top"] is None
        assert [(pl["id"], pl["seat"], pl["total"], pl["cards"]) for pl in v["players"]] == [
            ("p1", 0, 0, [None] * 3), ("p2", 1, 0, [None] * 3), ("p3", 2, 0, [None] * 3)]
        assert v["options"] == {"limit": 50, "draw_seconds": 45, "discard_draw": True,
                                "watchers": True}
    assert cards_in(g.state) == [] and all(p.looks == [] for p in g.state.players)
    assert g.plays("p1") == ["options", "start"]
    g.act("p1", "options", limit=100)
    g.act("p1", "start")
    assert kinds(g.last)[0] == "round_started" and g.state.round == 1
    assert sorted(cards_in(g.state)) == sorted(ALL_CARDS)


def test_r16_5_a_rematch_draws_a_new_first_dealer_at_random() -> None:
    class Fixed(random.Random):
        def randrange(self, n: int) -> int:  # type: ignore[override]
            return 1

    g = start(HANDS, stock=["5C", "6C", "7C"], dealer=2)
    with_totals(g, {"p3": 99})
    call_and_finish(g, "p1")
    g.rng = Fixed(3)
    g.act("p1", "rematch")
    g.act("p1", "start")
    assert g.view("p1")["dealer"] == "p2"


def test_r16_5_next_round_in_a_rematch_moves_the_dealer_on() -> None:
    g = start(HANDS, stock=["5C", "6C", "7C"], dealer=2)
    with_totals(g, {"p3": 99})
    call_and_finish(g, "p1")
    g.act("p1", "rematch")
    g.act("p1", "start")
    first = g.state.dealer
    assert first is not None
    g.ready_all()
    call_and_finish(g)
    g.act("p1", "next_round")
    assert g.state.dealer == (first + 1) % 3


# -- randomness ------------------------------------------------------------------------


def test_csprng_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    assert isinstance(engine_table._SYSTEM_RNG, secrets.SystemRandom)
    calls: list[str] = []
    real_shuffle = random.SystemRandom.shuffle
    real_randrange = random.SystemRandom.randrange

    def shuffle(self: random.SystemRandom, x: list[object]) -> None:
        calls.append("shuffle")
        real_shuffle(self, x)

    def randrange(self: random.SystemRandom, *a: int) -> int:
        calls.append("randrange")
        return real_randrange(self, *a)

    monkeypatch.setattr(random.SystemRandom, "shuffle", shuffle)
    monkeypatch.setattr(random.SystemRandom, "randrange", randrange)
    g = lobby(4)
    state, events = apply(g.state, "p1", START, T0)  # no rng passed
    assert calls[:2] == ["randrange", "shuffle"]
    assert state.status == "peek" and state.dealer in range(4)
    assert sorted(cards_in(state)) == sorted(ALL_CARDS)
    assert kinds(events)[0] == "round_started"


def test_csprng_shuffles_differ() -> None:
    deals = set()
    for _ in range(5):
        g = lobby(2)
        state, _ = apply(g.state, "p1", START, T0)
        deals.add(tuple(cards_in(state)))
    assert len(deals) == 5


def test_a_seeded_rng_gives_reproducible_deals() -> None:
    def deal(seed: int) -> list[str]:
        g = lobby(3)
        state, _ = apply(g.state, "p1", START, T0, random.Random(seed))
        return cards_in(state)

    assert deal(5) == deal(5)
    assert deal(5) != deal(6)


def test_the_test_deck_is_for_the_first_round_only() -> None:
    g = start(HANDS, stock=["5C", "6C", "7C"], dealer=2)
    call_and_finish(g, "p1")
    g.act("p1", "next_round")
    assert g.hands() != HANDS
    assert g.state.test_deck is None


def test_test_decks_are_for_the_first_rounds_in_order() -> None:
    """52 x k test cards are k decks, one per round (protocol v2's `decks`); then
    the rounds shuffle. Round 2's dealer is the next seat (R2.1)."""
    from tests.support.decks import deck_for

    second = {"p1": ["KH", "QH", "JH"], "p2": ["TH", "9H", "8H"], "p3": ["7H", "6H", "5H"]}
    first_deck, second_deck = deck_for(HANDS, (), 2), deck_for(second, (), 0)
    g = lobby(3, deck=[*first_deck, *second_deck], dealer=2)
    g.act("p1", "start")
    assert g.hands() == HANDS and len(g.state.test_deck or ()) == 52
    for p in ("p1", "p2", "p3"):
        g.act(p, "ready")
    call_and_finish(g, "p1")
    g.act("p1", "next_round")
    assert g.hands() == second and g.state.test_deck is None
    with pytest.raises(ValueError):  # each 52 must be a deck
        engine_table.new_table("A", test_deck=[*first_deck, *first_deck[:51]])


def test_set_connected_reports_presence() -> None:
    g = lobby(2, connect=False)
    assert [pl["connected"] for pl in g.view("p1")["players"]] == [False, False]
    g.connect("p2")
    assert g.seen("p1") == [{"kind": "connected", "player": "p2"}]
    same, events = set_connected(g.state, "p2", True, g.now)
    assert same is g.state and events == []
    g.connect("p2", False)
    assert g.seen("p1") == [{"kind": "disconnected", "player": "p2"}]


def test_r16_3_peeks_are_addressed_to_a_seat_even_if_it_is_disconnected_at_the_deal() -> None:
    # the engine emits them; a player away at the deal does not get them later (R16.3)
    g = start(HANDS, dealer=2, ready=False, connect=False)
    assert [(e.to, e.data["slot"]) for e in g.log if e.kind == "peek"] == [
        (p, s) for p in ("p1", "p2", "p3") for s in ("left", "right")]
    g.connect("p2")
    assert "peek" not in kinds(g.last)
