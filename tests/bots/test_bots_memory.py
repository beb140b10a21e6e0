"""A seat's memory (R17.1, R17.2): its looks, its own swaps, public pile draws, Queen
swaps that move known cards; nothing it was not shown; exact JSON round trip."""

from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from crisp.bots import Memory
from crisp.bots.selfplay import ALL_OPTIONS, play_game
from crisp.engine import Options, redact
from tests.bots.helpers import BotSeat
from tests.engine.helpers import card_strings, start

# dealer p2, so p1 plays first; hands are [left, middle, right]
HANDS = {"p1": ["9C", "5D", "2S"], "p2": ["KH", "4C", "8H"]}


def test_r2_4_memory_holds_the_peeked_left_and_right_only() -> None:
    g = start(HANDS, dealer=1)
    bot = BotSeat(g, "p1")
    bot.sync()
    assert bot.memory.hand("p1") == ["9C", None, "2S"]
    assert bot.memory.hand("p2") == [None, None, None]
    assert bot.memory.round == 1


def test_r5_1_own_swap_is_remembered_and_the_old_card_is_on_the_pile() -> None:
    g = start(HANDS, stock=["AH"], dealer=1)
    bot = BotSeat(g, "p1")
    g.draw()
    g.act("p1", "swap", slot="left")
    bot.sync()
    assert bot.memory.hand("p1") == ["AH", None, "2S"]
    assert bot.memory.pile == ["9C"]
    assert bot.memory.held is None


def test_r7_1_the_jack_look_fills_the_middle() -> None:
    g = start(HANDS, stock=["JS"], dealer=1)
    bot = BotSeat(g, "p1")
    g.draw()
    g.act("p1", "jack")
    bot.sync()
    assert bot.memory.hand("p1") == ["9C", "5D", "2S"]
    assert bot.memory.pile == ["JS"]


def test_r8_a_queen_swap_moves_the_cards_each_seat_knew() -> None:
    g = start(HANDS, stock=["QS"], dealer=1)
    mine, theirs = BotSeat(g, "p1"), BotSeat(g, "p2")
    g.draw()
    g.act("p1", "queen", slot="left", target="p2", target_slot="middle")
    mine.sync()
    theirs.sync()
    # p1 gave its 9C (known) into p2's middle and looks at what it got in its left (R8.2)
    assert mine.memory.hand("p1") == ["4C", None, "2S"]
    assert mine.memory.hand("p2") == [None, "9C", None]
    # p2 got a card in its middle: no look (R8.3); its own left/right are unchanged
    assert theirs.memory.hand("p2") == ["KH", None, "8H"]
    assert theirs.memory.hand("p1") == [None, None, None]


def test_r8_2_a_look_replaces_what_the_queen_moved() -> None:
    g = start(HANDS, stock=["QS"], dealer=1)
    theirs = BotSeat(g, "p2")
    g.draw()
    g.act("p1", "queen", slot="middle", target="p2", target_slot="left")
    theirs.sync()
    # p2's known KH went to p1's middle; p2 looks at the 5D it received (R8.3, R8.4)
    assert theirs.memory.hand("p2") == ["5D", None, "8H"]
    assert theirs.memory.hand("p1") == [None, "KH", None]


def test_r13_a_card_taken_from_the_pile_is_known_to_everyone() -> None:
    g = start(HANDS, stock=["3D"], dealer=1, options=Options(discard_draw=True))
    mine = BotSeat(g, "p1")
    g.draw()
    g.act("p1", "discard")
    g.draw("discard")
    g.act("p2", "swap", slot="middle")
    mine.sync()
    assert mine.memory.hand("p2") == [None, "3D", None]
    assert mine.memory.kept("p2") == [False, False, False]
    assert mine.memory.pile == ["4C"]


def test_r6_1_a_card_kept_from_the_stock_is_marked_not_known() -> None:
    g = start(HANDS, stock=["6D", "7D"], dealer=1)
    mine = BotSeat(g, "p1")
    g.play_turn("discard")
    g.play_turn("swap", slot="right")
    mine.sync()
    assert mine.memory.hand("p2") == [None, None, None]
    assert mine.memory.kept("p2") == [False, False, True]
    assert mine.memory.pile == ["6D", "8H"]


def test_r9_3_played_kings_lie_aside_until_the_turn_ends() -> None:
    g = start(HANDS, stock=["KD", "3H", "4H"], dealer=1)
    bot = BotSeat(g, "p2")
    g.draw()
    g.act("p1", "king")
    g.act("p1", "draw", source="stock")
    g.act("p1", "discard")
    bot.sync()
    assert bot.memory.kings == ["KD"] and bot.memory.pile == ["3H"]
    assert "KD" in bot.memory.cards()
    g.act("p1", "draw", source="stock")
    g.act("p1", "discard")
    bot.sync()
    assert bot.memory.kings == []
    assert bot.memory.pile == g.discard == ["3H", "4H", "KD"]


def test_r4_2_the_remembered_pile_follows_the_real_one_through_a_rebuilt_stock() -> None:
    g = start(HANDS, dealer=1)
    bot = BotSeat(g, "p1")
    while not any(e.kind == "stock_rebuilt" for e in g.log):
        g.play_turn("discard")
        bot.sync()
        assert bot.memory.pile == g.discard
    assert len(g.discard) < 10  # the pile became the stock and started again


def test_a_new_round_forgets_the_last_one() -> None:
    g = start(HANDS, dealer=1)
    bot = BotSeat(g, "p1")
    bot.sync()
    g.play_turn("discard")
    g.act("p1", "crisp")
    while g.state.status == "playing":
        g.play_turn("discard")
    for p in g.ids:
        g.act(p, "ready")
    assert g.state.round == 2
    bot.sync()
    assert bot.memory.round == 2
    assert bot.memory.pile == []
    assert set(bot.memory.hand("p1")) - {None} == {g.hand("p1")[0], g.hand("p1")[2]}


def test_a_view_of_a_later_round_resets_a_memory_that_missed_the_deal() -> None:
    memory = Memory("p1")
    memory.observe(None, [{"kind": "round_started", "round": 1, "dealer": "p2"},
                          {"kind": "peek", "player": "p1", "slot": "left", "card": "AS"}])
    memory.observe({"status": "peek", "round": 2, "discard_top": None}, [])
    assert memory.round == 2
    assert memory.hand("p1") == [None, None, None]


def test_an_unknown_level_is_refused() -> None:
    try:
        Memory("p1", level="expert")
    except ValueError:
        return
    raise AssertionError("an unknown level was accepted")


@settings(max_examples=12, deadline=None, derandomize=True)
@given(players=st.integers(2, 6), seed=st.integers(0, 2**32 - 1),
       options=st.sampled_from(ALL_OPTIONS))
def test_r17_2_memory_holds_only_what_the_seat_was_shown_and_round_trips(
        players: int, seed: int, options: Options) -> None:
    """Rebuilt from each seat's redacted events, event by event: its memory never holds
    a card that did not reach the seat, and its JSON form is exact at every point."""
    rng = random.Random(seed)
    levels = [rng.choice(("easy", "normal", "random")) for _ in range(players)]
    result = play_game(levels, rng, options=options, keep=True, stall_chance=0.05)
    for pid in result.levels:
        memory, shown = Memory(pid), set()
        for event in result.events:
            mine = redact(event, pid)
            if mine is None:
                continue
            shown.update(card_strings(mine))
            memory.observe(None, [mine])
            assert memory.cards() <= shown
            raw = json.loads(json.dumps(memory.to_json()))
            assert Memory.from_json(raw) == memory
        played = result.memories[pid]  # the memory the seat played with: the same events
        assert memory.to_json() | {"level": played.level} == played.to_json()
