"""Property-based tests over random legal play (hypothesis), 2-8 players, every
option combination:

- all 52 cards are accounted for exactly once in every state;
- versions strictly increase, and no call mutates its input;
- at most one seat may draw or resolve a card at any moment;
- games always terminate;
- legal() never lists an action that apply() then refuses (and apply() refuses the
  types legal() leaves out);
- no view and no redacted event shows a card the seat may not see: each seat's
  knowledge is built only from the events redacted for it, every card in its view
  must be the discard top, its own held card or a revealed round-end card, and
  every card in an event must be public or the seat's own peek / draw;
- a view at any later moment is the view of the state advanced to that moment;
- the state's JSON round trip is exact;
- each seat's record of looks (R16.3) holds only cards that seat was sent, each
  still at its position, at most one per slot, and is empty outside a round.
"""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from crisp.bots import random_message
from crisp.bots.selfplay import play_game
from crisp.engine import (
    ACTION_TYPES,
    Action,
    Card,
    Event,
    IllegalAction,
    Options,
    State,
    action_from_dict,
    add_player,
    advance,
    apply,
    computer_seats,
    legal,
    new_table,
    next_deadline,
    owed_peeks,
    redact,
    set_connected,
    view_for,
)
from crisp.engine.actions import AddBot, Draw, Kick, Leave, SetOptions, Swap, UseQueen
from crisp.engine.presence import paused
from tests.engine.helpers import ALL_CARDS, card_strings, cards_in

TURN_KINDS = {"draw", "swap", "discard", "jack", "queen", "king"}
ROOM_KINDS = {"kick", "add_bot", "leave"}
SLOTS = ("left", "middle", "right")
ALL_OPTIONS = [Options(limit, seconds, dd) for limit, seconds, dd in
               itertools.product((50, 100, 150), (30, 45, 60, None), (False, True))]

options_st = st.builds(Options, st.sampled_from((50, 100, 150)),
                       st.sampled_from((30, 45, 60, None)), st.booleans())
PROPS = settings(max_examples=25, deadline=None, derandomize=True,
                 suppress_health_check=[HealthCheck.too_slow])


def random_action(s: State, seat: int, kind: str, rng: random.Random, now: int) -> Action:
    """A random well-formed action of type `kind` for `seat`, read off its view (the
    `random` policy of crisp.bots); only a draw and a Queen need the view."""
    view = view_for(s, s.players[seat].id, now) if kind in ("draw", "queen") else {}
    return action_from_dict(random_message(view, kind, rng))


def snap(state: State) -> str:
    return json.dumps(state.to_json(), sort_keys=True)


# -- the checker -----------------------------------------------------------------------


@dataclass
class Checker:
    """Follows a table call by call and checks every invariant after each call."""

    state: State
    now: int
    rng: random.Random
    sample_legal: float = 0.15  # how often to try every action type on a state
    knows: dict[str, set[str]] = field(default_factory=dict)
    pile: list[str] = field(default_factory=list)  # the discard pile, from public events
    kings: list[str] = field(default_factory=list)  # the Kings beside the piles (R9.3)
    turn_player: str | None = None  # whose turn it is, from public events
    returns: set[int] = field(default_factory=set)  # when a human connected (R17.6)
    calls: int = 0
    finals: list[str] | None = None  # the final turns still expected after a call (R11.1)
    totals: dict[str, int] = field(default_factory=dict)

    def ids(self) -> list[str]:
        return [p.id for p in self.state.players]

    # every engine call goes through here
    def call(self, fn: Callable[..., Any], *args: Any) -> list[Event]:
        before = self.state
        frozen = snap(before)
        out = fn(before, *args)
        assert snap(before) == frozen, "an engine call mutated its input"
        new: State = out[0]
        events: list[Event] = out[-1]
        if new is before:
            assert events == []
        else:
            assert new.version > before.version, "versions strictly increase"
        self.state = new
        self.calls += 1
        self.check_events(before, events)
        self.check_state()
        return events

    def check_state(self) -> None:
        s = self.state
        if s.status == "lobby":
            assert cards_in(s) == []
        else:
            assert sorted(cards_in(s)) == sorted(ALL_CARDS), "52 cards exactly once"
        if self.calls % 7 == 0:
            raw = s.to_json()
            assert State.from_json(json.loads(json.dumps(raw))).to_json() == raw
        active = []
        views = {}
        for p in self.ids():
            listed = legal(s, p, self.now)
            if TURN_KINDS & set(listed):
                active.append(p)
            views[p] = self.check_view(p, listed)
        assert len(active) <= 1, f"more than one seat may play: {active}"
        if s.status == "playing":
            assert s.turn is not None
            if s.holding is not None:
                assert s.turn.drawn_from in ("stock", "discard")
        self.check_looks()
        self.check_presence()
        self.check_history(views[s.players[0].id])
        if self.rng.random() < self.sample_legal:
            self.check_legal_matches_apply()
        if self.rng.random() < self.sample_legal:
            self.check_view_is_one_moment()

    def check_history(self, first_view: dict[str, Any]) -> None:
        """`history` (protocol v1.1): one entry per finished round of this game, oldest
        first, whose scores add up to its totals; emptied by a rematch (issue 11).
        `first_view`: the first seat's view now (check_view's)."""
        s = self.state
        finished = s.round if s.status in ("round_over", "game_over") else max(0, s.round - 1)
        assert [e.round for e in s.history] == list(range(1, finished + 1))
        running: dict[str, int] = {}
        for e in s.history:
            running = {p: running.get(p, 0) + score for p, score in e.scores.items()}
            assert dict(e.totals) == running
        if s.history and s.status != "lobby":
            assert dict(s.history[-1].totals) == {p.id: p.total for p in s.players}
        if s.status in ("round_over", "game_over") and s.history[-1].caller is not None:
            # the caller's reason is in `scores` alone (docs/protocol-additions.md):
            # -5 (R12.2) exactly when the caller's score + 5 is below every other score
            last, entry = s.last_round, s.history[-1]
            assert last is not None and last.caller == entry.caller
            caller = entry.caller
            others = [v for p, v in entry.scores.items() if p != caller]
            lowest = all(last.sums[caller] < last.sums[p] for p in last.sums if p != caller)
            assert (entry.scores[caller] + 5 < min(others)) == lowest
            assert entry.scores[caller] == last.sums[caller] + (-5 if lowest else 5)
        assert first_view["history"] == [e.to_json() for e in s.history]

    def check_presence(self) -> None:
        """R17: a computer player has no connection; a human seat has a clock while it
        has none and is away only then; the host is a human unless the role is
        pending; the computer acts for bots and away seats only, never while every
        human seat is away (R17.6)."""
        s = self.state
        for p in s.players:
            if p.bot_level is not None:
                assert p.bot_level in ("easy", "normal")
                assert not p.connected and not p.away and p.gone_since is None
            else:
                assert (p.gone_since is None) == p.connected
                assert not (p.away and p.connected)
        host = s.seat_of(s.host)
        if not s.host_pending:
            assert host is not None and s.players[host].bot_level is None, "R17.4"
        assert s.abandoned == all(p.bot_level is not None for p in s.players)
        computer = computer_seats(s, self.now)
        if paused(s):
            assert computer == [], "R17.6: nothing acts while every human is away"
        for pid, level in computer:
            seat = s.seat_of(pid)
            assert seat is not None
            p = s.players[seat]
            assert level == (p.bot_level or "normal") and (p.bot_level or p.away)

    def check_looks(self) -> None:
        """R16.3: the looks kept for each seat were all shown to it and are all valid."""
        s = self.state
        for p in s.players:
            knows = self.knows.setdefault(p.id, set())
            slots = [look.slot for look in p.looks]
            assert len(set(slots)) == len(slots), "one look per slot"
            seqs = [look.seq for look in p.looks]
            assert seqs == sorted(seqs) and all(0 < q <= s.look_seq for q in seqs)
            for look in p.looks:
                assert p.hand[look.slot] is look.card, "a look for a card that has moved"
                assert look.card.text in knows, "a look the seat was never shown"
            if s.status not in ("peek", "playing"):
                assert p.looks == []
            for e in owed_peeks(s, p.id, 0):
                assert redact(e, p.id) is not None
                assert e.data["card"] in knows

    def check_view_is_one_moment(self) -> None:
        """A view at a later time is the view of the state advanced to that time."""
        s = self.state
        due = next_deadline(s)
        later = [self.now + self.rng.randrange(0, 70_000)]
        if due is not None:
            later += [due - 1, due, due + 1]
        for t in later:
            if t < self.now:
                continue
            advanced, _ = advance(s, t)
            for p in self.ids():  # the same table; `version` is the stored state's
                mine, theirs = view_for(s, p, t), view_for(advanced, p, t)
                assert (mine.pop("version"), theirs.pop("version")) == (s.version,
                                                                      advanced.version)
                assert mine == theirs

    def check_view(self, p: str, listed: list[str]) -> dict[str, Any]:
        s = self.state
        v = view_for(s, p, self.now)
        assert v["legal"] == listed
        seat = s.seat_of(p)
        mine = s.turn is not None and s.turn.player == seat and s.status == "playing"
        holding = s.holding.text if (mine and s.holding is not None) else None
        assert v["holding"] == holding
        revealed = s.status in ("round_over", "game_over")
        allowed = {v["discard_top"], holding}
        if v["turn"] is not None:  # R9.3: the Kings beside the piles, public
            assert v["turn"]["kings"] == self.kings
            allowed.update(self.kings)
        for pl in v["players"]:
            if revealed:
                allowed.update(pl["cards"])
            else:
                assert pl["cards"] == [None, None, None], "a hand shown in play"
        if v["last_round"] is not None:
            for h in v["last_round"]["hands"].values():
                allowed.update(h)
        shown = set(card_strings(v))
        assert shown <= allowed - {None}, f"view of {p} shows {shown - allowed}"
        assert shown <= self.knows.setdefault(p, set()), \
            f"view of {p} shows cards never sent to it: {shown - self.knows[p]}"
        if v["discard_top"] is not None:
            assert v["discard_top"] == s.discard[-1].text
        return v

    def check_events(self, before: State, events: list[Event]) -> None:
        after = self.state
        batch_kinds = [e.kind for e in events]
        # peeks come only with a deal, a Jack or a Queen, to the right player (R16.3)
        peeks = [e for e in events if e.kind == "peek"]
        if peeks:
            assert {"round_started", "jack", "queen"} & set(batch_kinds)
        for i, e in enumerate(events):
            if e.kind == "peek":
                assert e.to == e.data["player"]
                cause = [x.kind for x in events[:i] if x.kind != "peek"][-1]
                assert cause in ("round_started", "jack", "queen"), cause
                if cause == "jack":  # R7.1
                    assert e.data["slot"] == "middle"
                else:  # R2.4, R8.2, R8.3: never a middle card
                    assert e.data["slot"] in ("left", "right")
            else:
                assert e.to is None
            # the server-side look seq: on every peek and on a swap of a drawn card
            assert (e.look is not None) == (e.kind in ("peek", "swapped")), e
            if e.look is not None:
                assert before.look_seq < e.look <= after.look_seq
        if "round_started" in batch_kinds:  # R2.4: left and right, once, for everyone
            got = sorted((e.data["player"], e.data["slot"]) for e in peeks)
            assert got == sorted((p.id, s) for p in after.players for s in ("left", "right"))
        ids = [p.id for p in after.players]
        public: list[dict[str, Any]] | None = None
        for p in ids:
            knows = self.knows.setdefault(p, set())
            mine = []
            for e in events:
                r = redact(e, p)
                if r is None:
                    assert e.to is not None and e.to != p
                    continue
                mine.append(r)
                self.check_event_cards(p, r, after)
                knows.update(card_strings(r))
            shared = [r for r in mine if r["kind"] not in ("peek", "drew")]
            if public is None:
                public = shared
            assert shared == public, "public events differ between seats"
        self.follow_pile(events)
        self.referee(before, events)
        if after.status != "lobby":
            assert self.pile == [c.text for c in after.discard], \
                "the public events do not explain the discard pile"

    def check_event_cards(self, p: str, r: dict[str, Any], after: State) -> None:
        kind = r["kind"]
        rest = dict(r)
        if kind == "peek":
            assert r["player"] == p
            seat = after.seat_of(p)
            assert seat is not None
            hand = after.players[seat].hand
            card = hand[SLOTS.index(r["slot"])]
            assert card is not None and r["card"] == card.text
            rest.pop("card")
        elif kind == "drew":
            if r["source"] == "stock" and r["player"] != p:
                assert r["card"] is None, "a stock draw shown to another seat"
            elif r["source"] == "stock":
                assert after.holding is not None and r["card"] == after.holding.text
            rest.pop("card")
        elif kind == "swapped":
            rest.pop("discarded")
        elif kind in ("discarded", "jack", "queen", "king"):
            rest.pop("card")
            if kind != "discarded":
                assert r["card"][0] == kind[0].upper()
        elif kind == "round_over":
            rest.pop("hands")
        assert list(card_strings(rest)) == [], f"unexpected card in {r}"

    def referee(self, before: State, events: list[Event]) -> None:
        """Rule-level checks that hold in any game: R2.1, R10.4, R11, R12, R14.3."""
        after = self.state
        ids = [p.id for p in after.players]
        n = len(ids)
        for e in events:
            d = e.data
            if e.kind == "turn_started":
                self.turn_player = d["player"]
            if e.kind == "round_started":
                self.finals = None
                if d["round"] == 1:
                    self.totals = dict.fromkeys(ids, 0)
                else:  # R2.1: the dealer moves one seat clockwise
                    assert before.dealer is not None
                    assert d["dealer"] == ids[(before.dealer + 1) % n]
            elif e.kind == "crisp":
                # R11.1, R10.4 (revised): the turn in progress is the first final turn
                # still to play; turns that ended since the caller's were final turns
                caller = ids.index(d["player"])
                assert self.turn_player is not None
                first = (ids.index(self.turn_player) - caller) % n
                self.finals = [ids[(caller + k) % n] for k in range(first, n)] if first else []
            elif e.kind == "turn_started" and self.finals is not None:
                assert d["final"] is True
                assert self.finals and d["player"] == self.finals[1], "final turn order"
                self.finals.pop(0)
            elif e.kind == "round_over":
                # R11.1: after the last final turn, or at once when the call came after
                # every other player's turn had ended (R10.4 revised)
                assert self.finals is not None and len(self.finals) <= 1, "R11.1"
                caller = d["caller"]
                assert caller is not None  # a round ends only after a call
                hands = d["hands"]
                sums = {p: sum(Card.parse(c).value for c in hands[p]) for p in ids}
                assert d["sums"] == sums  # R12.1
                low = all(sums[caller] < v for p, v in sums.items() if p != caller)
                scores = dict(sums)
                scores[caller] += -5 if low else 5  # R12.2, R12.3
                assert d["scores"] == scores
                self.totals = {p: self.totals[p] + scores[p] for p in ids}  # R12.4
                assert d["totals"] == self.totals
                self.finals = None
            elif e.kind == "game_over":
                assert max(self.totals.values()) >= after.options.limit  # R12.5
                best = min(self.totals.values())
                assert d["winners"] == [p for p in ids if self.totals[p] == best]  # R12.6
        if after.status == "round_over":
            assert max(self.totals.values()) < after.options.limit
        # R10.4 / R10.5 / R14.3: the hand-over of a turn; R17.6: a human's return to a
        # paused table gives the draw its full time again, from then
        if any(e.kind == "connected" for e in events):
            self.returns.add(self.now)
        turn = after.turn
        ms = after.options.draw_seconds
        if after.status == "playing" and turn is not None and not turn.started:
            if ms is None:
                assert turn.draw_deadline is None
            else:
                assert turn.draw_deadline is not None
                start = turn.draw_deadline - ms * 1000
                assert start == turn.may_start_at or (
                    start > turn.may_start_at and start in self.returns), "R14.3, R17.6"
            if after.windows and after.caller is None:
                w = after.windows[-1]  # the newest window is that of the turn just ended
                assert w.closes_at == turn.may_start_at + 1000
                assert turn.player == (w.player + 1) % n
            assert len(after.windows) <= 2  # a flat 3 s each: the previous and the newest
            assert [w.closes_at for w in after.windows] == sorted(
                w.closes_at for w in after.windows)

    def follow_pile(self, events: list[Event]) -> None:
        """The discard pile and the Kings beside it, from the public events only: a
        King lies aside until its turn ends (a next turn starts or the round ends),
        then goes on the pile in play order (R9.3)."""
        for e in events:
            d = e.data
            if e.kind in ("turn_started", "round_over"):
                self.pile += self.kings
                self.kings = []
            if e.kind in ("round_started", "stock_rebuilt"):
                self.pile = []
            elif e.kind == "swapped":
                self.pile.append(d["discarded"])
            elif e.kind == "king":
                self.kings.append(d["card"])
            elif e.kind in ("discarded", "jack", "queen"):
                self.pile.append(d["card"])
            elif e.kind == "drew" and d["source"] == "discard":
                assert self.pile and self.pile.pop() == d["card"]

    def check_legal_matches_apply(self) -> None:
        s, now = self.state, self.now
        frozen = snap(s)
        for p in self.ids():
            listed = legal(s, p, now)
            for kind in ACTION_TYPES:
                if kind == "options":
                    action: Any = SetOptions(limit=self.rng.choice((50, 100, 150)))
                elif kind == "kick":  # the lobby frees any seat, a game a human one
                    others = [q.id for q in s.players if q.id != p and q.id != s.host
                              and (s.status == "lobby" or q.bot_level is None)]
                    if not others:
                        continue
                    action = Kick(self.rng.choice(others))
                elif kind == "add_bot":
                    action = AddBot(self.rng.choice(("easy", "normal")))
                elif kind == "leave":
                    action = Leave()
                elif kind in ("start", "next_round", "rematch", "ready", "discard", "jack",
                              "king", "crisp", "swap", "queen", "draw"):
                    seat = s.seat_of(p)
                    assert seat is not None
                    if kind == "draw":
                        ok_discard = s.options.discard_draw and bool(s.discard)
                        action = Draw("discard" if ok_discard and self.rng.random() < 0.5
                                      else "stock")
                    elif kind == "swap":
                        action = Swap(self.rng.randrange(3))
                    elif kind == "queen":
                        others = [q for q in self.ids() if q != p] or [p]
                        action = UseQueen(self.rng.randrange(3), self.rng.choice(others),
                                          self.rng.randrange(3))
                    else:
                        action = random_action(s, seat, kind, self.rng, now)
                else:  # pragma: no cover
                    raise AssertionError(kind)
                try:
                    apply(s, p, action, now, self.rng)
                    ok = True
                except IllegalAction as err:
                    ok = False
                    why = err
                if kind in listed:
                    assert ok, f"{p} {kind} listed but refused: {why}"
                else:
                    assert not ok, f"{p} {kind} accepted but not listed"
        assert snap(s) == frozen


# -- the random driver -----------------------------------------------------------------


def random_table(players: int, seed: int, options: Options, *, crisp_chance: float = 0.2,
                 max_calls: int = 30_000, rematches: int = 1) -> Checker:
    """Play a whole game (and maybe a rematch) of random legal moves, with random
    delays, stalls until deadlines, late actions, disconnects and returns, computer
    players, seats that leave or are removed (R17), checking every call.

    Connected humans act whenever they like; a disconnected human cannot act; the
    seats of `computer_seats` (bots, away seats) act only when it lists them."""
    rng = random.Random(seed)
    now = 1_000_000
    c = Checker(new_table("P1", options, now=now), now, rng)
    bots = rng.randrange(0, players)  # at least the host is human
    for i in range(2, players - bots + 1):
        c.call(lambda s, name=f"P{i}": add_player(s, name, c.now))
    for p in c.ids():
        c.call(lambda s, p=p: set_connected(s, p, True, c.now))
    for _ in range(bots):
        level = rng.choice(("easy", "normal"))
        c.call(lambda s, level=level: apply(s, "p1", AddBot(level), c.now, rng))
    c.call(lambda s: apply(s, "p1", SetOptions(limit=options.limit), c.now, rng))
    c.call(lambda s: apply(s, "p1", random_action(s, 0, "start", rng, c.now), c.now, rng))
    games = 1
    while c.calls < max_calls:
        s = c.state
        humans = [p for p in s.players if p.bot_level is None]
        if s.status == "game_over":
            if games > rematches:
                return c
            host = [p for p in c.ids() if "rematch" in legal(s, p, c.now)]
            if not host:  # R17.4: the role waits for the first human who connects
                p = rng.choice([h.id for h in humans if not h.connected])
                c.call(lambda s, p=p: set_connected(s, p, True, c.now))
                continue
            games += 1
            c.call(lambda s, p=host[0]: apply(s, p, random_action(s, 0, "rematch", rng, c.now),
                                                c.now, rng))
            continue
        if s.status == "lobby":  # after a rematch (issue 11): maybe new options, then start
            host = [p for p in c.ids() if "start" in legal(s, p, c.now)]
            if not host:  # R17.4: the role waits for the first human who connects
                p = rng.choice([h.id for h in humans if not h.connected])
                c.call(lambda s, p=p: set_connected(s, p, True, c.now))
                continue
            who = host[0]
            if rng.random() < 0.5:
                o = SetOptions(limit=rng.choice((50, 100, 150)), discard_draw=rng.random() < 0.5)
                c.call(lambda s, o=o, who=who: apply(s, who, o, c.now, rng))
            c.call(lambda s, who=who: apply(s, who, random_action(s, 0, "start", rng, c.now),
                                              c.now, rng))
            continue
        roll = rng.random()
        if roll < 0.02:  # a player drops or comes back
            p = rng.choice(humans)
            c.call(lambda s, p=p.id, up=not p.connected: set_connected(s, p, up, c.now))
            continue
        if roll < 0.025 and len(humans) > 1:  # a seat leaves or is removed (R17.5)
            host = [p for p in c.ids() if "kick" in legal(s, p, c.now)]
            if host and rng.random() < 0.5:
                targets = [h.id for h in humans if h.id != host[0]]
                action: Action = Kick(rng.choice(targets))
                who = host[0]
            else:
                who, action = rng.choice(humans).id, Leave()
            c.call(lambda s, who=who, action=action: apply(s, who, action, c.now, rng))
            continue
        if roll < 0.065:  # the clock runs to the next deadline (timeouts, window, peek)
            c.now = next_moment(s, c.now)
            c.call(lambda s: advance(s, c.now))
            continue
        if roll < 0.085:  # a late action: time passes without advance()
            c.now += rng.randrange(0, 70_000)
        computer = {pid for pid, _level in computer_seats(s, c.now)}
        choices = []
        for p in s.players:
            if p.id in computer or (p.bot_level is None and p.connected):
                choices += [(p.id, k) for k in legal(s, p.id, c.now) if k not in ROOM_KINDS]
        crisp = [x for x in choices if x[1] == "crisp"]
        acting = [x for x in choices if x[1] != "crisp"]
        if crisp and rng.random() < crisp_chance:
            p, kind = crisp[0]
        elif acting:
            p, kind = rng.choice(acting)
        else:
            later = next_moment(s, c.now)
            if later == c.now + 1000 and next_deadline(s) is None:  # R17.6: all away
                p = rng.choice([h.id for h in humans if not h.connected])
                c.call(lambda s, p=p: set_connected(s, p, True, c.now))
                continue
            c.now = later
            c.call(lambda s: advance(s, c.now))
            continue
        seat = s.seat_of(p)
        assert seat is not None
        action = random_action(s, seat, kind, rng, c.now)
        c.call(lambda s, p=p, action=action: apply(s, p, action, c.now, rng))
        # quick moves as often as slow ones: a next turn that ends inside the previous
        # player's window, then a late call (R10.4 revised)
        c.now += rng.randrange(0, 300) if rng.random() < 0.5 else rng.randrange(0, 2500)
    raise AssertionError("a random game did not end")


def next_moment(s: State, now: int) -> int:
    """The next deadline or turn start after `now`, else a second later."""
    due = [t for t in (next_deadline(s), s.turn.may_start_at if s.turn else None)
           if t is not None and t > now]
    return min(due) if due else now + 1000


# -- the properties --------------------------------------------------------------------


@PROPS
@given(players=st.integers(2, 8), seed=st.integers(0, 2**32 - 1), options=options_st)
def test_random_play_keeps_every_invariant(players: int, seed: int, options: Options) -> None:
    c = random_table(players, seed, options)
    assert c.state.status == "game_over"


@pytest.mark.parametrize("options", ALL_OPTIONS, ids=lambda o: f"{o.limit}-{o.draw_seconds}-"
                         f"{'dd' if o.discard_draw else 'no-dd'}")
def test_every_option_combination(options: Options) -> None:
    n = 2 + ALL_OPTIONS.index(options) % 7
    c = random_table(n, 1000 + ALL_OPTIONS.index(options), options, rematches=0)
    assert c.state.status == "game_over"
    assert c.state.options == options


@settings(max_examples=60, deadline=None, derandomize=True)
@given(players=st.integers(2, 8), seed=st.integers(0, 2**32 - 1), options=options_st)
def test_random_games_terminate_with_all_cards(players: int, seed: int,
                                               options: Options) -> None:
    record = play_game(["random"] * players, random.Random(seed), options=options, keep=True,
                       stall_chance=0.03, max_steps=50_000)
    assert record.final.status == "game_over"
    assert record.final.winners
    best = min(p.total for p in record.final.players)
    assert record.final.winners == [p.id for p in record.final.players if p.total == best]
    assert any(p.total >= options.limit for p in record.final.players)
    last = 0
    for s in record.states:
        assert sorted(cards_in(s)) == sorted(ALL_CARDS)
        assert s.version >= last
        last = s.version
