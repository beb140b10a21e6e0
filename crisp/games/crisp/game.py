"""Crisp behind the game interface (`crisp.games.api.Game`): an adapter over the
rules engine (`crisp.engine`) and the computer players (`crisp.bots`).

The engine still holds the table's part of a Crisp room too (lobby, presence,
host, kicks: the server calls it directly for those, docs/architecture.md);
this adapter is the game seen from a generic table and from the contract suite
(tests/games/contract/): `start` makes a table of these players, connected,
with these options, and starts it; `parse` reads only the game's own messages
(never the table's `options`, `start`, `kick`, `add_bot`, `leave`, `rematch`).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import cast

from crisp import bots, engine
from crisp.engine import (
    GAME_OVER,
    LOBBY,
    PLAYING,
    ROUND_OVER,
    Action,
    ActionType,
    BotLevel,
    InvalidAction,
    Options,
    State,
)
from crisp.engine import Event as EngineEvent
from crisp.engine.actions import DRAW_SECONDS, LIMITS, CallCrisp, Start
from crisp.engine.errors import ActionError
from crisp.engine.state import MAX_PLAYERS
from crisp.engine.vocabulary import STOCK
from crisp.games.api import (
    JSON,
    BadMessage,
    Ctx,
    Event,
    GameError,
    Option,
    Outcome,
    Rng,
    SeatRule,
    Setup,
    redact_event,
)
from crisp.games.registry import DEFAULT

GAME_ID = DEFAULT  # Crisp is the default game

# The client messages that are Crisp's own moves; the others of `ActionType` are the table's.
GAME_TYPES = frozenset((ActionType.READY, ActionType.DRAW, ActionType.SWAP, ActionType.DISCARD,
                        ActionType.JACK, ActionType.QUEEN, ActionType.KING, ActionType.CRISP,
                        ActionType.NEXT_ROUND))

_DEFAULTS = Options()  # R16.1
OPTIONS: dict[str, Option] = {
    "limit": Option(_DEFAULTS.limit, LIMITS),  # R15.1
    "draw_seconds": Option(_DEFAULTS.draw_seconds, (None, *(s for s in DRAW_SECONDS if s))),
    "discard_draw": Option(_DEFAULTS.discard_draw, (False, True)),  # R13
    "watchers": Option(_DEFAULTS.watchers, (True, False)),  # R18.1
}


def _events(events: Sequence[EngineEvent]) -> list[Event]:
    """The engine's events with their markers as the interface's (`to` is `private`)."""
    return [Event(ev.kind, ev.data, None if ev.to is None else frozenset((ev.to,)),
                  ev.secret, ev.sealed) for ev in events]


def _refused(exc: ActionError) -> GameError:
    if isinstance(exc, InvalidAction):
        return BadMessage(exc.message)
    out = GameError(exc.code, exc.message)
    out.rule = exc.rule
    return out


class CrispBot:
    """A Crisp computer player of one level (crisp.bots): its memory is `Memory`'s JSON."""

    def __init__(self, level: str) -> None:
        self.level = level

    def fresh(self, player: str) -> JSON:
        return bots.Memory(player, level=self.level).to_json()

    def observe(self, memory: JSON, view: Mapping[str, JSON],
                events: Sequence[Mapping[str, JSON]]) -> JSON:
        mind = bots.Memory.from_json(memory)
        mind.observe(dict(view), [dict(ev) for ev in events])
        return mind.to_json()

    def decide(self, memory: JSON, view: Mapping[str, JSON], now: int,
               rng: Rng) -> Mapping[str, JSON] | None:
        mind = bots.Memory.from_json(memory)
        return bots.choose(dict(view), mind, now, cast(random.Random, rng))


class CrispGame:
    """Crisp (R1-R18) as a `Game[State, Action]`."""

    id = GAME_ID
    seats = SeatRule(2, MAX_PLAYERS)  # R1.1
    options: Mapping[str, Option] = OPTIONS
    bot_levels: tuple[str, ...] = tuple(BotLevel)

    def start(self, players: Sequence[str], options: Mapping[str, JSON], setup: Setup,
              ctx: Ctx) -> tuple[State, list[Event]]:
        deck = [c for d in setup.decks for c in d] if setup.decks else None  # one a round
        try:
            state = engine.new_table(players[0], Options(**{**Options().to_json(), **options}),
                                     time_scale=setup.time_scale, test_deck=deck,
                                     test_dealer=setup.dealer, now=ctx.now)
            for name in players[1:]:
                state, pid, _ = engine.add_player(state, name, ctx.now)
                assert pid == name, f"Crisp numbers its seats p1, p2, ...: {pid} for {name}"
            for name in players:
                state, _ = engine.set_connected(state, name, True, ctx.now)
            state, events = engine.apply(state, players[0], Start(), ctx.now, ctx.rng)
        except ActionError as exc:
            raise _refused(exc) from exc
        return state, _events(events)

    def parse(self, message: Mapping[str, JSON]) -> Action:
        if message.get("type") not in GAME_TYPES:
            raise BadMessage(f"not a move of Crisp: {message.get('type')!r}")
        try:
            return engine.action_from_dict(dict(message))
        except InvalidAction as exc:
            raise BadMessage(exc.message) from exc

    def apply(self, state: State, player: str, action: Action,
              ctx: Ctx) -> tuple[State, list[Event]]:
        if ctx.late_ms and type(action) is CallCrisp:  # R18.4: the table's allowance
            action = replace(action, allowance_ms=ctx.late_ms)
        try:
            new, events = engine.apply(state, player, action, ctx.now, ctx.rng)
        except ActionError as exc:
            raise _refused(exc) from exc
        return new, _events(events)

    def due(self, state: State) -> int | None:
        return engine.next_deadline(state)

    def advance(self, state: State, ctx: Ctx) -> tuple[State, list[Event]]:
        new, events = engine.advance(state, ctx.now)
        return new, _events(events)

    def shift(self, state: State, ms: int) -> State:
        """R17.6 is the engine's own (crisp/engine/presence.py): nothing here."""
        return state

    def resume(self, state: State, now: int) -> State:
        """R17.6 is the engine's own (its presence holds the draw and gives it its
        full time again): nothing to do here."""
        return state

    def to_act(self, state: State, now: int) -> list[str]:
        """Whoever has a move now, and the player whose turn may not start yet (R10.4)."""
        turn = state.turn if state.status == PLAYING else None
        return [p.id for i, p in enumerate(state.players)
                if (turn is not None and turn.player == i)
                or not GAME_TYPES.isdisjoint(engine.legal(state, p.id, now))]

    def legal(self, state: State, player: str | None, now: int) -> list[str]:
        return [] if player is None else engine.legal(state, player, now)

    def view(self, state: State, player: str | None, now: int) -> dict[str, JSON]:
        return engine.view_for(state, player, now)

    def redact(self, event: Event, player: str | None) -> dict[str, JSON] | None:
        return redact_event(event, player)

    def outcome(self, state: State) -> Outcome | None:
        if state.status != GAME_OVER:
            return None
        return Outcome(tuple(state.winners), {pid: 1 for pid in state.winners})

    def bot(self, level: str) -> CrispBot:
        if level not in self.bot_levels:
            raise BadMessage(f"level must be one of {', '.join(self.bot_levels)}")
        return CrispBot(level)

    def to_json(self, state: State) -> JSON:
        return state.to_json()

    def from_json(self, raw: JSON) -> State:
        return State.from_json(raw)

    # ---- for the contract suite (api.Audited) ----

    def cards(self, state: State) -> list[str]:
        out = [c.text for c in (*state.stock, *state.discard)]
        out += [c.text for p in state.players for c in p.hand if c is not None]
        if state.holding is not None:
            out.append(state.holding.text)
        if state.turn is not None:
            out += [c.text for c in state.turn.kings]
        return out

    def hidden(self, state: State, player: str | None) -> frozenset[str]:
        if state.status == LOBBY:
            return frozenset()
        out = {c.text for c in state.stock}
        if state.status in (ROUND_OVER, GAME_OVER):  # the hands are shown (R12)
            return frozenset(out)
        seat = None if player is None else state.seat_of(player)
        for i, p in enumerate(state.players):
            seen = {look.card.text for look in p.looks} if i == seat else set()
            out.update(c.text for c in p.hand if c is not None and c.text not in seen)
        turn = state.turn
        if (state.holding is not None and turn is not None and turn.player != seat
                and turn.drawn_from == STOCK):
            out.add(state.holding.text)
        if state.last_round is not None:  # the last reveal, shown until the next (R12)
            out.difference_update(c for h in state.last_round.hands.values() for c in h if c)
        return frozenset(out)
