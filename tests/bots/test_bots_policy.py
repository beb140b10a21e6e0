"""What the bots choose in set positions (stacked decks), and when they act (R17.1)."""

from __future__ import annotations

import random

import pytest

from crisp.bots import (
    CRISP_THINK_MS,
    THINK_MS,
    Memory,
    act_at,
    choose,
    decide,
    random_move,
    think_ms,
)
from crisp.bots.knowledge import Knowledge
from crisp.bots.normal import FINAL_GAIN
from crisp.engine import Options, action_from_dict
from crisp.engine.timing import START_DELAY_MS, WINDOW_MS
from tests.bots.helpers import BotSeat
from tests.engine.helpers import lobby, start

# dealer p2, so p1 plays first
HANDS = {"p1": ["9C", "5D", "2S"], "p2": ["KH", "4C", "8H"]}
LOW = {"p1": ["AC", "2D", "2S"], "p2": ["KH", "4C", "8H"]}


def after_first_draw(hands: dict[str, list[str]], stock: list[str], level: str = "normal",
                     **kw: object) -> BotSeat:
    g = start(hands, stock=stock, dealer=1, **kw)  # type: ignore[arg-type]
    bot = BotSeat(g, "p1", level)
    assert bot.play() == {"type": "draw", "source": "stock"}
    return bot


@pytest.mark.parametrize("level", ["easy", "normal", "hard", "random"])
def test_r16_2_every_level_confirms_the_peek(level: str) -> None:
    g = start(HANDS, dealer=1, ready=False)
    assert BotSeat(g, "p1", level).choose() == {"type": "ready"}


@pytest.mark.parametrize("level", ["easy", "normal", "hard", "random"])
def test_r17_1_a_bot_never_takes_the_hosts_decisions(level: str) -> None:
    g = lobby(3)
    assert "start" in g.legal("p1")
    assert BotSeat(g, "p1", level).choose() is None


@pytest.mark.parametrize("level", ["easy", "normal", "hard"])
def test_r5_1_a_low_card_replaces_the_highest_known_card(level: str) -> None:
    bot = after_first_draw(HANDS, ["AH"], level)
    assert bot.choose() == {"type": "swap", "slot": "left"}


@pytest.mark.parametrize("level", ["easy", "normal"])
def test_r5_2_a_high_card_is_discarded(level: str) -> None:
    bot = after_first_draw({"p1": ["3C", "5D", "2S"], "p2": HANDS["p2"]}, ["8D"], level)
    assert bot.choose() == {"type": "discard"}


def test_r5_1_normal_puts_a_low_card_in_for_an_unknown_middle() -> None:
    bot = after_first_draw({"p1": ["3C", "5D", "2S"], "p2": HANDS["p2"]}, ["AD"])
    assert bot.choose() == {"type": "swap", "slot": "middle"}


@pytest.mark.parametrize("level", ["easy", "normal", "hard"])
def test_r7_the_jack_looks_at_an_unknown_middle_once(level: str) -> None:
    bot = after_first_draw(HANDS, ["JS", "3H", "JD"], level)
    assert bot.play() == {"type": "jack"}
    assert bot.memory.hand("p1") == ["9C", "5D", "2S"]
    bot.g.play_turn("discard")  # p2 draws the 3H
    bot.g.until_may_start()
    assert bot.play() == {"type": "draw", "source": "stock"}
    assert bot.choose() == {"type": "discard"}  # the middle is known: the second Jack is not used


def test_r8_normal_hands_its_highest_known_card_to_the_opponent() -> None:
    bot = after_first_draw(HANDS, ["QS"])
    message = bot.choose()
    assert message is not None and message["type"] == "queen"
    assert (message["slot"], message["target"]) == ("left", "p2")
    bot.play()
    assert bot.memory.hand("p2")[["left", "middle", "right"].index(message["target_slot"])] == "9C"


def test_r8_normal_keeps_the_queen_when_it_knows_no_high_card() -> None:
    bot = after_first_draw({"p1": ["AC", "5D", "2S"], "p2": HANDS["p2"]}, ["QS"])
    assert bot.choose() == {"type": "discard"}


def test_r8_easy_never_plays_the_queen() -> None:
    bot = after_first_draw(HANDS, ["QS"], "easy")
    assert bot.choose() == {"type": "discard"}


@pytest.mark.parametrize("level", ["easy", "normal", "hard", "random"])
def test_r6_3_a_king_from_the_stock_is_always_played(level: str) -> None:
    g = start(HANDS, stock=["KD"], dealer=1)
    g.draw()
    assert BotSeat(g, "p1", level).choose() == {"type": "king"}


def test_r13_normal_takes_a_good_card_from_the_pile_and_swaps_it_for_its_worst() -> None:
    g = start(HANDS, stock=["AD"], dealer=1, options=Options(discard_draw=True))
    g.draw()
    g.act("p1", "discard")
    bot = BotSeat(g, "p2")
    g.until_may_start()
    assert bot.play() == {"type": "draw", "source": "discard"}
    assert bot.choose() == {"type": "swap", "slot": "left"}  # the KH


def test_r13_normal_leaves_a_poor_pile_card() -> None:
    g = start(HANDS, stock=["9D"], dealer=1, options=Options(discard_draw=True))
    g.draw()
    g.act("p1", "discard")
    g.until_may_start()
    assert BotSeat(g, "p2").choose() == {"type": "draw", "source": "stock"}


def test_r13_2_a_pile_card_always_goes_into_the_hand() -> None:
    g = start(HANDS, stock=["TD"], dealer=1, options=Options(discard_draw=True))
    g.draw()
    g.act("p1", "discard")
    g.until_may_start()
    g.act("p2", "draw", source="discard")
    for level in ("easy", "normal", "hard", "random"):
        message = BotSeat(g, "p2", level).choose()
        assert message is not None and message["type"] == "swap"


@pytest.mark.parametrize("level", ["easy", "normal", "hard"])
def test_r10_a_bot_with_a_low_hand_calls_in_its_window(level: str) -> None:
    bot = after_first_draw(LOW, ["JS"], level)
    bot.play()  # the Jack: the middle is known, the turn ends, the window opens
    assert bot.g.plays("p1") == ["crisp"]
    assert bot.choose() == {"type": "crisp"}


@pytest.mark.parametrize("level", ["easy", "normal", "hard"])
def test_r10_a_bot_with_a_high_hand_does_not_call(level: str) -> None:
    bot = after_first_draw({"p1": ["9C", "8D", "TS"], "p2": HANDS["p2"]}, ["JS"], level)
    bot.play()
    assert bot.g.plays("p1") == ["crisp"]
    assert bot.choose() is None


def test_decide_is_choose_as_an_engine_action() -> None:
    bot = after_first_draw(HANDS, ["AH"])
    bot.sync()
    view = bot.g.view("p1")
    message = choose(view, bot.memory, bot.g.now, random.Random(1))
    assert message is not None
    assert decide(view, bot.memory, bot.g.now, random.Random(1)) == action_from_dict(message)


def test_the_random_policy_plays_every_legal_turn_move() -> None:
    g = start(HANDS, stock=["AH"], dealer=1, options=Options(discard_draw=True))
    g.draw()
    view = g.view("p1")
    rng = random.Random(3)
    seen = {(m["type"], m.get("slot")) for m in
            (random_move(view, rng) for _ in range(300)) if m is not None}
    assert seen == {("discard", None), ("swap", "left"), ("swap", "middle"), ("swap", "right")}


def test_the_random_policy_calls_crisp_now_and_then() -> None:
    bot = after_first_draw(LOW, ["5H"], "random")
    bot.play()
    view = bot.g.view("p1")
    assert view["legal"] == ["kick", "crisp", "leave"]  # the host may remove p2 (R17.5)
    calls = sum(random_move(view, random.Random(i)) is not None for i in range(400))
    assert 20 < calls < 100  # about 15%


# -- timing ----------------------------------------------------------------------------


@pytest.mark.parametrize("scale", [1.0, 0.5, 0.05, 0.01])
def test_r10_4_a_bot_calls_well_inside_the_window_at_any_time_scale(scale: float) -> None:
    rng = random.Random(5)
    pauses = [think_ms({"legal": ["crisp"]}, rng, scale) for _ in range(500)]
    assert max(pauses) <= CRISP_THINK_MS[1] * scale + 1
    assert max(pauses) < START_DELAY_MS * scale < WINDOW_MS * scale
    assert min(pauses) >= CRISP_THINK_MS[0] * scale - 1


@pytest.mark.parametrize("scale", [1.0, 0.05])
def test_r17_1_a_bot_pauses_like_a_person_never_instantly(scale: float) -> None:
    rng = random.Random(6)
    pauses = [think_ms({"legal": ["draw"]}, rng, scale) for _ in range(500)]
    assert THINK_MS == (1000, 2000)
    assert THINK_MS[0] * scale - 1 <= min(pauses) <= max(pauses) <= THINK_MS[1] * scale + 1
    assert max(pauses) - min(pauses) > 0.8 * (THINK_MS[1] - THINK_MS[0]) * scale


def test_act_at_waits_for_the_turn_and_says_none_when_there_is_nothing_to_do() -> None:
    g = start(HANDS, dealer=1)
    g.play_turn("discard")  # p1's turn ends: p2 may start 2 s later (R10.4)
    rng = random.Random(7)
    view = g.view("p2")
    assert view["legal"] == ["leave"]  # a room action: no reason to act (protocol v1.1)
    at = act_at(view, g.now, rng)
    assert at is not None and at >= view["turn"]["may_start_at"]
    assert act_at(g.view("p1"), g.now, rng) is not None  # p1's crisp window
    g.at(g.now + WINDOW_MS)
    assert act_at(g.view("p1"), g.now, rng) is None


def test_a_memory_from_json_plays_the_same_move() -> None:
    bot = after_first_draw(HANDS, ["AH"])
    bot.sync()
    view = bot.g.view("p1")
    copy = Memory.from_json(bot.memory.to_json())
    assert choose(view, copy, bot.g.now, random.Random(0)) == \
        choose(view, bot.memory, bot.g.now, random.Random(0))


# -- issue 26: normal where it was simply wrong, and the hard level -----------------------


def test_r8_normal_breaks_ties_between_queen_targets_at_random() -> None:
    """Every card of p2 is unknown to p1, so all are worth the same to it: the target is
    drawn at random from the seat's own source (the issue saw the left card 73%)."""
    targets = set()
    for seed in range(20):
        g = start(HANDS, stock=["QS"], dealer=1)
        bot = BotSeat(g, "p1", seed=seed)
        bot.play()
        message = bot.choose()
        assert message is not None and message["type"] == "queen"
        assert (message["slot"], message["target"]) == ("left", "p2")  # its 9C, known
        targets.add(message["target_slot"])
    assert targets == {"left", "middle", "right"}


def test_r10_normal_needs_more_to_call_against_more_opponents() -> None:
    """The same hand is less likely to be the lowest at a bigger table (R12.2): the chance
    normal calls on falls with every opponent."""
    chances = []
    for players in (2, 4, 8):
        hands = [["AC", "5D", "3S"]] + [[None, None, None]] * (players - 1)
        g = start(hands, dealer=players - 1)
        bot = BotSeat(g, "p1")
        bot.sync()
        chances.append(Knowledge.of(g.view("p1"), bot.memory).lowest_chance(FINAL_GAIN))
    assert chances[0] > chances[1] > chances[2]
    assert chances[0] > 0.6 > chances[2]


def test_r11_normal_takes_a_callers_card_it_knows_in_its_final_turn() -> None:
    """p2 took p1's 2D from the pile (public, R13.2) and called (R10); in its final turn
    p1's Queen takes that card for its 9C (R8.5)."""
    hands = [["9C", "5D", "8S"], ["KH", "4C", "8H"], ["7D", "6C", "3H"]]
    for seed in range(4):
        g = start(hands, stock=["2D", "TD", "QS"], dealer=2,  # p1 plays first
                  options=Options(discard_draw=True))
        g.play_turn("discard")  # p1 throws the 2D
        g.until_may_start()
        g.act("p2", "draw", source="discard")
        g.act("p2", "swap", slot="left")
        g.act("p2", "crisp")
        g.play_turn("discard")  # p3's final turn
        bot = BotSeat(g, "p1", seed=seed)
        assert bot.play() == {"type": "draw", "source": "stock"}
        assert bot.choose() == {"type": "queen", "slot": "left", "target": "p2",
                                "target_slot": "left"}


def test_r11_normal_swaps_blind_with_the_caller_only_at_a_small_table() -> None:
    """p2 called; p1 knows none of the caller's cards. Head to head (or at 3-4 seats) its
    final Queen still goes to the caller, whose cards are likely low (R8.5); from 5 seats
    on it never swaps blind with the caller: with every final turn gambling on the cards
    the caller bet on, nobody could call (at 8 normals callers end lowest 53% with such
    swaps, 66% without: docs/bots.md), so the Queen goes elsewhere."""
    for players, target in ((2, "p2"), (5, "p3")):
        hands = [["9C", "5D", "2S"], ["KH", "4C", "8H"], ["7D", "6C", "3H"],
                 ["6D", "7C", "5H"], ["4D", "8C", "6H"]][:players]
        stock = ["TD", "9D", "8D", "7H", "QS"][-players:]
        for seed in range(4):
            g = start(hands, stock=stock, dealer=0)  # p2 plays first
            g.play_turn("discard")
            g.act("p2", "crisp")
            while g.turn_player != "p1":
                g.play_turn("discard")  # the final turns of p3.. (R11.1)
            g.until_may_start()
            bot = BotSeat(g, "p1", seed=seed)
            assert bot.play() == {"type": "draw", "source": "stock"}
            message = bot.choose()
            assert message is not None and message["type"] == "queen"
            assert message["slot"] == "left"
            assert (message["target"] == "p2") == (target == "p2")


def test_r11_hard_scores_its_final_turn_against_the_caller() -> None:
    """p2 called with a low hand; p1's final Queen hands its known 9 to the caller: its
    own total falls and the caller's rises (R8.5, R12.2)."""
    hands = [["9C", "5D", "8S"], ["AH", "2C", "3H"]]
    g = start(hands, stock=["TD", "QS"], dealer=0)  # p2 plays first
    g.play_turn("discard")
    g.act("p2", "crisp")
    g.until_may_start()
    bot = BotSeat(g, "p1", "hard", seed=1)
    assert bot.play() == {"type": "draw", "source": "stock"}
    message = bot.choose()
    assert message is not None and message["type"] == "queen"
    assert message["slot"] == "left" and message["target"] == "p2"


@pytest.mark.parametrize(("level", "hands", "stock"), [
    ("normal", HANDS, ["QS"]),  # a Queen with equal targets
    ("hard", {"p1": ["3C", "4D", "2S"], "p2": HANDS["p2"]}, ["9H"]),  # a close call
])
def test_seeded_randomness_the_same_seed_plays_the_same_move(
        level: str, hands: dict[str, list[str]], stock: list[str]) -> None:
    """The seat's random source decides ties (normal) and the tables it samples (hard):
    the same seed gives the same move, other seeds other (equally reasoned) ones."""
    g = start(hands, stock=stock, dealer=1)
    bot = BotSeat(g, "p1", level)
    bot.play()
    if level == "hard":
        bot.play()  # it keeps the 9H somewhere; its crisp window is open
    bot.sync()
    view = g.view("p1")
    moves = [choose(view, bot.memory, g.now, random.Random(seed)) for seed in range(24)]
    assert moves == [choose(view, bot.memory, g.now, random.Random(seed))
                     for seed in range(24)]
    assert len({repr(m) for m in moves}) > 1


def test_r10_hard_calls_on_a_known_low_hand_and_not_on_a_high_one() -> None:
    low = after_first_draw({"p1": ["AC", "2D", "3S"], "p2": HANDS["p2"]}, ["JS"], "hard")
    low.play()  # the Jack shows its middle: 6 in all
    assert low.choose() == {"type": "crisp"}
    high = after_first_draw({"p1": ["9C", "8D", "TS"], "p2": HANDS["p2"]}, ["JS"], "hard")
    high.play()
    assert high.choose() is None
