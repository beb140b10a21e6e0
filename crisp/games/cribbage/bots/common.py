"""What every level shares: reading the seat's view (and only it), the unseen
cards, the claim and muggins of C8.1, `ready`; a level supplies `choose_give`
and `choose_lay`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Any

from ...api import JSON, Rng
from ..actions import CallMuggins, ClaimPoints, Give, Lay, Ready, to_message
from ..cards import DECK
from ..show_score import score_show
from ..vocabulary import CRIB, Status

View = Mapping[str, Any]


def me(memory: JSON, view: View) -> str:
    you = view.get("you")
    return str(you if you is not None else memory["player"])


def my_seat(memory: JSON, view: View) -> int:
    pid = me(memory, view)
    return next(i for i, p in enumerate(view["players"]) if p.get("id") == pid)


def seen_cards(view: View) -> set[str]:
    """Every card this seat has seen (C10.2: nothing else is used)."""
    seen: set[str] = set(view.get("hand") or []) | set(view.get("gave") or [])
    for p in view["players"]:
        seen.update(p["laid"])
    if view.get("starter"):
        seen.add(view["starter"])
    for e in view.get("show") or []:
        seen.update(e["cards"])
    crib = view.get("crib") or {}
    seen.update(crib.get("cards") or [])
    return seen


def unseen(view: View) -> list[str]:
    seen = seen_cards(view)
    return [c for c in DECK if c not in seen]


def own_crib(view: View, seat: int) -> bool:
    """Whether the crib is this seat's or its team's (C3.4)."""
    players = view["players"]
    dealer = next(i for i, p in enumerate(players) if p.get("id") == view["dealer"])
    if len(players) == 4:
        return dealer % 2 == seat % 2
    return dealer == seat


def give_choices(hand: Sequence[str], n_players: int) -> list[tuple[str, ...]]:
    return list(combinations(hand, 2 if n_players == 2 else 1))


class BaseBot:
    """The `Bot` protocol over a level's two choices."""

    level: str = "base"
    calls_muggins = True

    def fresh(self, player: str) -> JSON:
        return {"player": player}

    def observe(self, memory: JSON, view: View, events: Sequence[Mapping[str, JSON]]) -> JSON:
        return memory

    def decide(self, memory: JSON, view: View, now: int, rng: Rng) -> dict[str, JSON] | None:
        msg = self._decide(memory, view, now, rng)
        legal = view.get("legal")  # in the table's view; the game's own has none
        if msg is not None and legal is not None and msg["type"] not in legal:
            return None
        return msg

    def _decide(self, memory: JSON, view: View, now: int, rng: Rng) -> dict[str, JSON] | None:
        seat = my_seat(memory, view)
        mine = view["players"][seat]
        status = view["status"]
        if status == Status.GIVE and not mine["gave"]:
            return to_message(Give(self.choose_give(view, seat, rng)))
        turn = view.get("turn")
        if (status == Status.PLAY and turn and turn["player"] == mine["id"]
                and view.get("playable")):
            return to_message(Lay(self.choose_lay(view, seat, rng)))
        claim = view.get("claim")
        if status == Status.SHOW and claim:
            if claim["by"] == mine["id"] and claim["muggins_until"] is None:
                return to_message(ClaimPoints(self.true_points(view)))
            if (self.calls_muggins and claim["muggins_until"] is not None
                    and now <= claim["muggins_until"] and self._opponent(view, seat, claim["by"])):
                entry = view["show"][-1]
                if entry["claimed"] is not None and entry["claimed"] < self.true_points(view):
                    return to_message(CallMuggins())
            return None
        if status == Status.HAND_OVER and not mine.get("ready"):
            return to_message(Ready())
        return None

    @staticmethod
    def _opponent(view: View, seat: int, other: str) -> bool:
        players = view["players"]
        j = next(i for i, p in enumerate(players) if p["id"] == other)
        return (j % 2 != seat % 2) if len(players) == 4 else j != seat

    @staticmethod
    def true_points(view: View) -> int:
        entry = view["show"][-1]
        return sum(i.points for i in score_show(entry["cards"], view["starter"],
                                                entry["whose"] == CRIB))

    def choose_give(self, view: View, seat: int, rng: Rng) -> tuple[str, ...]:
        raise NotImplementedError

    def choose_lay(self, view: View, seat: int, rng: Rng) -> str:
        raise NotImplementedError
