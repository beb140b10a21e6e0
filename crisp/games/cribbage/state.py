"""The game's state: frozen values that round-trip exactly through JSON.

Seats are indexes into `players` (seat order, clockwise). Scores are kept per
side: a side is a seat, or with 4 players a team (seat % 2, C1.1). Each
player's cards: `dealt` (as dealt, for the coach), `gave` (to the crib),
`held` (still in hand), `laid` (in the play, in order)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

from .items import Item
from .options import Options
from .pegging import count_of
from .vocabulary import CRIB, GamePointsKind, Status

Cards = tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ShowEntry:
    """One hand (or the crib) at the show (C7); `points`/`items` are None while
    its muggins claim is open (C8.1)."""

    whose: str  # a player id or CRIB
    cards: Cards
    points: int | None
    items: tuple[Item, ...] | None
    claimed: int | None = None
    notes: tuple[str, ...] = ()  # what did not count (NoteKind), once counted

    def to_json(self) -> dict[str, Any]:
        return {"whose": self.whose, "cards": list(self.cards), "points": self.points,
                "items": None if self.items is None else [i.to_json() for i in self.items],
                "claimed": self.claimed, "notes": list(self.notes)}

    @staticmethod
    def from_json(raw: Mapping[str, Any]) -> ShowEntry:
        items = raw["items"]
        return ShowEntry(raw["whose"], tuple(raw["cards"]), raw["points"],
                         None if items is None else tuple(Item.from_json(i) for i in items),
                         raw["claimed"], tuple(raw["notes"]))


@dataclass(frozen=True, slots=True)
class Claim:
    """The open claim of C8.1: whose hand, the seat that claims, the claim's
    deadline, the points claimed (None before) and the muggins window's end."""

    whose: str
    by: int
    deadline: int
    claimed: int | None = None
    muggins_until: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @staticmethod
    def from_json(raw: Mapping[str, Any]) -> Claim:
        return Claim(**raw)


@dataclass(frozen=True, slots=True)
class Coach:
    """C10.3 for one seat: the choice given and the best, with expected values."""

    gave: Cards
    expected: float
    best_gave: Cards
    best_expected: float

    def to_json(self) -> dict[str, Any]:
        return {"gave": list(self.gave), "expected": self.expected,
                "best": {"gave": list(self.best_gave), "expected": self.best_expected}}

    @staticmethod
    def from_json(raw: Mapping[str, Any]) -> Coach:
        return Coach(tuple(raw["gave"]), raw["expected"], tuple(raw["best"]["gave"]),
                     raw["best"]["expected"])


@dataclass(frozen=True, slots=True)
class GamePoints:
    """C8.2: the winning side's ids, the game points, and their kind."""

    winner_side: tuple[str, ...]
    points: int
    skunk: GamePointsKind

    def to_json(self) -> dict[str, Any]:
        return {"winner_side": list(self.winner_side), "points": self.points,
                "skunk": self.skunk.value}

    @staticmethod
    def from_json(raw: Mapping[str, Any]) -> GamePoints:
        return GamePoints(tuple(raw["winner_side"]), raw["points"],
                          GamePointsKind(raw["skunk"]))


@dataclass(frozen=True, slots=True)
class State:
    players: tuple[str, ...]
    options: Options
    time_scale: float
    status: Status
    hand_no: int
    dealer: int
    decks: tuple[Cards, ...]  # test decks not used yet
    scores: tuple[int, ...]  # per side
    peg_from: tuple[int, ...]  # per side: the back peg (C2.2)
    dealt: tuple[Cards, ...]
    gave: tuple[Cards, ...]
    held: tuple[Cards, ...]
    laid: tuple[Cards, ...]
    crib: Cards
    stock: Cards  # the undealt cards, top first: the starter is stock[0] (C4.1)
    starter: str | None
    series: tuple[tuple[int, str], ...]  # (seat, card) since the last reset
    go: tuple[bool, ...]  # who has said go in this series (C5.3)
    turn: int | None
    turn_since: int
    give_deadline: int | None
    show: tuple[ShowEntry, ...]
    next_at: int | None  # the show's next hand, or the end of hand_over (C7.2, C7.5)
    claim: Claim | None
    ready: tuple[bool, ...]
    coach: tuple[Coach | None, ...]
    game_points: GamePoints | None
    match: tuple[tuple[str, int], ...]

    # -- derived --------------------------------------------------------------
    @property
    def n(self) -> int:
        return len(self.players)

    def side(self, seat: int) -> int:
        """A seat's side: with 4 players its team (C1.1), else itself."""
        return seat % 2 if self.n == 4 else seat

    def seat_of(self, player: str) -> int:
        return self.players.index(player)

    def side_members(self, side: int) -> tuple[str, ...]:
        return tuple(p for s, p in enumerate(self.players) if self.side(s) == side)

    def kept(self, seat: int) -> Cards:
        """The 4 cards a seat keeps for the show, in dealt order (C5.6)."""
        return tuple(c for c in self.dealt[seat] if c not in self.gave[seat])

    def count(self) -> int:
        """The running count of the series (C5.1)."""
        return count_of([c for _, c in self.series])

    # -- JSON -----------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in fields(self):
            out[f.name] = _plain(getattr(self, f.name))
        return out

    @staticmethod
    def from_json(raw: Mapping[str, Any]) -> State:
        o = raw["options"]
        return State(
            players=tuple(raw["players"]),
            options=Options.parse(o),
            time_scale=float(raw["time_scale"]),
            status=Status(raw["status"]),
            hand_no=raw["hand_no"], dealer=raw["dealer"],
            decks=_cards2(raw["decks"]),
            scores=tuple(raw["scores"]), peg_from=tuple(raw["peg_from"]),
            dealt=_cards2(raw["dealt"]), gave=_cards2(raw["gave"]),
            held=_cards2(raw["held"]), laid=_cards2(raw["laid"]),
            crib=tuple(raw["crib"]), stock=tuple(raw["stock"]), starter=raw["starter"],
            series=tuple((s, c) for s, c in raw["series"]),
            go=tuple(raw["go"]), turn=raw["turn"], turn_since=raw["turn_since"],
            give_deadline=raw["give_deadline"],
            show=tuple(ShowEntry.from_json(e) for e in raw["show"]),
            next_at=raw["next_at"],
            claim=None if raw["claim"] is None else Claim.from_json(raw["claim"]),
            ready=tuple(raw["ready"]),
            coach=tuple(None if c is None else Coach.from_json(c) for c in raw["coach"]),
            game_points=None if raw["game_points"] is None
            else GamePoints.from_json(raw["game_points"]),
            match=tuple((p, v) for p, v in raw["match"]),
        )


def _cards2(raw: Sequence[Sequence[str]]) -> tuple[Cards, ...]:
    return tuple(tuple(x) for x in raw)


def _plain(value: Any) -> Any:
    if hasattr(value, "to_json"):
        return value.to_json()
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


__all__ = ["CRIB", "Cards", "Claim", "Coach", "GamePoints", "ShowEntry", "State"]
