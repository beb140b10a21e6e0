"""One game played to its end by its computer players, the way the table plays it,
with every state, view and redacted event audited on the way (the contract of
crisp.games.api, docs/adding-a-game.md).

`play(game, seats, seed)` starts a game of `seats` players with the default
options, and loops: a deadline that has passed is advanced (as the table's
scheduler does); else one player the game waits for (`to_act`) sends what its
bot decides from its own view; else the clock jumps to the next deadline. Every
change is followed by each bot's `observe` (its seat's view and events only).
After every change, `check` holds the game to the contract:
- the view of every seat and of a watcher (None) is JSON, shows no card the game
  says that viewer may not know (`hidden`), and names no generator seed;
- every event, as each seat and a watcher receive it, shows a card hidden from
  them only through the event's own markers (`private` to them, or a `secret`
  field of their own), never a `sealed` field, never the seed nor a word of the
  generator's state;
- `to_json` survives a JSON round trip: the same stored form and the same views;
- the cards (`cards`) are the same multiset after every change, each once;
- the view's `version`, when the game has one, grows with every change.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from crisp.games.api import Audited, Ctx, Event, Game, Setup

CARD = re.compile(r"^[A2-9TJQK][SHDC]$")
STEP_MS = 700  # the clock's step between two moves (a brisk human pace)
MAX_MOVES = 6000  # a game that has not ended by then is stuck (a bug)
SEED_BASE = 90_417_253  # a seed too distinctive to appear in a view by chance


CARDS = frozenset(r + s for r in "A23456789TJQK" for s in "SHDC")  # what CARD matches


def ints_in(value: Any) -> list[int]:
    """Every integer in a JSON value."""
    return scan(value)[0]


def cards_in(value: Any) -> list[str]:
    """Every card (a two-character string like "TS") in a JSON value."""
    return scan(value)[1]


def scan(value: Any) -> tuple[list[int], list[str]]:
    """Every integer (not a bool) and every card in a JSON value (dicts' values,
    lists' and tuples' items), in one pass: the audit reads both of every view and
    event, ~90,000 values a run of the contract suite (a walk without recursion
    and a set of the 52 cards instead of the CARD pattern: a third of its time)."""
    ints: list[int] = []
    cards: list[str] = []
    stack = [value]
    while stack:
        v = stack.pop()
        t = type(v)
        if t is str:
            if v in CARDS or (v[-1:] == "\n" and CARD.match(v)):  # CARD's $: "TS\n" too
                cards.append(v)
        elif t is int:
            ints.append(v)
        elif t is dict:
            stack.extend(reversed(v.values()))
        elif t is list or t is tuple:
            stack.extend(reversed(v))
        elif isinstance(v, dict):
            stack.extend(reversed(v.values()))
        elif isinstance(v, list | tuple):
            stack.extend(reversed(v))
        elif isinstance(v, int) and not isinstance(v, bool):
            ints.append(v)
        elif isinstance(v, str) and CARD.match(v):
            cards.append(v)
    return ints, cards


@dataclass
class Played:
    """What one game did: the moves in order and the final stored form."""

    moves: list[tuple[int, str, dict[str, Any]]] = field(default_factory=list)
    final: Any = None
    changes: int = 0
    views: int = 0
    events: int = 0


class Auditor:
    def __init__(self, game: Game[Any, Any], players: list[str], seed: int,
                 rng: random.Random | None = None) -> None:
        assert isinstance(game, Audited), f"{game.id}: cards() and hidden() are missing"
        self.game = game
        self.audited: Audited[Any] = game
        self.viewers: list[str | None] = [*players, None]
        self.seed = str(seed)
        self.rng = rng
        self.rng_words: set[int] = set()  # every state word the generator has had (large ones)
        self.deck: Counter[str] | None = None
        self.version: int | None = None
        self.played = Played()

    def check(self, before: Any, state: Any, events: list[Event], now: int) -> None:
        game, audited = self.game, self.audited
        self.played.changes += 1
        if self.rng is not None:  # a time or a count is never this large
            self.rng_words.update(w for w in self.rng.getstate()[1] if w >= 1 << 24)
        stored = game.to_json(state)
        text = json.dumps(stored, sort_keys=True)
        again = game.from_json(json.loads(text))
        assert json.dumps(game.to_json(again), sort_keys=True) == text, "to_json round trip"
        cards = Counter(audited.cards(state))
        assert all(n == 1 for n in cards.values()), f"a card twice: {cards.most_common(2)}"
        if self.deck is None or not self.deck:
            self.deck = cards
        assert not cards or cards == self.deck, "cards are not conserved"
        hiddens = {viewer: audited.hidden(state, viewer) for viewer in self.viewers}
        for viewer in self.viewers:
            view = game.view(state, viewer, now)
            assert game.view(again, viewer, now) == view, "a reloaded state shows otherwise"
            self._clean(view, hiddens[viewer], f"view of {viewer}")
            self.played.views += 1
            if viewer is None:
                version = view.get("version")
                if version is not None:
                    assert self.version is None or version > self.version, "version"
                    self.version = version
        for ev in events:
            for viewer in self.viewers:
                seen = game.redact(ev, viewer)
                if seen is None:
                    continue
                self.played.events += 1
                assert seen["kind"] == ev.kind
                assert not set(ev.sealed) & set(seen), f"a sealed field reached {viewer}"
                mine = (ev.private is not None and viewer in ev.private) or (
                    viewer is not None and ev.data.get("player") == viewer)
                hidden = hiddens[viewer]
                open_part = {k: v for k, v in seen.items()
                             if not (mine and (ev.private is not None or k in ev.secret))}
                # the whole event: no seed, no generator; its open part: no hidden card
                # (the open part's seed and integers are the whole event's, checked here)
                what = f"event {ev.kind} to {viewer}"
                shown = self._clean(seen, frozenset(), what)
                if len(open_part) < len(seen):
                    shown = scan(open_part)[1]
                leaked = hidden.intersection(shown)
                assert not leaked, f"{what} shows hidden cards {sorted(leaked)}: {open_part}"

    def _clean(self, value: Any, hidden: frozenset[str], what: str) -> list[str]:
        """`value` names no seed nor generator and shows none of `hidden`; its cards."""
        text = json.dumps(value)
        assert self.seed not in text, f"the generator's seed in the {what}"
        assert '"seed"' not in text and '"rng"' not in text, f"a generator in the {what}"
        ints, cards = scan(value)
        assert not self.rng_words.intersection(ints), f"the generator's state in the {what}"
        leaked = hidden.intersection(cards)
        assert not leaked, f"{what} shows hidden cards {sorted(leaked)}: {value}"
        return cards


def play(game: Game[Any, Any], seats: int, seed: int, options: Mapping[str, Any] | None = None,
         level: str | None = None, audit: bool = True) -> Played:
    """One game of `seats` computer players to its end, audited at every change
    (`audit=False`: only played, for a game the same seed has already audited; the
    audit draws nothing from the game's generator, so the moves are the same)."""
    rng = random.Random(seed)
    players = [f"p{i + 1}" for i in range(seats)]
    auditor = Auditor(game, players, seed, rng)
    check = auditor.check if audit else lambda *_: None
    now = 1_000
    opts = {name: opt.default for name, opt in game.options.items()} | dict(options or {})
    state, events = game.start(players, opts, Setup(), Ctx(now, rng))
    check(None, state, events, now)
    levels = [level or game.bot_levels[i % len(game.bot_levels)] for i in range(seats)]
    bots = {p: game.bot(lv) for p, lv in zip(players, levels, strict=True)}
    memory = {p: bots[p].fresh(p) for p in players}

    def follow(new: Any, evs: list[Event]) -> None:
        for p in players:
            seen = [e for e in (game.redact(ev, p) for ev in evs) if e is not None]
            memory[p] = bots[p].observe(memory[p], game.view(new, p, now), seen)
            json.dumps(memory[p])  # a bot's memory is kept in the room document

    follow(state, events)
    while game.outcome(state) is None:
        assert len(auditor.played.moves) < MAX_MOVES, f"{game.id}: no end after {MAX_MOVES} moves"
        due = game.due(state)
        if due is not None and due <= now:
            new, evs = game.advance(state, Ctx(now, rng))
            assert new is not state or not evs
            if new is not state:
                check(state, new, evs, now)
                state = new
                follow(state, evs)
            continue
        acting = list(game.to_act(state, now))
        rng.shuffle(acting)
        for p in acting:
            message = bots[p].decide(memory[p], game.view(state, p, now), now, rng)
            if message is None:
                continue
            assert set(game.legal(state, p, now)) >= {message["type"]}, message
            action = game.parse(json.loads(json.dumps(message)))
            new, evs = game.apply(state, p, action, Ctx(now, rng))
            auditor.played.moves.append((now, p, dict(message)))
            check(state, new, evs, now)
            state = new
            follow(state, evs)
            break
        else:
            if due is None:
                assert acting, f"{game.id}: nobody to act and no deadline: stuck"
                now += STEP_MS
            else:
                now = max(now + 1, min(due, now + STEP_MS)) if acting else due
            continue
        now += rng.randrange(STEP_MS)
    auditor.played.final = game.to_json(state)
    outcome = game.outcome(state)
    assert outcome is not None and set(outcome.winners) <= set(players)
    assert set(outcome.points) <= set(players)
    return auditor.played
