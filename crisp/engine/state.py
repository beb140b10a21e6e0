"""The table's state: plain data that round-trips exactly through JSON.

Internally the stock and the discard pile keep their top card at the END of
their lists (so drawing is a cheap `pop()`); the JSON form keeps that order.
Seats are indexes into `players` (join order, clockwise, R2.1). Each class's
`to_json()` has exactly its dataclass fields as keys.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, TypeVar

from .cards import Card, card_text
from .vocabulary import (
    GAME_OVER,
    LOBBY,
    PEEK,
    PLAYING,
    ROUND_OVER,
    SLOT_OF,
    SOURCE_OF,
    STATUS_OF,
    ActionType,
    BotLevel,
    Slot,
    Source,
    Status,
)

__all__ = ["GAME_OVER", "LOBBY", "PEEK", "PLAYING", "ROUND_OVER", "STATUSES"]  # old names
STATUSES = tuple(Status)
MAX_PLAYERS = 8  # R1.1
MIN_PLAYERS = 2  # R1.1

_Blank = TypeVar("_Blank")


def _blank(cls: type[_Blank]) -> _Blank:
    """An instance whose fields the caller sets one by one (the copies below)."""
    return object.__new__(cls)


@dataclass(frozen=True, slots=True)
class Options:
    """The host's options (R13-R15, R16.1 defaults; R18.1 watching)."""

    limit: int = 100
    draw_seconds: int | None = None
    discard_draw: bool = False
    watchers: bool = True  # R18.1: anyone with the link may watch (protocol v1.2)

    def to_json(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__slots__}  # the fields, in order


@dataclass(frozen=True, slots=True)
class RoundResult:
    """A round's reveal and scores (R12.1-R12.4), shown until the next reveal.

    Immutable (its mappings are read-only copies), so states share it without
    copying. `hands` are the revealed card texts, `sums` the hands' values,
    `scores` what the round added to each running total.
    """

    round: int
    caller: str | None
    hands: Mapping[str, Sequence[str | None]]  # stored as tuples
    sums: Mapping[str, int]
    scores: Mapping[str, int]

    def __post_init__(self) -> None:
        object.__setattr__(self, "hands", MappingProxyType(
            {pid: tuple(cards) for pid, cards in self.hands.items()}))
        object.__setattr__(self, "sums", MappingProxyType(dict(self.sums)))
        object.__setattr__(self, "scores", MappingProxyType(dict(self.scores)))

    def to_json(self) -> dict[str, Any]:
        """The view's `last_round` (protocol.md): fresh plain data every time."""
        return {"round": self.round, "caller": self.caller,
                "hands": {pid: list(cards) for pid, cards in self.hands.items()},
                "sums": _plain(self.sums), "scores": _plain(self.scores)}

    @staticmethod
    def from_json(raw: dict[str, Any]) -> RoundResult:
        """The inverse of `to_json`."""
        return RoundResult(round=raw["round"], caller=raw["caller"], hands=raw["hands"],
                           sums=raw["sums"], scores=raw["scores"])


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    """One finished round of this game (the view's `history`, protocol v1.1): who
    called, what the round added to each total (R12.1-R12.4) and the totals after it.
    Immutable, like RoundResult."""

    round: int
    caller: str | None
    scores: Mapping[str, int]
    totals: Mapping[str, int]

    def __post_init__(self) -> None:
        object.__setattr__(self, "scores", MappingProxyType(dict(self.scores)))
        object.__setattr__(self, "totals", MappingProxyType(dict(self.totals)))

    def to_json(self) -> dict[str, Any]:
        return {"round": self.round, "caller": self.caller, "scores": _plain(self.scores),
                "totals": _plain(self.totals)}

    @staticmethod
    def from_json(raw: dict[str, Any]) -> HistoryEntry:
        return HistoryEntry(raw["round"], raw["caller"], raw["scores"], raw["totals"])


def _plain(mapping: Mapping[str, int]) -> dict[str, int]:
    """A plain dict copy; `copy()` is the fast path for a read-only proxy."""
    return mapping.copy() if isinstance(mapping, MappingProxyType) else dict(mapping)


LOOK_REASONS = ("deal", ActionType.JACK, ActionType.QUEEN, "queen_target", ActionType.DRAW)


@dataclass(frozen=True, slots=True)
class Look:
    """A card a seat was shown at a position of its own hand this round (R16.3).

    `why`: "deal" (R2.4), "jack" (R7.1), "queen" (R8.2: the Queen's player),
    "queen_target" (R8.3, R8.4: the other player), "draw" (R4.1, R13: the card drawn
    and swapped into `slot`). `seq` numbers the table's looks in the order they
    arose; it never goes back (not at a new round, not at a rematch)."""

    seq: int
    slot: Slot
    card: Card
    why: str

    def to_json(self) -> dict[str, Any]:
        return {"seq": self.seq, "slot": self.slot.label, "card": self.card.text,
                "why": self.why}

    @staticmethod
    def from_json(raw: dict[str, Any]) -> Look:
        return Look(raw["seq"], SLOT_OF[raw["slot"]], Card.parse(raw["card"]), raw["why"])


BOT_LEVELS: tuple[str, ...] = tuple(BotLevel)  # R17.1; "hard": docs/protocol-additions.md


@dataclass(slots=True)
class Player:
    """A seat at the table. `hand` is [left, middle, right] (R2.3), None before a deal.

    Presence (R17): `bot_level` is one of BOT_LEVELS for a computer player (added by
    the host, R17.1, or a seat removed during a game, R17.5), None for a human.
    `gone_since` is when a human seat's last connection ended (or it joined without
    one), None while it is connected; 20 s later it is `away` (R17.2) until its
    player connects again.
    """

    id: str
    name: str
    connected: bool = False
    bot_level: str | None = None
    total: int = 0
    hand: list[Card | None] = field(default_factory=lambda: [None, None, None])
    ready: bool = False
    looks: list[Look] = field(default_factory=list)  # R16.3: this round's, still valid
    away: bool = False
    gone_since: int | None = None

    @property
    def is_bot(self) -> bool:
        """A computer player (the view's `is_bot`): added, or a removed seat (R17.1, R17.5)."""
        return self.bot_level is not None

    def copy(self) -> Player:
        """A copy field by field (see `State.copy`)."""
        new = _blank(Player)
        new.id = self.id
        new.name = self.name
        new.connected = self.connected
        new.bot_level = self.bot_level
        new.total = self.total
        new.hand = list(self.hand)
        new.ready = self.ready
        new.looks = list(self.looks)
        new.away = self.away
        new.gone_since = self.gone_since
        return new

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "connected": self.connected,
                "bot_level": self.bot_level, "total": self.total,
                "hand": [None if c is None else c.text for c in self.hand],
                "ready": self.ready, "looks": [look.to_json() for look in self.looks],
                "away": self.away, "gone_since": self.gone_since}

    @staticmethod
    def from_json(raw: dict[str, Any]) -> Player:
        # Positional arguments in field order: this runs for every seat on every load.
        return Player(raw["id"], raw["name"], raw["connected"], raw["bot_level"], raw["total"],
                      [None if c is None else Card.parse(c) for c in raw["hand"]], raw["ready"],
                      [Look.from_json(look) for look in raw["looks"]], raw["away"],
                      raw["gone_since"])


@dataclass(slots=True)
class Turn:
    """The turn in progress (R3). `player` is a seat index."""

    player: int
    may_start_at: int
    draw_deadline: int | None
    final: bool = False
    started: bool = False  # the turn's first draw has been made
    drawn_from: Source | None = None  # where the held card came from
    extra_draws: int = 0  # King draws still owed (R9)
    kings: list[Card] = field(default_factory=list)  # R9.3: played, beside the piles

    def copy(self) -> Turn:
        """A copy field by field (see `State.copy`)."""
        new = _blank(Turn)
        new.player = self.player
        new.may_start_at = self.may_start_at
        new.draw_deadline = self.draw_deadline
        new.final = self.final
        new.started = self.started
        new.drawn_from = self.drawn_from
        new.extra_draws = self.extra_draws
        new.kings = list(self.kings)
        return new

    def to_json(self) -> dict[str, Any]:
        return {"player": self.player, "may_start_at": self.may_start_at,
                "draw_deadline": self.draw_deadline, "final": self.final,
                "started": self.started, "drawn_from": self.drawn_from,
                "extra_draws": self.extra_draws, "kings": [c.text for c in self.kings]}

    @staticmethod
    def from_json(raw: dict[str, Any]) -> Turn:
        source = raw["drawn_from"]
        return Turn(raw["player"], raw["may_start_at"], raw["draw_deadline"], raw["final"],
                    raw["started"], None if source is None else SOURCE_OF[source],
                    raw["extra_draws"],  # positional, in field order, like Player.from_json
                    [Card.parse(c) for c in raw["kings"]])


@dataclass(frozen=True, slots=True)
class Window:
    """An open crisp window (R10.4): `player` (a seat) may call until `closes_at`."""

    player: int
    closes_at: int

    def to_json(self) -> dict[str, Any]:
        return {"player": self.player, "closes_at": self.closes_at}


@dataclass(slots=True)
class State:
    """Everything about one table. Never mutated once returned by the engine."""

    host: str
    players: list[Player]
    options: Options = Options()
    status: Status = LOBBY
    version: int = 1
    time_scale: float = 1.0
    next_player_no: int = 2
    look_seq: int = 0  # the `seq` of the table's latest Look (R16.3)
    round: int = 0
    dealer: int | None = None
    stock: list[Card] = field(default_factory=list)
    discard: list[Card] = field(default_factory=list)
    holding: Card | None = None
    turn: Turn | None = None
    caller: int | None = None
    windows: list[Window] = field(default_factory=list)  # R10.4: oldest first
    # R18.4: windows closed within the lateness cap, for a late call (lateness.py)
    late_windows: list[Window] = field(default_factory=list)
    final_left: list[int] = field(default_factory=list)
    peek_ends_at: int | None = None
    last_round: RoundResult | None = None
    winners: list[str] = field(default_factory=list)
    history: list[HistoryEntry] = field(default_factory=list)  # this game's rounds
    test_deck: list[Card] | None = None
    test_dealer: int | None = None
    host_pending: bool = False  # R17.4: the host role goes to the first human who connects
    abandoned: bool = False  # no human seat is left: the server deletes the room (R17.5)

    def copy(self) -> State:
        """A copy that can be changed without touching this state. Immutable values
        (options, windows, last round, history entries, cards) are shared.

        Field by field on a blank object: as readable as keyword arguments, and
        cheaper than calling `__init__` (this runs on every engine call);
        `test_engine_state.py` checks that no field is left out.
        """
        new = _blank(State)
        new.host = self.host
        new.players = [p.copy() for p in self.players]
        new.options = self.options
        new.status = self.status
        new.version = self.version
        new.time_scale = self.time_scale
        new.next_player_no = self.next_player_no
        new.look_seq = self.look_seq
        new.round = self.round
        new.dealer = self.dealer
        new.stock = list(self.stock)
        new.discard = list(self.discard)
        new.holding = self.holding
        new.turn = None if self.turn is None else self.turn.copy()
        new.caller = self.caller
        new.windows = list(self.windows)
        new.late_windows = list(self.late_windows)
        new.final_left = list(self.final_left)
        new.peek_ends_at = self.peek_ends_at
        new.last_round = self.last_round
        new.winners = list(self.winners)
        new.history = list(self.history)
        new.test_deck = None if self.test_deck is None else list(self.test_deck)
        new.test_dealer = self.test_dealer
        new.host_pending = self.host_pending
        new.abandoned = self.abandoned
        return new

    def seat_of(self, player_id: str) -> int | None:
        """The seat index of a player id, or None."""
        for i, p in enumerate(self.players):
            if p.id == player_id:
                return i
        return None

    def to_json(self) -> dict[str, Any]:
        """Plain JSON; `State.from_json(s.to_json()) == s`."""
        return {
            "host": self.host,
            "players": [p.to_json() for p in self.players],
            "options": self.options.to_json(),
            "status": self.status,
            "version": self.version,
            "time_scale": self.time_scale,
            "next_player_no": self.next_player_no,
            "look_seq": self.look_seq,
            "round": self.round,
            "dealer": self.dealer,
            "stock": [c.text for c in self.stock],
            "discard": [c.text for c in self.discard],
            "holding": card_text(self.holding),
            "turn": None if self.turn is None else self.turn.to_json(),
            "caller": self.caller,
            "windows": [w.to_json() for w in self.windows],
            "late_windows": [w.to_json() for w in self.late_windows],
            "final_left": list(self.final_left),
            "peek_ends_at": self.peek_ends_at,
            "last_round": None if self.last_round is None else self.last_round.to_json(),
            "winners": list(self.winners),
            "history": [entry.to_json() for entry in self.history],
            "test_deck": None if self.test_deck is None else [c.text for c in self.test_deck],
            "test_dealer": self.test_dealer,
            "host_pending": self.host_pending,
            "abandoned": self.abandoned,
        }

    @staticmethod
    def from_json(raw: dict[str, Any]) -> State:
        """The inverse of `to_json`."""
        turn, last = raw["turn"], raw["last_round"]
        return State(
            host=raw["host"],
            players=[Player.from_json(p) for p in raw["players"]],
            options=Options(**raw["options"]),
            status=STATUS_OF[raw["status"]],
            version=raw["version"],
            time_scale=raw["time_scale"],
            next_player_no=raw["next_player_no"],
            look_seq=raw["look_seq"],
            round=raw["round"],
            dealer=raw["dealer"],
            stock=[Card.parse(c) for c in raw["stock"]],
            discard=[Card.parse(c) for c in raw["discard"]],
            holding=None if raw["holding"] is None else Card.parse(raw["holding"]),
            turn=None if turn is None else Turn.from_json(turn),
            caller=raw["caller"],
            windows=[Window(w["player"], w["closes_at"]) for w in raw["windows"]],
            late_windows=[Window(**w) for w in raw.get("late_windows", ())],  # absent: older
            final_left=list(raw["final_left"]),
            peek_ends_at=raw["peek_ends_at"],
            last_round=None if last is None else RoundResult.from_json(last),
            winners=list(raw["winners"]),
            history=[HistoryEntry.from_json(entry) for entry in raw["history"]],
            test_deck=None if raw["test_deck"] is None else [
                Card.parse(c) for c in raw["test_deck"]],
            test_dealer=raw["test_dealer"],
            host_pending=raw["host_pending"],
            abandoned=raw["abandoned"],
        )
