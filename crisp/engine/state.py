"""The table's state: plain data that round-trips exactly through JSON.

Internally the stock and the discard pile keep their top card at the END of
their lists (so drawing is a cheap `pop()`); the JSON form keeps that order.
Seats are indexes into `players` (join order, clockwise, R2.1).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .cards import Card

LOBBY, PEEK, PLAYING, ROUND_OVER, GAME_OVER = "lobby", "peek", "playing", "round_over", "game_over"
STATUSES = (LOBBY, PEEK, PLAYING, ROUND_OVER, GAME_OVER)
MAX_PLAYERS = 8  # R1.1
MIN_PLAYERS = 2  # R1.1


def copy_last_round(last: dict[str, Any] | None) -> dict[str, Any] | None:
    """A copy of a round's results that shares nothing with the original."""
    if last is None:
        return None
    return {"round": last["round"], "caller": last["caller"],
            "hands": {pid: list(cards) for pid, cards in last["hands"].items()},
            "sums": dict(last["sums"]), "scores": dict(last["scores"])}


@dataclass(frozen=True, slots=True)
class Options:
    """The host's options (R13-R15, R16.1 defaults)."""

    limit: int = 100
    draw_seconds: int | None = None
    discard_draw: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"limit": self.limit, "draw_seconds": self.draw_seconds,
                "discard_draw": self.discard_draw}


@dataclass(slots=True)
class Player:
    """A seat at the table. `hand` is [left, middle, right] (R2.3), None before a deal."""

    id: str
    name: str
    connected: bool = False
    is_bot: bool = False
    total: int = 0
    hand: list[Card | None] = field(default_factory=lambda: [None, None, None])
    ready: bool = False

    def copy(self) -> Player:
        return Player(self.id, self.name, self.connected, self.is_bot, self.total,
                      list(self.hand), self.ready)


@dataclass(slots=True)
class Turn:
    """The turn in progress (R3). `player` is a seat index."""

    player: int
    may_start_at: int
    draw_deadline: int | None
    final: bool = False
    started: bool = False  # the turn's first draw has been made
    drawn_from: str | None = None  # where the held card came from
    extra_draws: int = 0  # King draws still owed (R9)

    def copy(self) -> Turn:
        return Turn(self.player, self.may_start_at, self.draw_deadline, self.final,
                    self.started, self.drawn_from, self.extra_draws)


@dataclass(frozen=True, slots=True)
class Window:
    """An open crisp window (R10.4): `player` (a seat) may call until `closes_at`."""

    player: int
    closes_at: int


@dataclass(slots=True)
class State:
    """Everything about one table. Never mutated once returned by the engine."""

    host: str
    players: list[Player]
    options: Options = Options()
    status: str = LOBBY
    version: int = 1
    time_scale: float = 1.0
    next_player_no: int = 2
    round: int = 0
    dealer: int | None = None
    stock: list[Card] = field(default_factory=list)
    discard: list[Card] = field(default_factory=list)
    holding: Card | None = None
    turn: Turn | None = None
    caller: int | None = None
    window: Window | None = None
    final_left: list[int] = field(default_factory=list)
    peek_ends_at: int | None = None
    last_round: dict[str, Any] | None = None
    winners: list[str] = field(default_factory=list)
    test_deck: list[Card] | None = None
    test_dealer: int | None = None

    def copy(self) -> State:
        """A copy that can be changed without touching this state."""
        return State(
            self.host, [p.copy() for p in self.players], self.options, self.status,
            self.version, self.time_scale, self.next_player_no, self.round, self.dealer,
            list(self.stock), list(self.discard), self.holding,
            None if self.turn is None else self.turn.copy(), self.caller, self.window,
            list(self.final_left), self.peek_ends_at, self.last_round, list(self.winners),
            self.test_deck, self.test_dealer,
        )

    def seat_of(self, player_id: str) -> int | None:
        """The seat index of a player id, or None."""
        for i, p in enumerate(self.players):
            if p.id == player_id:
                return i
        return None

    def to_json(self) -> dict[str, Any]:
        """Plain JSON; `State.from_json(s.to_json()) == s`."""
        turn = self.turn
        return {
            "host": self.host,
            "players": [
                {"id": p.id, "name": p.name, "connected": p.connected, "is_bot": p.is_bot,
                 "total": p.total, "hand": [None if c is None else c.text for c in p.hand],
                 "ready": p.ready}
                for p in self.players
            ],
            "options": self.options.to_json(),
            "status": self.status,
            "version": self.version,
            "time_scale": self.time_scale,
            "next_player_no": self.next_player_no,
            "round": self.round,
            "dealer": self.dealer,
            "stock": [c.text for c in self.stock],
            "discard": [c.text for c in self.discard],
            "holding": None if self.holding is None else self.holding.text,
            "turn": None if turn is None else {
                "player": turn.player, "may_start_at": turn.may_start_at,
                "draw_deadline": turn.draw_deadline, "final": turn.final,
                "started": turn.started, "drawn_from": turn.drawn_from,
                "extra_draws": turn.extra_draws,
            },
            "caller": self.caller,
            "window": None if self.window is None else {
                "player": self.window.player, "closes_at": self.window.closes_at},
            "final_left": list(self.final_left),
            "peek_ends_at": self.peek_ends_at,
            "last_round": copy_last_round(self.last_round),
            "winners": list(self.winners),
            "test_deck": None if self.test_deck is None else [c.text for c in self.test_deck],
            "test_dealer": self.test_dealer,
        }

    @staticmethod
    def from_json(raw: dict[str, Any]) -> State:
        """The inverse of `to_json`."""

        def card(t: str | None) -> Card | None:
            return None if t is None else Card.parse(t)

        t = raw["turn"]
        w = raw["window"]
        return State(
            host=raw["host"],
            players=[
                Player(p["id"], p["name"], p["connected"], p["is_bot"], p["total"],
                       [card(c) for c in p["hand"]], p["ready"])
                for p in raw["players"]
            ],
            options=Options(**raw["options"]),
            status=raw["status"],
            version=raw["version"],
            time_scale=raw["time_scale"],
            next_player_no=raw["next_player_no"],
            round=raw["round"],
            dealer=raw["dealer"],
            stock=[Card.parse(c) for c in raw["stock"]],
            discard=[Card.parse(c) for c in raw["discard"]],
            holding=card(raw["holding"]),
            turn=None if t is None else Turn(
                t["player"], t["may_start_at"], t["draw_deadline"], t["final"], t["started"],
                t["drawn_from"], t["extra_draws"]),
            caller=raw["caller"],
            window=None if w is None else Window(w["player"], w["closes_at"]),
            final_left=list(raw["final_left"]),
            peek_ends_at=raw["peek_ends_at"],
            last_round=copy_last_round(raw["last_round"]),
            winners=list(raw["winners"]),
            test_deck=None if raw["test_deck"] is None else [
                Card.parse(c) for c in raw["test_deck"]],
            test_dealer=raw["test_dealer"],
        )
