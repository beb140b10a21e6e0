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
from tests.engine.helpers import Game, card_strings, seen_by, start

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


# -- what the `hard` level reads as well (issue 26) -------------------------------------


def _until_rebuilt(g: Game, bot: BotSeat) -> None:
    while not any(e.kind == "stock_rebuilt" for e in g.log):
        g.play_turn("discard")
        bot.sync()


def test_r4_2_a_stock_rebuilt_from_the_pile_is_known_in_order() -> None:
    g = start(HANDS, dealer=1)
    bot = BotSeat(g, "p1")
    _until_rebuilt(g, bot)
    assert bot.memory.stock == g.stock  # the pile turned over, not shuffled (R4.2)
    while g.turn_player != "p2":
        g.play_turn("discard")
        bot.sync()
    top = g.stock[0]
    assert top[0] not in "JQK"  # a number card p2 can keep unseen (R6.1)
    g.draw()
    g.act("p2", "swap", slot="left")
    bot.sync()
    # p1 saw the card on the pile and knows the order: p2's new left card is known
    assert bot.memory.hand("p2")[0] == top
    assert bot.memory.kept("p2") == [False, False, False]
    assert bot.memory.stock == g.stock
    assert top in bot.memory.cards()


def test_r4_2_a_memory_that_saw_only_the_end_of_the_pile_knows_only_the_bottom() -> None:
    g = start(HANDS, dealer=1)
    full = BotSeat(g, "p1")
    while len(g.stock) > 1:
        g.play_turn("discard")
        full.sync()
    late = Memory("p1")  # starts watching now (an away seat's memory, R17.2)
    late.observe(g.view("p1"), [])
    assert late.pile == g.discard[-1:]
    seen = len(g.log)
    g.play_turn("discard")  # the last stock card
    g.play_turn("discard")  # the pile is turned over (R4.2)
    late.observe(g.view("p1"), seen_by(g.log[seen:], "p1"))
    full.sync()
    assert full.memory.stock == g.stock
    unknown = len(g.stock) - len([c for c in late.stock if c is not None])
    assert late.stock[:unknown] == [None] * unknown
    assert late.stock[unknown:] == g.stock[unknown:]
    assert 0 < unknown < len(g.stock)


def test_memory_reads_the_others_choices_as_soft_bounds() -> None:
    g = start(HANDS, stock=["6D", "3C", "JH"], dealer=1)
    mine = BotSeat(g, "p1")
    g.play_turn("discard")  # p1 throws the 6D
    g.play_turn("swap", slot="left")  # p2 keeps the 3C unseen, throws its known KH (R5.1)
    mine.sync()
    # p2's left is lower than the KH; its right (known to p2) at most the KH
    assert mine.memory.cap("p2") == [9, 10, 10]
    assert mine.memory.knows_of("p2") == 0b101
    g.play_turn("discard")  # p1 throws the Jack: no bound from a face card
    mine.sync()
    assert mine.memory.cap("p1") == [10, 10, 10]  # never about itself


def test_r5_2_a_thrown_number_card_bounds_the_cards_its_player_knows() -> None:
    g = start(HANDS, stock=["AD", "4S"], dealer=1)
    mine = BotSeat(g, "p1")
    g.play_turn("discard")
    g.play_turn("discard")  # p2 throws the 4S: its known left and right are at most 5
    mine.sync()
    assert mine.memory.cap("p2") == [5, 10, 5]


def test_r8_a_queen_moves_bounds_and_what_each_owner_saw() -> None:
    g = start(HANDS, stock=["2D", "4S", "QS"], dealer=1)
    mine = BotSeat(g, "p1")
    g.play_turn("swap", slot="left")  # p1 keeps the 2D
    g.play_turn("discard")  # p2 throws the 4S
    g.draw()
    g.act("p1", "queen", slot="left", target="p2", target_slot="middle")
    mine.sync()
    assert mine.memory.hand("p2") == [None, "2D", None]  # its known card moved (R8.1)
    assert mine.memory.knows_of("p2") == 0b101  # p2 may not look at its middle (R8.3)
    assert mine.memory.cap("p1")[0] == 10  # p2's middle was never bounded


def test_the_added_fields_round_trip_and_older_memories_still_load() -> None:
    memory = Memory("p1", level="hard", round=2, stock=["AS", None, "3D"],
                    aware={"p2": 0b111}, caps={"p2": [4, 10, 10]})
    raw = json.loads(json.dumps(memory.to_json()))
    assert Memory.from_json(raw) == memory
    blank = Memory("p1").to_json()
    assert not {"stock", "aware", "caps"} & set(blank)  # compact when empty
    old = {k: v for k, v in memory.to_json().items()
           if k not in ("stock", "aware", "caps")}  # a room saved before issue 26
    assert Memory.from_json(old).stock == [] and Memory.from_json(old).caps == {}
