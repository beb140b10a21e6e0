"""The `Game` adapter (crisp/games/api.py): Cribbage behind the table."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from ..api import JSON, Bot, Ctx, Event, Option, Outcome, Rng, SeatRule, Setup, redact_event
from . import hand, play, show
from .actions import Action, CallMuggins, ClaimPoints, Give, Lay, Ready, parse
from .bots import BOTS
from .cards import DECK, check_deck
from .errors import bad, illegal, not_your_turn, unknown_player, wrong_phase
from .options import CHOICES, SHOW_MS, Options, scaled
from .state import State
from .turns import legal, may_call_muggins, to_act
from .view import cards_of, hidden_from, seat_or_none, seat_view, turn_deadline, view
from .vocabulary import BotLevel, Status

TIMEOUT_LEVEL = BotLevel.NORMAL  # C8.3: on a time-out the computer decides for the seat
MAX_STEPS = 10_000


class Cribbage:
    id = "cribbage"
    seats = SeatRule(min=2, max=4, teams=True)
    options: Mapping[str, Option] = {
        name: Option(default=Options().to_json()[name], choices=choices)
        for name, choices in CHOICES.items()}
    bot_levels: tuple[str, ...] = tuple(b.value for b in BotLevel)

    # -- a new game ---------------------------------------------------------
    def start(self, players: Sequence[str], options: Mapping[str, JSON], setup: Setup,
              ctx: Ctx) -> tuple[State, list[Event]]:
        n = len(players)
        if not self.seats.min <= n <= self.seats.max or len(set(players)) != n:
            raise illegal(f"cribbage is for 2, 3 or 4 players, not {n}", "C1.1")
        opts = Options.parse(options)
        try:
            decks = tuple(check_deck(d) for d in (setup.decks or ()))
        except ValueError as e:
            raise bad(str(e)) from None
        events: list[Event] = []
        dealer = setup.dealer
        previous = setup.previous
        if (dealer is None and isinstance(previous, State)
                and previous.players == tuple(players) and previous.game_points is not None):
            dealer = rematch_dealer(previous)  # C3.2: after a rematch the loser deals first
        cut = dealer is None
        if dealer is not None:
            if not 0 <= dealer < n:
                raise bad(f"no seat {dealer}")
            first = dealer
        else:
            first = hand.cut_for_dealer(players, ctx.rng, events)
        state = State(
            players=tuple(players), options=opts, time_scale=float(setup.time_scale),
            status=Status.GIVE, hand_no=0, dealer=first, decks=decks,
            scores=(0,) * self._sides(n), peg_from=(0,) * self._sides(n),
            dealt=((),) * n, gave=((),) * n, held=((),) * n, laid=((),) * n, crib=(),
            stock=DECK, starter=None, series=(), go=(False,) * n, turn=None, turn_since=ctx.now,
            give_deadline=None, show=(), next_at=None, claim=None, ready=(False,) * n,
            coach=(None,) * n, game_points=None,
            match=tuple((p, int(setup.match.get(p, 0))) for p in players))
        if cut:  # C3.1: the cuts are shown a moment, then the first dealer deals
            wait = scaled(SHOW_MS, state.time_scale)
            return replace(state, status=Status.HAND_OVER, next_at=ctx.now + wait), events
        state = hand.deal(state, ctx.now, ctx.rng, events)
        return state, events

    @staticmethod
    def _sides(n: int) -> int:
        return 2 if n == 4 else n

    # -- actions ------------------------------------------------------------
    def parse(self, message: Mapping[str, JSON]) -> Action:
        return parse(message)

    def apply(self, state: State, player: str, action: Action,
              ctx: Ctx) -> tuple[State, list[Event]]:
        if player not in state.players:
            raise unknown_player(f"no player {player!r} in this game")
        seat = state.seat_of(player)
        events: list[Event] = []
        if state.status is Status.GAME_OVER:
            raise wrong_phase("the game is over", "C2.1")
        if isinstance(action, Give):
            state = hand.give(state, seat, action.cards, ctx.now, events)
        elif isinstance(action, Lay):
            state = play.lay(state, seat, action.card, ctx.now, events)
        elif isinstance(action, ClaimPoints):
            state = self._claim(state, seat, action.points, ctx.now, events)
        elif isinstance(action, CallMuggins):
            state = self._muggins(state, seat, ctx.now, events)
        elif isinstance(action, Ready):
            state = self._ready(state, seat, ctx, events)
        return state, events

    @staticmethod
    def _claim(state: State, seat: int, points: int, now: int,
               events: list[Event]) -> State:
        if not state.options.muggins:
            raise illegal("claims are made only with the option muggins", "C8.1")
        c = state.claim
        if state.status is not Status.SHOW or c is None:
            raise wrong_phase("no hand is being claimed", "C8.1")
        if c.by != seat or c.claimed is not None:
            raise not_your_turn("this claim is not yours to make", "C8.1")
        return show.claim(state, seat, points, now, events)

    @staticmethod
    def _muggins(state: State, seat: int, now: int, events: list[Event]) -> State:
        if not state.options.muggins:
            raise illegal("muggins is called only with the option muggins", "C8.1")
        if state.status is not Status.SHOW or state.claim is None:
            raise wrong_phase("no muggins window is open", "C8.1")
        if not may_call_muggins(state, seat, now):
            raise illegal("only an opponent may call muggins, within the window", "C8.1")
        return show.resolve(state, now, seat, events)

    @staticmethod
    def _ready(state: State, seat: int, ctx: Ctx, events: list[Event]) -> State:
        if state.status is not Status.HAND_OVER:
            raise wrong_phase("ready is for the end of a hand", "C7.5")
        ready = list(state.ready)
        ready[seat] = True
        state = replace(state, ready=tuple(ready))
        if all(ready):
            state = next_hand(state, ctx.now, ctx.rng, events)
        return state

    # -- time ---------------------------------------------------------------
    def due(self, state: State) -> int | None:
        st = state.status
        if st is Status.GIVE:
            return state.give_deadline
        if st is Status.PLAY:
            return turn_deadline(state)
        if st is Status.SHOW:
            c = state.claim
            if c is None:
                return state.next_at
            return c.deadline if c.claimed is None else c.muggins_until
        if st is Status.HAND_OVER:
            return state.next_at
        return None

    def shift(self, state: State, ms: int) -> State:
        """R17.6 (C10.1): every running time `ms` later (C8.3's time-outs, the show's
        and the hand's end, a claim's and its muggins window, C7.2, C7.5, C8.1)."""
        def later(t: int | None) -> int | None:
            return None if t is None else t + ms
        claim = state.claim
        if claim is not None:
            claim = replace(claim, deadline=claim.deadline + ms,
                            muggins_until=later(claim.muggins_until))
        return replace(state, turn_since=state.turn_since + ms,
                       give_deadline=later(state.give_deadline), next_at=later(state.next_at),
                       claim=claim)

    def resume(self, state: State, now: int) -> State:
        """R17.6 (C10.1): the decision in progress gets its full time again (C8.3: the
        giving time-out from now, the turn's time from now)."""
        ts = state.options.turn_seconds
        if ts is None:
            return state
        if state.status is Status.GIVE and state.give_deadline is not None:
            return replace(state, give_deadline=now + scaled(ts * 1000, state.time_scale))
        if state.status is Status.PLAY and state.turn is not None:
            return replace(state, turn_since=now)
        return state

    def advance(self, state: State, ctx: Ctx) -> tuple[State, list[Event]]:
        events: list[Event] = []
        for _ in range(MAX_STEPS):
            at = self.due(state)
            if at is None or at > ctx.now:
                break
            state = self._expire(state, at, ctx.rng, events)
        return state, events

    def _expire(self, state: State, at: int, rng: Rng, events: list[Event]) -> State:
        st = state.status
        if st in (Status.GIVE, Status.PLAY):  # C8.3: the computer decides for the seat
            bot = BOTS[TIMEOUT_LEVEL]
            for player in to_act(state, at):
                if state.status is not st:
                    break
                msg = bot.decide(bot.fresh(player), seat_view(state, player, at), at, rng)
                if msg is not None:
                    state, more = self.apply(state, player, parse(msg), Ctx(at, rng))
                    events.extend(more)
            return state
        if st is Status.SHOW:
            if state.claim is None:
                return show.count_hand(state, at, events)
            return show.resolve(state, at, None, events)
        return next_hand(state, at, rng, events)

    # -- reading ------------------------------------------------------------
    def to_act(self, state: State, now: int) -> list[str]:
        return to_act(state, now)

    def legal(self, state: State, player: str | None, now: int) -> list[str]:
        return legal(state, seat_or_none(state, player), now)

    def view(self, state: State, player: str | None, now: int) -> dict[str, JSON]:
        return view(state, player)

    def redact(self, event: Event, player: str | None) -> dict[str, JSON] | None:
        """Nothing of an event is secret in Cribbage but its sealed fields (the deal
        and the cards given, kept for the replay record)."""
        return redact_event(event, player)

    def outcome(self, state: State) -> Outcome | None:
        if state.status is not Status.GAME_OVER or state.game_points is None:
            return None
        gp = state.game_points
        return Outcome(winners=gp.winner_side,
                       points={p: gp.points if p in gp.winner_side else 0
                               for p in state.players})

    def bot(self, level: str) -> Bot:
        if level not in BOTS:
            raise bad(f"no computer player of level {level!r}")
        return BOTS[level]

    # -- the contract suite's audit (api.Audited) ------------------------------
    def cards(self, state: State) -> list[str]:
        return cards_of(state)

    def hidden(self, state: State, player: str | None) -> frozenset[str]:
        return hidden_from(state, seat_or_none(state, player))

    def to_json(self, state: State) -> JSON:
        return state.to_json()

    def from_json(self, raw: JSON) -> State:
        return State.from_json(raw)


def next_hand(state: State, now: int, rng: Rng, events: list[Event]) -> State:
    """C3.2: the deal passes to the next seat (the first hand: the cut's dealer)."""
    if state.hand_no:
        state = replace(state, dealer=(state.dealer + 1) % state.n)
    return hand.deal(state, now, rng, events)


def rematch_dealer(state: State) -> int:
    """C3.2: after a rematch the loser deals first; with 3 or 4 players the player or
    team with the lowest final score, a tie to the lowest seat among them. (The table
    passes it as `Setup.dealer` of the rematch.)"""
    low = min(state.scores)
    return next(s for s in range(state.n) if state.scores[state.side(s)] == low)
