"""The protocol view (view_for), event redaction (redact), `legal` against what
apply() accepts, and the exact JSON round trip of the state and events."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from crisp.engine import (
    ACTION_TYPES,
    Event,
    IllegalAction,
    Options,
    State,
    action_from_dict,
    apply,
    legal,
    redact,
    view_for,
)
from tests.engine.helpers import (
    START_DELAY,
    Game,
    call_and_finish,
    card_strings,
    deck_for,
    lobby,
    start,
    with_totals,
)

HANDS = {"p1": ["AS", "2S", "3S"], "p2": ["4S", "5S", "6S"], "p3": ["7S", "8S", "9S"]}

# the protocol view, minus "code" (the server adds it) ...
PROTOCOL_KEYS = {"status", "options", "host", "you", "players", "round", "dealer", "turn",
                 "crisp", "stock_count", "discard_top", "discard_count", "holding", "legal",
                 "last_round", "winners"}
PLAYER_KEYS = {"id", "name", "seat", "connected", "is_bot", "total", "cards",
               "away", "bot_level"}  # away, bot_level: protocol v1.1
TURN_KEYS = {"player", "may_start_at", "draw_deadline", "drawn_from", "extra_draws", "final",
             "kings"}  # protocol v1.1
CRISP_KEYS = {"caller", "window", "final_turns_left", "windows"}  # windows: protocol v1.1
LAST_ROUND_KEYS = {"round", "caller", "hands", "sums", "scores"}
# ... plus the documented additions
VIEW_ADDITIONS = {"peek_ends_at", "version", "history",  # version, history: protocol v1.1
                  "watching"}  # protocol v1.2 (R18.1)
PLAYER_ADDITIONS = {"ready"}


def scenario() -> Iterator[tuple[str, Game]]:
    """A scripted game through every phase and situation; yields (label, game) with
    the game at that moment (do not keep the Game, keep g.state and g.now)."""
    opts = Options(draw_seconds=30, discard_draw=True)
    stock = ["QH", "JH", "KH", "5C", "6C", "7C", "8C", "9C", "TC", "AC"]
    yield "lobby", lobby(3, options=opts, deck=deck_for(HANDS, stock, 2), dealer=2)
    g = start(HANDS, stock=stock, dealer=2, options=opts, ready=False)
    yield "peek", g
    g.act("p2", "ready")
    yield "peek, one ready", g
    g.ready_all()
    yield "first turn", g
    g.act("p1", "draw", source="stock")
    yield "holding a queen from the stock", g
    g.act("p1", "discard")
    yield "window open, next may not start yet", g
    g.at(g.now + START_DELAY)
    yield "window open, next may start", g
    g.act("p2", "draw", source="stock")
    yield "holding a jack, previous window open", g
    g.act("p2", "jack")
    yield "window after a jack", g
    g.draw()
    yield "holding a king", g
    g.act("p3", "king")
    yield "king extra draws owed", g
    g.act("p3", "draw", source="discard")
    yield "holding the jack from the pile, the king beside it", g
    g.act("p3", "swap", slot="middle")
    g.act("p3", "draw", source="stock")
    yield "holding a number card in an extra draw", g
    g.act("p3", "discard")
    g.act("p3", "crisp")
    yield "final turn after a call", g
    g.draw()
    g.act("p1", "swap", slot="left")
    yield "second final turn", g
    g.at(g.deadline())
    yield "round over", g
    with_totals(g, {"p1": 300})
    g.act("p1", "next_round")
    yield "round 2 peek", g
    g.ready_all()
    call_and_finish(g)
    yield "game over", g


def states() -> list[tuple[str, State, int]]:
    return [(label, g.state, g.now) for label, g in scenario()]


STATES = states()


@pytest.mark.parametrize(("label", "state", "now"), STATES, ids=[s[0] for s in STATES])
def test_view_has_every_protocol_field_with_exact_names(label: str, state: State,
                                                        now: int) -> None:
    for p in state.players:
        v = view_for(state, p.id, now)
        assert set(v) == PROTOCOL_KEYS | VIEW_ADDITIONS, label
        assert "code" not in v
        assert v["you"] == p.id and v["host"] == "p1"
        assert set(v["options"]) == {"limit", "draw_seconds", "discard_draw", "watchers"}
        assert v["watching"] is False
        for i, pl in enumerate(v["players"]):
            assert set(pl) == PLAYER_KEYS | PLAYER_ADDITIONS
            assert pl["seat"] == i and pl["id"] == state.players[i].id
        assert set(v["crisp"]) == CRISP_KEYS
        if v["crisp"]["window"] is not None:
            assert set(v["crisp"]["window"]) == {"player", "closes_at"}
        if state.status == "playing":
            assert set(v["turn"]) == TURN_KEYS
            assert v["turn"]["drawn_from"] in ("stock", "discard", None)
        else:
            assert v["turn"] is None
        if v["last_round"] is not None:
            assert set(v["last_round"]) == LAST_ROUND_KEYS
        assert v["status"] in ("lobby", "peek", "playing", "round_over", "game_over")
        assert isinstance(v["stock_count"], int) and isinstance(v["discard_count"], int)
        assert json.loads(json.dumps(v)) == v  # plain JSON


@pytest.mark.parametrize(("label", "state", "now"), STATES, ids=[s[0] for s in STATES])
def test_view_cards_hidden_in_play_revealed_at_round_end(label: str, state: State,
                                                         now: int) -> None:
    for p in state.players:
        v = view_for(state, p.id, now)
        cards = [pl["cards"] for pl in v["players"]]
        if state.status in ("round_over", "game_over"):
            assert cards == [[c and c.text for c in pl.hand] for pl in state.players]
        else:
            assert cards == [[None, None, None]] * len(state.players)


@pytest.mark.parametrize(("label", "state", "now"), STATES, ids=[s[0] for s in STATES])
def test_view_holding_only_for_the_holder(label: str, state: State, now: int) -> None:
    for p in state.players:
        v = view_for(state, p.id, now)
        mine = state.turn is not None and state.players[state.turn.player].id == p.id
        want = state.holding.text if (mine and state.holding is not None) else None
        assert v["holding"] == want
        allowed = {v["discard_top"], want, *(v["turn"] or {}).get("kings", [])}  # R9.3
        if state.status in ("round_over", "game_over") or state.last_round:
            for h in (state.last_round.hands if state.last_round else {}).values():
                allowed.update(h)
        assert set(card_strings(v)) <= allowed - {None}, label


@pytest.mark.parametrize(("label", "state", "now"), STATES, ids=[s[0] for s in STATES])
def test_r18_1_a_watcher_sees_nobody_s_view(label: str, state: State, now: int) -> None:
    """A watcher (viewer None) gets the view of nobody's seat: `you` null, `watching`
    true, nothing held, nothing legal, no card but the public ones, and otherwise the
    same table as every player (R18.1, R16.4)."""
    v = view_for(state, None, now)
    assert set(v) == PROTOCOL_KEYS | VIEW_ADDITIONS, label
    assert v["you"] is None and v["watching"] is True
    assert v["holding"] is None and v["legal"] == []
    allowed = {v["discard_top"], *(v["turn"] or {}).get("kings", [])}
    if state.last_round:
        for h in state.last_round.hands.values():
            allowed.update(h)
    assert set(card_strings(v)) <= allowed - {None}, label
    windows = v["crisp"]["windows"]
    assert v["crisp"]["window"] == (windows[-1] if windows else None)  # the newest
    for p in state.players:
        seat_view = view_for(state, p.id, now)
        for key in set(v) - {"you", "watching", "holding", "legal", "crisp"}:
            assert v[key] == seat_view[key], (label, key)


def _variants(state: State, player: str, kind: str) -> list[dict[str, Any]]:
    """Well-formed messages of a type, with every useful argument."""
    others = [p.id for p in state.players if p.id != player]
    slots = ["left", "middle", "right"]
    if kind == "draw":
        return [{"source": "stock"}, {"source": "discard"}]
    if kind == "swap":
        return [{"slot": s} for s in slots]
    if kind == "queen":
        return [{"slot": s, "target": o, "target_slot": t}
                for s in slots for o in others for t in slots]
    if kind == "kick":
        return [{"player": o} for o in others]
    if kind == "options":
        return [{"limit": 50}, {"draw_seconds": None}, {"discard_draw": True}]
    return [{}]


@pytest.mark.parametrize(("label", "state", "now"), STATES, ids=[s[0] for s in STATES])
def test_legal_matches_what_apply_accepts(label: str, state: State, now: int) -> None:
    for p in state.players:
        listed = legal(state, p.id, now)
        assert view_for(state, p.id, now)["legal"] == listed
        assert listed == [k for k in ACTION_TYPES if k in listed]  # protocol order
        for kind in ACTION_TYPES:
            accepted = []
            for fields in _variants(state, p.id, kind):
                try:
                    apply(state, p.id, action_from_dict({"type": kind, **fields}), now)
                    accepted.append(fields)
                except IllegalAction:
                    pass
            if kind in listed:
                assert accepted, f"{label}: {p.id} {kind} listed but refused"
                if kind in ("swap", "queen", "kick"):
                    assert accepted == _variants(state, p.id, kind)
            else:
                assert not accepted, f"{label}: {p.id} {kind} accepted but not listed"


def test_at_most_one_seat_may_draw_or_resolve_at_once() -> None:
    turn_kinds = {"draw", "swap", "discard", "jack", "queen", "king"}
    for label, state, now in STATES:
        active = [p.id for p in state.players if turn_kinds & set(legal(state, p.id, now))]
        assert len(active) <= 1, label


# -- JSON round trip -------------------------------------------------------------------


@pytest.mark.parametrize(("label", "state", "now"), STATES, ids=[s[0] for s in STATES])
def test_state_json_round_trip_is_exact(label: str, state: State, now: int) -> None:
    raw = state.to_json()
    assert State.from_json(raw).to_json() == raw
    through_text = json.loads(json.dumps(raw))
    back = State.from_json(through_text)
    assert back.to_json() == raw
    assert json.dumps(back.to_json(), sort_keys=True) == json.dumps(raw, sort_keys=True)
    for p in state.players:  # the copy behaves the same
        assert view_for(back, p.id, now) == view_for(state, p.id, now)
        assert legal(back, p.id, now) == legal(state, p.id, now)


def test_a_restored_state_plays_on_identically() -> None:
    g = start(HANDS, stock=["KH", "5C", "6C", "7C"], dealer=2, options=Options(draw_seconds=30))
    g.draw()
    restored = State.from_json(json.loads(json.dumps(g.state.to_json())))
    a, ea = apply(g.state, "p1", action_from_dict({"type": "king"}), g.now)
    b, eb = apply(restored, "p1", action_from_dict({"type": "king"}), g.now)
    assert a.to_json() == b.to_json() and ea == eb


def test_state_json_keeps_the_test_deck_until_the_deal() -> None:
    label, state, _ = STATES[0]
    assert label == "lobby" and state.test_deck is not None and state.test_dealer == 2
    back = State.from_json(json.loads(json.dumps(state.to_json())))
    assert back.test_deck == state.test_deck and back.test_dealer == 2
    assert STATES[1][1].test_deck is None  # used by the deal


def test_event_json_round_trip_keeps_visibility() -> None:
    g = start(HANDS, stock=["QH", "5C"], dealer=2, ready=False)
    g.ready_all()
    g.draw()
    g.act("p1", "queen", slot="left", target="p2", target_slot="right")
    for e in g.log:
        back = Event.from_json(json.loads(json.dumps(e.to_json())))
        assert back == e
        for p in g.ids:
            assert redact(back, p) == redact(e, p)


# -- redact ----------------------------------------------------------------------------


def test_redact_peek_only_to_its_player() -> None:
    e = Event("peek", {"player": "p2", "slot": "left", "card": "AS"}, to="p2")
    assert redact(e, "p2") == {"kind": "peek", "player": "p2", "slot": "left", "card": "AS"}
    assert redact(e, "p1") is None and redact(e, "p3") is None


def test_redact_a_stock_draw_shows_the_card_to_the_drawer_only() -> None:
    g = start(HANDS, stock=["8D"], dealer=2)
    g.act("p1", "draw", source="stock")
    (e,) = g.last
    assert redact(e, "p1") == {"kind": "drew", "player": "p1", "source": "stock", "card": "8D"}
    for p in ("p2", "p3"):
        assert redact(e, p) == {"kind": "drew", "player": "p1", "source": "stock",
                                "card": None}
    assert e.data["card"] == "8D"  # redaction does not change the event


def test_redact_a_discard_draw_is_public() -> None:
    g = start(HANDS, stock=["8D"], dealer=2, options=Options(discard_draw=True))
    g.play_turn()
    g.until_may_start()
    g.act("p2", "draw", source="discard")
    (e,) = g.last
    for p in g.ids:
        assert redact(e, p) == {"kind": "drew", "player": "p2", "source": "discard",
                                "card": "8D"}


def test_redact_everything_else_is_the_same_for_everyone() -> None:
    g = start(HANDS, stock=["JH", "QH", "KH", "5C", "6C", "7C", "8C"], dealer=2)
    g.play_turns(3)
    g.act("p3", "crisp")
    while g.state.status == "playing":
        g.play_turn()
    for e in g.log:
        if e.kind in ("peek", "drew"):
            continue
        views = [redact(e, p) for p in [*g.ids, None]]  # None: a watcher (R18.1)
        public = {k: v for k, v in e.data.items() if k not in e.sealed}  # R18.2: the record's
        assert views[0] == views[1] == views[2] == views[3] == {"kind": e.kind, **public}


# -- engine bugs (tests/engine/BUGS.md) ------------------------------------------------


def _due_moments() -> list[tuple[str, State, int]]:
    """States with a deadline falling due: the peek end, a window close, a timeout."""
    out = []
    g = start(HANDS, stock=["5C", "6C"], dealer=2, options=Options(draw_seconds=30),
              ready=False)
    out.append(("peek end", g.state, g.state.peek_ends_at or 0))
    g.ready_all()
    g.play_turn()
    assert g.state.windows and g.state.turn is not None
    out.append(("window close", g.state, g.state.windows[0].closes_at))
    out.append(("draw timeout", g.state, g.state.turn.draw_deadline or 0))
    return out


@pytest.mark.parametrize(("label", "state", "now"), _due_moments(),
                         ids=[m[0] for m in _due_moments()])
def test_a_view_at_now_describes_one_moment(label: str, state: State, now: int) -> None:
    from crisp.engine import advance

    advanced, _ = advance(state, now)
    for p in state.players:
        v = view_for(state, p.id, now)
        # the view must not depend on whether the server ran advance() first; at the
        # least, the fields must agree with `legal` (e.g. a draw listed for a seat
        # whose turn it is in `turn`, no open `crisp.window` once crisp is refused)
        # `version` is the stored state's: the advance that applies the deadline is a
        # new version, everything else is the same table
        assert v.pop("version") == state.version
        assert view_for(advanced, p.id, now).pop("version") == advanced.version
        shown = view_for(advanced, p.id, now)
        del shown["version"]
        assert v == shown, label
