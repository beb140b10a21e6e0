"""Fuzz: `apply()` with arbitrary objects, from every seat and from strangers, at
arbitrary times, mixed with legal play so every phase is reached.

Whatever it is given, `apply()` raises only InvalidAction (malformed input,
code `bad_message`) or IllegalAction (refused by the rules), never mutates its
input (neither the state nor the action object), and every state it returns
round-trips exactly through JSON text (no NaN, no enum left unreadable).
"""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from crisp.engine import (
    ErrorCode,
    IllegalAction,
    InvalidAction,
    Options,
    Slot,
    Source,
    State,
    add_player,
    apply,
    legal,
    new_table,
    set_connected,
)
from crisp.engine.actions import (
    CLASS_OF,
    AddBot,
    CallCrisp,
    Draw,
    Kick,
    SetOptions,
    Swap,
    UseQueen,
)

T0 = 1_000_000
FIELDLESS = {kind: cls for kind, cls in CLASS_OF.items() if not cls.__dataclass_fields__}
WITH_FIELDS = (SetOptions, Kick, Draw, Swap, UseQueen, AddBot, CallCrisp)
ODD_VALUES = [0, 1, 2, 3, -1, True, False, 1.0, float("nan"), float("inf"), "", "left",
              "easy", "normal", "hard",
              "middle", "stock", "discard", "x", "p1", "p2", "p9", None, 7, 50, 100, 30, 2**70,
              Slot.LEFT, Slot.RIGHT, Source.STOCK, Source.DISCARD, b"stock", [1], {"a": 1}]

plain = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner,
                                                                 max_size=3),
    max_leaves=6,
)
field_value = st.sampled_from(ODD_VALUES) | plain


class Hollow:
    """Stands for an action object whose fields were never set (built after drawing,
    since such an object cannot even be printed)."""

    def __init__(self, cls: type) -> None:
        self.cls = cls

    def __repr__(self) -> str:
        return f"Hollow({self.cls.__name__})"


@st.composite
def odd_action(draw: st.DrawFn) -> object:
    """Anything: an action class with arbitrary fields, a protocol dict, a plain value,
    an action object whose fields were never set, a class instead of an instance."""
    kind = draw(st.integers(0, 5))
    if kind == 0:
        cls = draw(st.sampled_from(WITH_FIELDS))
        n = len(cls.__dataclass_fields__)
        return cls(*draw(st.lists(field_value, min_size=n, max_size=n)))
    if kind == 1:
        return draw(st.sampled_from(list(FIELDLESS.values())))()
    if kind == 2:
        return {"type": draw(st.sampled_from(["draw", "swap", "start", "x"])),
                "slot": draw(field_value), "source": draw(field_value)}
    if kind == 3:
        return Hollow(draw(st.sampled_from(WITH_FIELDS)))
    if kind == 4:
        return draw(st.sampled_from(list(CLASS_OF.values())))
    return draw(plain)


def legal_action(state: State, player: str, kind: str, rng: random.Random) -> object:
    """A well-formed action of a listed type, with arguments that may still be refused."""
    others = [p.id for p in state.players if p.id != player] or [player]
    slot = Slot(rng.randrange(3))
    made: dict[str, object] = {
        "options": SetOptions(limit=rng.choice((50, 100, 150))),
        "kick": Kick(rng.choice(others)),
        "draw": Draw(rng.choice(list(Source))),
        "swap": Swap(slot),
        "queen": UseQueen(slot, rng.choice(others), Slot(rng.randrange(3))),
        "add_bot": AddBot(rng.choice(("easy", "normal"))),
        "crisp": CallCrisp(rng.choice((0, 150, 300))),  # R18.4: a measured delay
    }
    return made[kind] if kind in made else FIELDLESS[kind]()


def table(players: int, options: Options, rng: random.Random) -> State:
    """A lobby of connected players whose running totals may already be near the
    limit (so that a single round can end the game, R12.5)."""
    state = new_table("P1", options)
    for i in range(2, players + 1):
        state, _, _ = add_player(state, f"P{i}", T0)
    for p in [p.id for p in state.players]:
        state, _ = set_connected(state, p, True, T0)
    raw = state.to_json()
    for p in raw["players"]:
        p["total"] = rng.choice((0, options.limit - 1))
    return State.from_json(raw)


def text(state: State) -> str:
    return json.dumps(state.to_json(), sort_keys=True, allow_nan=False)


def shape(action: object) -> str:
    """A text that changes when the action object changes (repr fails on unset fields)."""
    try:
        return repr(action)
    except AttributeError:
        return f"unset {type(action).__name__}"


def check_apply(state: State, player: str, action: object, now: int,
                rng: random.Random) -> State:
    before, shown = text(state), shape(action)
    try:
        new, events = apply(state, player, action, now, rng)
    except InvalidAction as err:
        assert err.code == ErrorCode.BAD_MESSAGE and not isinstance(err, IllegalAction)
        new = state
    except IllegalAction as err:
        assert err.code in set(ErrorCode)
        new = state
    else:
        assert new.version > state.version
        assert json.loads(json.dumps([e.to_json() for e in events], allow_nan=False))
    assert text(state) == before, "apply() mutated its input state"
    assert shape(action) == shown, "apply() mutated the action it was given"
    raw = json.loads(text(new))
    restored = State.from_json(raw)
    assert restored == new and text(restored) == text(new), "the JSON round trip is not exact"
    return new


def next_move(state: State, now: int, rng: random.Random) -> tuple[str, object] | None:
    """A random listed action of any seat: rarely a kick, a leave or a new computer
    player (so that lobbies start and games go on), often crisp when it is listed
    (so that rounds end)."""
    choices = [(p.id, k) for p in state.players for k in legal(state, p.id, now)
               if k not in ("kick", "leave", "add_bot") or rng.random() < 0.05]
    if not choices:
        return None
    crisp = [c for c in choices if c[1] == "crisp"]
    player, kind = crisp[0] if crisp and rng.random() < 0.5 else rng.choice(choices)
    return player, legal_action(state, player, kind, rng)


def time_step(rng: random.Random) -> int:
    """Mostly small steps forward, sometimes past every deadline, sometimes backwards."""
    roll = rng.random()
    if roll < 0.6:
        return rng.randrange(0, 2_500)
    if roll < 0.8:
        return rng.randrange(0, 70_000)
    return rng.randrange(-3_000, 0)


options_st = st.builds(Options, st.sampled_from((50, 100, 150)),
                       st.sampled_from((30, 45, 60, None)), st.booleans())


@settings(max_examples=30, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(players=st.integers(2, 4), options=options_st, seed=st.integers(0, 2**16),
       odd=st.lists(odd_action(), min_size=10, max_size=30))
def test_apply_raises_only_typed_errors_and_never_mutates(
        players: int, options: Options, seed: int, odd: list[object]) -> None:
    rng = random.Random(seed)
    state = table(players, options, rng)
    now = T0
    ids = [p.id for p in state.players] + ["p9", ""]
    pending = list(odd)
    for _ in range(150):
        now += time_step(rng)
        move = next_move(state, now, rng)
        action: Any
        if move is None or (pending and rng.random() < 0.3):
            if not pending:
                break
            player, action = rng.choice(ids), pending.pop()
            if isinstance(action, Hollow):
                action = object.__new__(action.cls)
        else:
            player, action = move
        state = check_apply(state, player, action, now, rng)
