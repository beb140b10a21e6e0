"""A test-only game, "higher card wins", registered only in the tests: the seam's
proof that a game of a few dozen lines runs behind the table (design.md).

2 to 4 seats. Each player is dealt `tricks` cards, seen by them alone; in turn
each lays one face up; when all have laid, the highest rank takes the trick (the
first laid wins a tie). With `turn_seconds`, a player who does not lay in time
lays their first card. The most tricks wins.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

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

GAME_ID = "highcard"
RANKS = "23456789TJQKA"
DECK = [r + s for s in "SHDC" for r in RANKS]
LAY, PLAYING, OVER = "lay", "playing", "game_over"
State = dict[str, Any]  # {"v", "players", "hands", "stock", "laid", "won", "turn", "due", ...}


class HighBot:
    """Lays a random card of its own hand (its view's `hand`); remembers nothing but a count."""

    def fresh(self, player: str) -> JSON:
        return {"seen": 0}

    def observe(self, memory: JSON, view: Mapping[str, JSON],
                events: Sequence[Mapping[str, JSON]]) -> JSON:
        return {"seen": memory["seen"] + len(events)}

    def decide(self, memory: JSON, view: Mapping[str, JSON], now: int,
               rng: Rng) -> Mapping[str, JSON] | None:
        if LAY not in view["legal"]:
            return None
        return {"type": LAY, "card": view["hand"][rng.randrange(len(view["hand"]))]}


class HighCard:
    id = GAME_ID
    seats = SeatRule(2, 4)
    options = {"tricks": Option(3, (1, 3, 5)), "turn_seconds": Option(None, (None, 10))}
    bot_levels = ("easy",)

    def start(self, players: Sequence[str], options: Mapping[str, JSON], setup: Setup,
              ctx: Ctx) -> tuple[State, list[Event]]:
        opts = {k: o.default for k, o in self.options.items()} | dict(options)
        deck = list(setup.decks[0]) if setup.decks else list(DECK)
        if not setup.decks:
            ctx.rng.shuffle(deck)
        n = opts["tricks"]
        hands = {p: deck[i * n:(i + 1) * n] for i, p in enumerate(players)}
        ms = opts["turn_seconds"] and round(opts["turn_seconds"] * 1000 * setup.time_scale)
        state = {"v": 1, "players": list(players), "hands": hands, "stock": deck[len(players) * n:],
                 "laid": [], "won": {p: [] for p in players}, "turn": 0, "ms": ms,
                 "due": ms and ctx.now + ms}
        return state, [Event("dealt", {"player": p, "cards": hands[p]}, private=frozenset((p,)))
                       for p in players]

    def parse(self, message: Mapping[str, JSON]) -> str:
        card = message.get("card")
        if message.get("type") != LAY or card not in DECK:
            raise BadMessage("a message of this game is {\"type\": \"lay\", \"card\": ...}")
        return str(card)

    def apply(self, state: State, player: str, action: str,
              ctx: Ctx) -> tuple[State, list[Event]]:
        if self.outcome(state) is not None:
            raise GameError("wrong_phase", "the game is over")
        if state["players"][state["turn"]] != player:
            raise GameError("not_your_turn", "not your turn")
        if action not in state["hands"][player]:
            raise GameError("illegal", "not a card of your hand", "H1")
        new = {**state, "v": state["v"] + 1, "laid": [*state["laid"], [player, action]],
               "hands": {**state["hands"], player: [c for c in state["hands"][player]
                                                     if c != action]}}
        events = [Event("laid", {"player": player, "card": action})]
        if len(new["laid"]) < len(new["players"]):
            new["turn"] = (state["turn"] + 1) % len(state["players"])
        else:
            winner = max(new["laid"], key=lambda pc: RANKS.index(pc[1][0]))[0]
            new["won"] = {**state["won"], winner: [*state["won"][winner],
                                                   *(c for _, c in new["laid"])]}
            new["laid"], new["turn"] = [], state["players"].index(winner)
            events.append(Event("trick", {"player": winner}))
        new["due"] = (state["ms"] and self.outcome(new) is None and ctx.now + state["ms"]) or None
        return new, events

    def due(self, state: State) -> int | None:
        return state["due"]  # type: ignore[no-any-return]

    def advance(self, state: State, ctx: Ctx) -> tuple[State, list[Event]]:
        if state["due"] is None or state["due"] > ctx.now:
            return state, []
        player = state["players"][state["turn"]]
        return self.apply(state, player, state["hands"][player][0], Ctx(state["due"], ctx.rng))

    def shift(self, state: State, ms: int) -> State:
        return state if state["due"] is None else {**state, "due": state["due"] + ms}

    def resume(self, state: State, now: int) -> State:
        return state if state["due"] is None else {**state, "due": now + state["ms"]}

    def to_act(self, state: State, now: int) -> list[str]:
        return [] if self.outcome(state) else [state["players"][state["turn"]]]

    def legal(self, state: State, player: str | None, now: int) -> list[str]:
        return [LAY] if player is not None and player in self.to_act(state, now) else []

    def view(self, state: State, player: str | None, now: int) -> dict[str, JSON]:
        return {"version": state["v"], "status": OVER if self.outcome(state) else PLAYING,
                "turn": None if self.outcome(state) else state["players"][state["turn"]],
                "deadline": state["due"], "laid": state["laid"],
                "hand": None if player is None else state["hands"][player],
                "legal": self.legal(state, player, now),
                "players": [{"held": len(state["hands"][p]), "tricks": len(state["won"][p]) //
                             len(state["players"])} for p in state["players"]]}

    def redact(self, event: Event, player: str | None) -> dict[str, JSON] | None:
        return redact_event(event, player)

    def outcome(self, state: State) -> Outcome | None:
        if any(state["hands"].values()) or state["laid"]:
            return None
        tricks = {p: len(w) for p, w in state["won"].items()}
        best = max(tricks.values())
        winners = tuple(p for p in state["players"] if tricks[p] == best)
        return Outcome(winners, {p: 1 for p in winners})

    def bot(self, level: str) -> HighBot:
        return HighBot()

    def to_json(self, state: State) -> JSON:
        return state

    def from_json(self, raw: JSON) -> State:
        return dict(raw)

    def cards(self, state: State) -> list[str]:
        return [*state["stock"], *(c for h in state["hands"].values() for c in h),
                *(c for _, c in state["laid"]), *(c for w in state["won"].values() for c in w)]

    def hidden(self, state: State, player: str | None) -> frozenset[str]:
        return frozenset([*state["stock"], *(c for p, h in state["hands"].items() if p != player
                                              for c in h)])


GAME = HighCard()
