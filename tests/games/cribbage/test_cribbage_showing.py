"""C7 the show: order, pace, the crib last, counting out, the hand's end."""

from __future__ import annotations

from dataclasses import replace

from crisp.games.cribbage.show_score import show_points
from tests.games.cribbage.helpers import Table, build_deck

P1 = ["5D", "6S", "9C", "8H"]
P2 = ["4H", "5S", "6D", "7C"]
CRIB = ["KD", "QD", "KC", "QC"]


def at_show(n: int = 2, **kw: object) -> Table:
    if n == 2:
        deck = build_deck([[*P1, "KD", "QD"], [*P2, "KC", "QC"]], dealer=0, starter="5H")
        t = Table(2, decks=[deck], dealer=0, **kw)  # type: ignore[arg-type]
        t.give("p1", "KD", "QD")
        t.give("p2", "KC", "QC")
    else:
        t = Table(n, dealer=0, seed=11, **kw)  # type: ignore[arg-type]
    t.play_to(lambda s: s.status != "give" and s.status != "play")
    return t


def test_c7_1_hands_are_counted_from_the_player_after_the_dealer_then_the_crib() -> None:
    t = at_show()
    t.play_to(lambda s: s.status == "hand_over")
    assert [e.whose for e in t.state.show] == ["p2", "p1", "crib"]
    t3 = at_show(3)
    t3.play_to(lambda s: s.status in ("hand_over", "game_over"))
    assert [e.whose for e in t3.state.show] == ["p2", "p3", "p1", "crib"]


def test_c7_2_each_hand_is_shown_with_its_items_and_lasts_show_ms() -> None:
    t = at_show()
    assert t.state.status == "show" and t.view(None)["show"] == []
    t.wait(2_500)
    v = t.view(None)
    assert len(v["show"]) == 1
    first = v["show"][0]
    assert first["whose"] == "p2" and first["claimed"] is None
    assert first["points"] == show_points(first["cards"], "5H")
    assert sum(i["points"] for i in first["items"]) == first["points"]
    t.wait(2_499)
    assert len(t.state.show) == 1
    t.wait(1)
    assert len(t.state.show) == 2
    assert t.of("shown")[0] == first


def test_c7_3_the_crib_is_shown_last_for_the_dealer() -> None:
    t = at_show()
    t.wait(5_000)
    assert t.view("p1")["crib"]["cards"] is None
    before = t.state.scores[0]
    t.wait(2_500)
    crib = t.view("p2")["show"][-1]
    assert crib["whose"] == "crib" and sorted(crib["cards"]) == sorted(CRIB)
    assert t.view("p2")["crib"]["cards"] is not None
    assert crib["points"] == show_points(crib["cards"], "5H", crib=True)
    assert t.state.scores[0] == before + crib["points"]


def test_c7_4_counting_out_the_pone_wins_before_the_dealer_counts() -> None:
    t = at_show()
    h2 = show_points(P2, "5H")
    assert h2 > 0
    t.state = replace(t.state, scores=(120, 121 - h2))
    t.until_due()
    assert t.state.status == "game_over"
    assert t.of("game_over")[-1]["winners"] == ["p2"]
    assert [e.whose for e in t.state.show] == ["p2"]  # the dealer never counted
    assert t.state.scores == (120, 121)


def test_c7_5_the_next_hand_when_everyone_is_ready_or_20_s_after_the_show() -> None:
    t = at_show()
    t.play_to(lambda s: s.status == "hand_over")
    assert t.of("hand_over")[-1]["scores"] == {"p1": t.state.scores[0], "p2": t.state.scores[1]}
    due = t.state.next_at
    assert due is not None
    crib_at = t.now
    assert due - crib_at == 2_500 + 20_000
    t.send("p1", {"type": "ready"})
    assert t.state.status == "hand_over"
    t.send("p2", {"type": "ready"})
    assert t.state.status == "give" and t.state.hand_no == 2
    u = at_show()
    u.play_to(lambda s: s.status == "hand_over")
    u.until_due()
    assert u.state.status == "give" and u.state.hand_no == 2


def test_c7_5_the_time_scale_scales_the_show() -> None:
    t = at_show(time_scale=0.1)
    t.wait(500)
    assert len(t.state.show) == 2
