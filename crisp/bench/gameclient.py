"""`crisp bench --game ID`: seats that play any registered game with that game's own
computer player (issue 38).

A game is behind one interface (crisp/games/api.py): `registry.get(ID).bot(level)`
decides the client message a seat sends from the seat's view and its memory
(`decide(memory, view, now, rng)`, after `observe(memory, view, events)` of each
update). So the driver knows no rules: a `GameClient` is the bench's `Client`
(one websocket, one action in flight, the pace's think time before each move)
whose decisions are the bot's, plus the host's table messages no bot takes
(`start` once every seat is connected, `next_round` and `rematch` when legal).

- **Waiting for the clock.** A view may name a moment from which a move becomes
  legal (Crisp's `turn.may_start_at`: the draw is added to `legal` by the client,
  answers.legal_at). When the bot has nothing to do, the seat decides again at
  the earliest future time its view names (a field named `*_at`, `*deadline` or
  `*_until`, at the top or one level down), plus a reaction time.
- **The answer** to a message: for Crisp, the events `answers.ANSWER` names; for
  any other game, the first update with an event of this seat's (`player` is its
  id), or whose `legal` no longer offers what the seat sent (a Cribbage `ready`
  is told by no event until every seat is ready), or with any event for a table
  message of the host's. A refusal is an error whose `ref` is the message's id.

The floors speak only their own minimal protocol: `--floor` and `--outside-floor`
are driven by the plain `Client` whatever `--game` says.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Mapping
from typing import Any

from crisp.engine import ActionType as A
from crisp.games import registry
from crisp.games.api import Bot, Game
from crisp.table.vocabulary import TableStatus

from .answers import ANSWER, announces, legal_at
from .client import Client, Driver, Room

HOST_KINDS = (A.START, A.NEXT_ROUND, A.REMATCH, A.OPTIONS)
TIME_SUFFIXES = ("_at", "deadline", "_until")
BOT_ERRORS = "bot_failed"
# A game's view as of `now` where the client adds what the clock alone makes legal.
AT_NOW: dict[str, Callable[[dict[str, Any], float], dict[str, Any]]] = {"crisp": legal_at}


def game_for(game_id: str, players: int) -> Game[Any, Any]:
    """The registered game `game_id`, if `players` seats can play it; ValueError
    with the reason otherwise (an unknown id, a seat count out of its range)."""
    try:
        game = registry.get(game_id)
    except registry.UnknownGame:
        known = ", ".join(registry.BUILTIN)
        raise ValueError(f"no game {game_id!r} is registered (built in: {known})") from None
    if not game.seats.min <= players <= game.seats.max:
        raise ValueError(f"{game_id} seats {game.seats.min}-{game.seats.max} players, "
                         f"not {players} (--players)")  # fmt: skip
    return game


def hosted_check(game_id: str, listing: Mapping[str, Any]) -> str | None:
    """Why a server whose `GET /api/games` answered `listing` cannot host `game_id`
    rooms, or None."""
    hosted = [g.get("id") for g in listing.get("games", []) if isinstance(g, Mapping)]
    if game_id in hosted:
        return None
    return (f"the server does not host {game_id!r} yet (GET /api/games lists "
            f"{', '.join(map(str, hosted)) or 'nothing'})")  # fmt: skip


def next_time(view: Mapping[str, Any], now: float) -> float | None:
    """The earliest moment (ms) after `now` that the view names, or None."""
    found: list[float] = []

    def scan(d: Mapping[str, Any], depth: int) -> None:
        for key, value in d.items():
            if isinstance(value, Mapping) and depth < 1:
                scan(value, depth + 1)
            elif (isinstance(value, int | float) and not isinstance(value, bool)
                  and value > now and key.endswith(TIME_SUFFIXES)):  # fmt: skip
                found.append(float(value))

    scan(view, 0)
    return min(found) if found else None


class GameClient(Client):
    """A seat playing `game` with its bot of `level` (see the module's text)."""

    def __init__(self, driver: Driver, room: Room, pid: str, token: str, counter: bool,
                 game: Game[Any, Any], level: str) -> None:  # fmt: skip
        super().__init__(driver, room, pid, token, counter)
        self.game_id = game.id
        self.bot: Bot = game.bot(level)
        self.memory: Any = self.bot.fresh(pid)
        self.at_now = AT_NOW.get(game.id)

    def observe(self, view: dict[str, Any], events: list[dict[str, Any]]) -> None:
        try:
            self.memory = self.bot.observe(self.memory, view, events)
        except Exception:
            self._bot_failed()

    def answered(self, events: list[dict[str, Any]], kind: str, fields: dict[str, Any]) -> bool:
        if self.game_id == registry.DEFAULT and kind in ANSWER:
            return announces(events, kind, self.pid, fields)
        if kind in HOST_KINDS:
            return bool(events)
        if any(e.get("player") == self.pid for e in events):
            return True
        # No event of its own (Cribbage's first `ready` of a hand tells nobody): the
        # update that no longer offers what the seat sent (it was offered when sent).
        return kind not in ((self.view or {}).get("legal") or [])

    def _now_view(self, view: dict[str, Any], now: float) -> dict[str, Any]:
        return self.at_now(view, now) if self.at_now is not None else view

    def _choose(self, view: dict[str, Any], now: float) -> dict[str, Any] | None:
        """The bot's message, else the host's table message, else None."""
        try:
            message = self.bot.decide(self.memory, view, int(now), self.d.rng)
        except Exception:
            self._bot_failed()
            message = None
        if message is not None:
            return dict(message)
        if view.get("host") != self.pid:
            return None
        legal = view.get("legal") or []
        if view.get("status") == TableStatus.LOBBY:
            players = view.get("players") or []
            ready = self.room.go and len(players) >= self.room.size \
                and all(p.get("connected") for p in players)  # fmt: skip
            return {"type": A.START} if ready and A.START in legal else None
        return next(({"type": k} for k in (A.NEXT_ROUND, A.REMATCH) if k in legal), None)

    def plan(self, view: dict[str, Any]) -> None:
        now = time.time() * 1000
        seen = self._now_view(view, now)
        message = self._choose(seen, now)
        if message is None:
            wake = next_time(seen, now)
            key: tuple[Any, ...] = ("wake", wake)
        else:
            key = ("send", json.dumps(message, sort_keys=True))
        if self.timer is not None and self.planned == key:
            return  # the same decision: its think time runs on
        self.cancel()
        if message is not None:
            kind = str(message.pop("type"))
            self._schedule((kind, message, self.d.pace.think(kind, self.d.rng), None), key)
        elif wake is not None:
            delay = (wake - now) / 1000 + self.d.pace.react(self.d.rng) + 0.003
            self._later(delay, key)

    def _later(self, delay: float, key: tuple[Any, ...]) -> None:
        self.planned = key
        self.timer = asyncio.get_running_loop().call_later(delay, self._wake)

    def _wake(self) -> None:
        self.timer = None
        self.planned = None
        self.replan()

    def _fire(self, kind: str, fields: dict[str, Any], deadline: float | None) -> None:
        self.timer = None
        self.planned = None
        st = self.d.stats
        if st.stopping or self.ws is None or self.inflight is not None or self.view is None:
            return
        if kind not in self._now_view(self.view, time.time() * 1000).get("legal", []):
            self.plan(self.view)  # the table moved on meanwhile: decide again
            return
        self._send(kind, fields)

    def _bot_failed(self) -> None:
        if self.d.stats.measuring:
            self.d.stats.errors[BOT_ERRORS] += 1
