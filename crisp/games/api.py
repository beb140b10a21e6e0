"""What a game is, to the table (design.md "Many games behind one table").

A game is a pure module: no I/O, no clock reads, no asyncio; randomness only
through the `Rng` passed in. The table (seats, host, options, lobby, presence,
watchers, versions, the stored document, replays) calls a game only through
`Game`, and a game imports nothing from `crisp.server` or `crisp.table`.

Players are named by their table ids ("p1", "p2", ...) given to `start` in seat
order; a watcher is the viewer `None`. Times are integer milliseconds of the
table's clock, always passed in (`now`), never read. Cards on the wire are the
two-character strings of protocol.md ("TS", "5H", "AC").
"""

from __future__ import annotations

from collections.abc import Mapping, MutableSequence, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar, runtime_checkable

JSON = Any  # a value `json.dumps` accepts (dict, list, str, int, float, bool, None)
S = TypeVar("S")  # a game's own state type
A = TypeVar("A")  # a game's own typed action
S_in = TypeVar("S_in", contravariant=True)  # a game's state, as `Audited` reads it


class Rng(Protocol):
    """The only source of randomness a game may use: `secrets.SystemRandom()` on the
    server (a CSPRNG), `random.Random(seed)` in tests and simulations."""

    def random(self) -> float: ...
    def randrange(self, start: int, stop: int | None = ..., step: int = ...) -> int: ...
    def shuffle(self, x: MutableSequence[Any]) -> None: ...


@dataclass(frozen=True)
class SeatRule:
    """How many seats a game takes; `teams`: at `max` seats, partners are seat % 2."""

    min: int
    max: int
    teams: bool = False


@dataclass(frozen=True)
class Option:
    """One host option: its default and every allowed value (GET /api/games)."""

    default: JSON
    choices: tuple[JSON, ...]


@dataclass(frozen=True)
class Setup:
    """What the table hands `start` besides seats and options.

    `decks`: test decks (CRISP_TEST_HOOKS only), used in order for the first
    hands (or one per seat, as the game says); `None` means shuffle with `rng`.
    `dealer`: a test dealer seat, or None. `time_scale` multiplies every game
    duration (CRISP_TIME_SCALE); `match`: the match tally so far by player id
    (rematches, C8.4); `previous`: the last game's final state at this table (a
    rematch: C3.2's loser deals first), or None. A game checks it is its own
    and for the same players before it uses it."""

    decks: tuple[tuple[str, ...], ...] | None = None
    dealer: int | None = None
    time_scale: float = 1.0
    match: Mapping[str, int] = field(default_factory=dict)
    previous: Any = None


@dataclass(frozen=True)
class Ctx:
    """The moment an action or a deadline is applied at: `now` (ms), the
    randomness, the lateness the table credits this action (R18.4's network
    allowance, as data; 0 for games that do not use it), and `version`: the table
    version the change produces (what a player's later message may name, e.g. a
    Crapette call, K6.5), or None where no table numbers it."""

    now: int
    rng: Rng
    late_ms: int = 0
    version: int | None = None


@dataclass(frozen=True)
class Event:
    """Something that happened, before redaction: `kind` and its wire fields.

    Who may see what is the game's to say in `Game.redact`; `private` and
    `secret` are the common cases a game may use (redact must still be total):
    `private`: only these player ids receive the event at all; `secret`: fields
    nulled for everyone but `data["player"]`; `sealed`: fields nobody receives
    live (kept for the replay record)."""

    kind: str
    data: Mapping[str, JSON]
    private: frozenset[str] | None = None
    secret: tuple[str, ...] = ()
    sealed: tuple[str, ...] = ()


@dataclass(frozen=True)
class Outcome:
    """How a finished game ended: the winning player ids (empty for a draw) and the
    points each player adds to the match tally."""

    winners: tuple[str, ...]
    points: Mapping[str, int]


def redact_event(event: Event, player: str | None) -> dict[str, JSON] | None:
    """The common redaction of `Event`'s markers, for a game whose `redact` needs
    no more: None when `private` leaves `player` out, `sealed` fields dropped,
    `secret` fields null for everyone but `data["player"]` (a watcher, None, is
    nobody's seat: it gets no private event and no secret field)."""
    if event.private is not None and player not in event.private:
        return None
    out: dict[str, JSON] = {"kind": event.kind}
    out.update((k, v) for k, v in event.data.items() if k not in event.sealed)
    if event.secret and (player is None or event.data.get("player") != player):
        out.update((k, None) for k in event.secret)
    return out


def options_of(game: Game[Any, Any], given: Mapping[str, JSON]) -> dict[str, JSON]:
    """`game`'s options: its defaults with `given` over them. A name the game does
    not list, or a value that is not one of its choices (compared with its type:
    `1` is not `true`), is `BadMessage` (protocol v2: options are the game's own)."""
    out = {name: option.default for name, option in game.options.items()}
    for name, value in given.items():
        option = game.options.get(name)
        if option is None:
            raise BadMessage(f"{game.id} has no option {name!r}")
        if not any(type(value) is type(c) and value == c for c in option.choices):
            raise BadMessage(f"{name} must be one of {list(option.choices)}")
        out[name] = value
    return out


class GameError(Exception):
    """A refused message: `code` is a protocol.md error code (`bad_message`,
    `not_your_turn`, `wrong_phase`, `illegal`, ...), `rule` the rule id that
    forbids it (ends the message when given). The state is unchanged."""

    def __init__(self, code: str, message: str, rule: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.rule = rule
        self.message = message if rule is None else f"{message} ({rule})"


class BadMessage(GameError):
    """Not an action of this game at all (code `bad_message`)."""

    def __init__(self, message: str) -> None:
        super().__init__("bad_message", message)


class Bot(Protocol):
    """A computer player of one level. It sees only its seat: the view the table
    sends that seat and the events as redacted for it. Its memory is plain JSON
    (kept in the room document)."""

    def fresh(self, player: str) -> JSON: ...

    def observe(self, memory: JSON, view: Mapping[str, JSON],
                events: Sequence[Mapping[str, JSON]]) -> JSON: ...

    def decide(self, memory: JSON, view: Mapping[str, JSON], now: int,
               rng: Rng) -> Mapping[str, JSON] | None:
        """The client message the seat sends now (as a human's phone would), or None."""
        ...


class Game(Protocol, Generic[S, A]):
    """One game behind the table. Every method is pure; none mutates its inputs."""

    id: str
    seats: SeatRule
    options: Mapping[str, Option]
    bot_levels: tuple[str, ...]

    def start(self, players: Sequence[str], options: Mapping[str, JSON], setup: Setup,
              ctx: Ctx) -> tuple[S, list[Event]]:
        """A new game for these player ids (seat order) and valid options."""
        ...

    def parse(self, message: Mapping[str, JSON]) -> A:
        """A client message (its `type` is one of this game's) as a typed action;
        raises BadMessage."""
        ...

    def apply(self, state: S, player: str, action: A, ctx: Ctx) -> tuple[S, list[Event]]:
        """The state after `player`'s action; raises GameError (state unchanged)."""
        ...

    def due(self, state: S) -> int | None:
        """The next deadline (ms) this state waits for, or None."""
        ...

    def advance(self, state: S, ctx: Ctx) -> tuple[S, list[Event]]:
        """The state once every deadline up to `ctx.now` has passed."""
        ...

    def shift(self, state: S, ms: int) -> S:
        """R17.6: every deadline of the state `ms` later (a short time with no person
        connected, in which the game's deadlines were held: each keeps what was
        left of it)."""
        ...

    def resume(self, state: S, now: int) -> S:
        """R17.6: the table goes on after a time with no person connected (the game's
        deadlines were held meanwhile): every decision's timer running then gets its
        full time again from `now`."""
        ...

    def to_act(self, state: S, now: int) -> list[str]:
        """The players the game waits for now (the table plays away and computer
        seats among them). Name a player whose move may not begin yet too (their
        bot is asked and may answer None): a game with nobody here and no `due`
        is stuck (the contract suite fails it)."""
        ...

    def legal(self, state: S, player: str | None, now: int) -> list[str]:
        """The message types `player` may send now (the view's `legal`)."""
        ...

    def view(self, state: S, player: str | None, now: int) -> dict[str, JSON]:
        """What `player` (None: a watcher) may see: the game's top-level view fields,
        and under "players" one dict of game fields per player in seat order. The
        table (crisp/table/view.py) writes its own fields over these: `game`,
        `version`, `host`, `you`, `watching`, `options`, `legal` (its messages, then
        the game's), `winners`, `match`, and each player's `id`, `name`, `seat`,
        `connected`, `away`, `is_bot`, `bot_level`; `status` stays the game's while
        a game is played."""
        ...

    def redact(self, event: Event, player: str | None) -> dict[str, JSON] | None:
        """The event as `player` (None: a watcher) receives it, or None."""
        ...

    def outcome(self, state: S) -> Outcome | None:
        """None while the game goes on."""
        ...

    def bot(self, level: str) -> Bot:
        """The computer player of `level` (one of `bot_levels`)."""
        ...

    def to_json(self, state: S) -> JSON:
        """The stored form; `from_json(to_json(s))` equals `s`."""
        ...

    def from_json(self, raw: JSON) -> S: ...


@runtime_checkable
class Audited(Protocol[S_in]):
    """What the contract suite (tests/games/contract/) asks a game besides `Game`,
    to audit it without knowing its rules; never called by the table.

    `cards(state)`: every card of the game's decks where it lies now (hands, piles,
    stock, crib, ...), each once: the suite checks the multiset never changes
    once the game has started. `hidden(state, player)`: the cards `player` (None: a
    watcher) may not know in this state; the suite checks that no view of that
    player shows one, and that an event shows one to that player only through the
    event's own markers (`private` to them, or a `secret` field of their own)."""

    def cards(self, state: S_in) -> list[str]: ...

    def hidden(self, state: S_in, player: str | None) -> frozenset[str]: ...
