"""Tables built from card texts, and a game driven by messages, for Crapette's tests."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from typing import Any

import pytest

from crisp.games.api import Ctx, GameError
from crisp.games.crapette import GAME
from crisp.games.crapette.board import BY_NAME, Board, Move
from crisp.games.crapette.cards import parse
from crisp.games.crapette.state import Options, State
from crisp.games.crapette.vocabulary import Calls

P = ("p1", "p2")


def cards(texts: str | Sequence[str]) -> tuple[int, ...]:
    """ "AS 2H" (bottom card first) as cards."""
    items = texts.split() if isinstance(texts, str) else texts
    return tuple(parse(t) for t in items)


def board(tableau: Sequence[str] = ("",) * 8, foundations: Sequence[str | None] = (None,) * 8,
          crapette: tuple[str, str] = ("KD", "KD"), stock: tuple[str, str] = ("", ""),
          waste: tuple[str, str] = ("", ""), turned: str | None = None,
          mover: int = 0) -> Board:
    """A table from texts: each pile bottom card first; crapettes default to one
    card each (so nobody has won); tableau piles default to empty."""
    tab = tuple(cards(p) for p in tableau) + ((),) * (8 - len(tableau))
    found = tuple(-1 if f is None else parse(f) for f in foundations)
    found += (-1,) * (8 - len(found))
    return Board((cards(crapette[0]), cards(crapette[1])), (cards(stock[0]), cards(stock[1])),
                 (cards(waste[0]), cards(waste[1])), tab, found, mover,
                 -1 if turned is None else parse(turned))


def full(tableau: Sequence[str], **kw: Any) -> Board:
    """`board` with every tableau pile not given holding a King (no empty pile, so
    the obligation of K4.3 does not hold)."""
    given = list(tableau) + ["KS"] * (8 - len(tableau))
    return board(tableau=[p or "KS" for p in given], **kw)


def mv(src: str, dst: str) -> Move:
    return BY_NAME[src], BY_NAME[dst]


class Play:
    """A game over `State`, driven by wire messages, keeping every event as sent."""

    def __init__(self, start: Board, calls: Calls = Calls.OBVIOUS,
                 move_seconds: int | None = None) -> None:
        self.state = State(P, Options(calls, move_seconds), start)
        self.events: list[dict[str, Any]] = []
        self.now = 0
        self.rng = random.Random(7)

    def send(self, player: str, type: str, **fields: Any) -> list[dict[str, Any]]:
        action = GAME.parse({"type": type, **fields})
        self.state, evs = GAME.apply(self.state, player, action, Ctx(self.now, self.rng))
        out = [e for e in (GAME.redact(ev, player) for ev in evs) if e is not None]
        self.events += out
        return out

    def move(self, player: str, src: str, dst: str) -> list[dict[str, Any]]:
        return self.send(player, "move", **{"from": src, "to": dst})

    def refuse(self, player: str, type: str, **fields: Any) -> GameError:
        before = json.dumps(GAME.to_json(self.state), sort_keys=True)
        with pytest.raises(GameError) as err:
            self.send(player, type, **fields)
        assert json.dumps(GAME.to_json(self.state), sort_keys=True) == before
        return err.value

    def view(self, player: str | None = "p1") -> dict[str, Any]:
        seen: dict[str, Any] = GAME.view(self.state, player, self.now)
        return seen

    def last_version(self) -> int:
        return self.state.record[-1].version


ALL = [r + s for s in "SHDC" for r in "A23456789TJQK"]


def deck(*first: str) -> tuple[str, ...]:
    """A 52-card test deck (K10) starting with `first` (index 0 the top), then the
    other cards in a fixed order."""
    rest = [c for c in ALL if c not in first]
    assert len(set(first)) == len(first)
    return (*first, *rest)


def started(decks: tuple[tuple[str, ...], tuple[str, ...]], seed: int = 1,
            **options: Any) -> tuple[State, list[dict[str, Any]]]:
    """A game started on test decks (K10) through the adapter."""
    from crisp.games.api import Setup

    state, evs = GAME.start(list(P), options, Setup(decks=decks), Ctx(0, random.Random(seed)))
    return state, [e for e in (GAME.redact(ev, None) for ev in evs) if e is not None]
