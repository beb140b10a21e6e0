"""Crapette behind the table: the `Game` adapter (crisp/games/api.py) over the
pure modules of this package, and what the contract suite audits (`cards`,
`hidden`).

The table's version is not the game's: a `moved` event carries the version a
call names. The adapter reads `ctx.version` (the table version the action
produces) when the table gives one, and else numbers the game's moves itself
(`State.seq`), so calls name those numbers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..api import (
    JSON,
    BadMessage,
    Bot,
    Ctx,
    Event,
    Game,
    GameError,
    Option,
    Outcome,
    SeatRule,
    Setup,
    options_of,
)
from . import codec, reducer
from .actions import Action, parse
from .board import Board
from .cards import TEXT, parse_deck
from .setup import shuffled_decks
from .state import MOVE_SECONDS, Options, State
from .view import legal, view
from .vocabulary import BotLevel, Calls, ErrorCode, GameId, Status


class Crapette:
    """The game `crapette` (crapette-rules.md K1-K10)."""

    id: str = GameId.CRAPETTE
    seats = SeatRule(min=2, max=2)
    options: Mapping[str, Option] = {
        "calls": Option(Calls.OBVIOUS.value, tuple(c.value for c in Calls)),
        "move_seconds": Option(None, MOVE_SECONDS),
        "watchers": Option(True, (True, False)),
    }
    bot_levels: tuple[str, ...] = tuple(BotLevel)

    def start(self, players: Sequence[str], options: Mapping[str, JSON], setup: Setup,
              ctx: Ctx) -> tuple[State, list[Event]]:
        if len(players) != 2:
            raise GameError(ErrorCode.ILLEGAL, "Crapette is for exactly 2 players", "K1.1")
        chosen = options_of(self, options)
        opts = Options(Calls(chosen["calls"]), chosen["move_seconds"],
                       bool(chosen["watchers"]), setup.time_scale)
        if setup.decks is not None:
            if len(setup.decks) != 2:
                raise BadMessage("Crapette takes one deck per seat (K10)")
            try:
                decks = (parse_deck(setup.decks[0]), parse_deck(setup.decks[1]))
            except ValueError as e:
                raise BadMessage(str(e)) from None
        else:
            decks = shuffled_decks(ctx.rng)
        return reducer.new_game(players, opts, decks, ctx)

    def parse(self, message: Mapping[str, JSON]) -> Action:
        return parse(message)

    def apply(self, state: State, player: str, action: Action,
              ctx: Ctx) -> tuple[State, list[Event]]:
        return reducer.apply(state, player, action, ctx)

    def due(self, state: State) -> int | None:
        return state.deadline if state.status == Status.PLAYING else None

    def advance(self, state: State, ctx: Ctx) -> tuple[State, list[Event]]:
        return reducer.advance(state, ctx)

    def shift(self, state: State, ms: int) -> State:
        """R17.6 (K7.2): the move's time `ms` later (K7.1)."""
        return reducer.shift(state, ms)

    def resume(self, state: State, now: int) -> State:
        """R17.6 (K7.2): the move in progress gets its full time again (K7.1)."""
        return reducer.resume(state, now)

    def to_act(self, state: State, now: int) -> list[str]:
        """The mover; and the other player while a call is open to them (K6.6), so
        that a computer player can call."""
        if state.status != Status.PLAYING:
            return []
        other = 1 - state.board.mover
        return [state.mover] + ([state.players[other]] if state.can_call(other) else [])

    def legal(self, state: State, player: str | None, now: int) -> list[str]:
        return legal(state, player)

    def view(self, state: State, player: str | None, now: int) -> dict[str, JSON]:
        return view(state, player)

    def redact(self, event: Event, player: str | None) -> dict[str, JSON] | None:
        """K8.1: every card an event shows is face up on the table: nothing to hide."""
        return {"kind": event.kind, **event.data}

    def outcome(self, state: State) -> Outcome | None:
        """K5.1: a win counts 1; K5.2: a blocked game is a draw and counts nothing."""
        if state.status != Status.GAME_OVER:
            return None
        if state.winner is None:
            return Outcome((), {p: 0 for p in state.players})
        won = state.players[state.winner]
        return Outcome((won,), {p: int(p == won) for p in state.players})

    def bot(self, level: str) -> Bot:
        from .bots import bot

        return bot(BotLevel(level))

    def to_json(self, state: State) -> JSON:
        return codec.to_json(state)

    def from_json(self, raw: JSON) -> State:
        return codec.from_json(raw)

    # the contract suite's audit (api.Audited)
    def cards(self, state: State) -> list[str]:
        """Every card of both decks where it lies (104, K1.1). Both decks hold each
        card, so a text is suffixed with its copy's number in the order found ("7D#1",
        "7D#2"): each string is there once, and a card made or lost shows."""
        seen: dict[int, int] = {}
        out = []
        for c in all_cards(state.board):
            seen[c] = seen.get(c, 0) + 1
            out.append(f"{TEXT[c]}#{seen[c]}")
        return out

    def hidden(self, state: State, player: str | None) -> frozenset[str]:
        """K8.2: the face-down crapette cards and the stocks, hidden from everyone
        (the owner too). Both decks hold each card, so a card text that is also face
        up somewhere is not hidden as a text."""
        b = state.board
        down = {c for s in (0, 1) for c in (*b.crapette[s][:-1], *b.stock[s])}
        up = {c for s in (0, 1) for c in (b.crapette[s][-1:] + b.waste[s])}
        up |= {c for p in b.tableau for c in p} | ({b.turned} if b.turned >= 0 else set())
        up |= {t - r for t in b.foundations if t >= 0 for r in range(t % 13 + 1)}
        return frozenset(TEXT[c] for c in down - up)


def all_cards(b: Board) -> list[int]:
    """Every card on the table: piles, turned card, foundations (Ace up to the top)."""
    out = [c for s in (0, 1) for c in (*b.crapette[s], *b.stock[s], *b.waste[s])]
    out += [c for p in b.tableau for c in p]
    out += [t - r for t in b.foundations if t >= 0 for r in range(t % 13 + 1)]
    if b.turned >= 0:
        out.append(b.turned)
    return out


GAME = Crapette()
_CHECKED: Game[State, Action] = GAME  # mypy holds the adapter to the interface
