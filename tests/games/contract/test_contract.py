"""The contract every game keeps (crisp.games.api; docs/adding-a-game.md): run over
every registered game and the test-only game, with no knowledge of any rule.
What `play` audits at every change is listed in audit.py."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from crisp.games import registry
from crisp.games.api import BadMessage, Ctx, Game, GameError, Setup, options_of
from tests.games.contract import highcard
from tests.games.contract.audit import SEED_BASE, play
from tests.games.contract.conftest import contract_games

GAMES = contract_games()
SEATS = [pytest.param(g, n, id=f"{g.id}-{n}") for g in GAMES
         for n in range(g.seats.min, g.seats.max + 1)]
LEVELS = [pytest.param(g, lv, id=f"{g.id}-{lv}") for g in GAMES for lv in g.bot_levels]
BY_ID = [pytest.param(g, id=g.id) for g in GAMES]


@pytest.mark.parametrize(("game", "seats"), SEATS)
def test_every_seat_count_plays_to_the_end_audited(game: Game[Any, Any], seats: int) -> None:
    played = play(game, seats, SEED_BASE + seats)
    assert played.moves and played.views and played.events


@pytest.mark.parametrize(("game", "level"), LEVELS)
def test_every_level_plays_to_the_end(game: Game[Any, Any], level: str) -> None:
    assert play(game, game.seats.min, SEED_BASE + 17, level=level).moves


@pytest.mark.parametrize("game", BY_ID)
def test_the_same_seed_plays_the_same_game(game: Game[Any, Any]) -> None:
    seats = min(game.seats.min + 1, game.seats.max)
    first = play(game, seats, SEED_BASE + 99)
    again = play(game, seats, SEED_BASE + 99, audit=False)  # the same game: audited once
    assert first.moves == again.moves
    assert json.dumps(first.final, sort_keys=True) == json.dumps(again.final, sort_keys=True)
    other = play(game, seats, SEED_BASE + 100)
    assert json.dumps(other.final, sort_keys=True) != json.dumps(first.final, sort_keys=True)


@pytest.mark.parametrize("game", BY_ID)
def test_the_game_describes_itself(game: Game[Any, Any]) -> None:
    """What GET /api/games lists: seats, options with defaults among their choices,
    levels; all of it JSON."""
    assert game.id and game.id == game.id.lower()
    assert 1 <= game.seats.min <= game.seats.max
    assert game.bot_levels
    for name, option in game.options.items():
        assert option.default in option.choices, name
        json.dumps([option.default, list(option.choices)])


@pytest.mark.parametrize("game", BY_ID)
def test_options_are_the_games_own(game: Game[Any, Any]) -> None:
    """What the table takes from a host (`options_of`): the game's names and choices only."""
    defaults = {name: opt.default for name, opt in game.options.items()}
    assert options_of(game, {}) == defaults
    for name, option in game.options.items():
        for choice in option.choices:
            assert options_of(game, {name: choice})[name] == choice
        for wrong in ("surely not", 10**9, [option.default]):
            with pytest.raises(BadMessage):
                options_of(game, {name: wrong})
    with pytest.raises(BadMessage):
        options_of(game, {"no_such_option": 1})
    for name, option in game.options.items():  # every choice starts a game
        for choice in option.choices:
            players = [f"p{i + 1}" for i in range(game.seats.min)]
            game.start(players, {**defaults, name: choice}, Setup(), Ctx(1_000,
                       random.Random(SEED_BASE)))


@pytest.mark.parametrize("game", BY_ID)
def test_a_refused_message_changes_nothing(game: Game[Any, Any]) -> None:
    rng = random.Random(SEED_BASE)
    players = [f"p{i + 1}" for i in range(game.seats.min)]
    opts = {name: opt.default for name, opt in game.options.items()}
    state, _ = game.start(players, opts, Setup(), Ctx(1_000, rng))
    before = json.dumps(game.to_json(state), sort_keys=True)
    for message in ({}, {"type": 7}, {"type": "no_such_move"}, {"type": None, "card": "AS"}):
        with pytest.raises(BadMessage):
            game.parse(message)
    idle = [p for p in players if p not in game.to_act(state, 1_000)]
    for p in idle:  # what a player the game does not wait for sends is refused
        for message in _first_moves(game, state, players):
            with pytest.raises(GameError):
                game.apply(state, p, game.parse(message), Ctx(1_000, rng))
    assert json.dumps(game.to_json(state), sort_keys=True) == before
    assert game.legal(state, None, 1_000) == []  # a watcher may do nothing


def _first_moves(game: Game[Any, Any], state: Any, players: list[str]) -> list[Any]:
    """What each waited-for player's bot would send first (a well-formed message)."""
    out = []
    for p in game.to_act(state, 1_000):
        bot = game.bot(game.bot_levels[0])
        message = bot.decide(bot.fresh(p), game.view(state, p, 1_000), 1_000,
                             random.Random(SEED_BASE))
        if message is not None:
            out.append(dict(message))
    return out


def test_the_audit_catches_a_leak() -> None:
    """The suite's own check: a game that shows every hand to everyone fails it."""

    class Leaky(highcard.HighCard):
        def view(self, state: Any, player: str | None, now: int) -> dict[str, Any]:
            return {**super().view(state, player, now), "all": state["hands"]}

    with pytest.raises(AssertionError, match="hidden cards"):
        play(Leaky(), 2, SEED_BASE)

    class Telling(highcard.HighCard):  # shows a word of the generator's state
        def start(self, players: Any, options: Any, setup: Setup, ctx: Ctx) -> Any:
            state, events = super().start(players, options, setup, ctx)
            word = max(ctx.rng.getstate()[1][:8])  # type: ignore[attr-defined]
            return {**state, "salt": word}, events

        def view(self, state: Any, player: str | None, now: int) -> dict[str, Any]:
            return {**super().view(state, player, now), "salt": state["salt"]}

    with pytest.raises(AssertionError, match="generator's state"):
        play(Telling(), 2, SEED_BASE)


def test_the_test_game_is_registered_only_while_a_test_hosts_it(
        hosted_highcard: Game[Any, Any]) -> None:
    assert registry.get(highcard.GAME_ID) is hosted_highcard
    assert highcard.GAME_ID in [g.id for g in registry.all_games()]
