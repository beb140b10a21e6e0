"""What one seat remembers of a round, built only from the updates it receives (R17.1).

A `Memory` is fed the redacted events of every update sent to its seat
(`observe`). It keeps, for the current round only:

- `slots`: the card it knows at each position of each hand: its own looks
  (R2.4, R7.1, R8.2, R8.3), the cards it swapped in itself (R5.1), the public
  cards others took from the discard pile and swapped in (R13.2), and every
  known card a Queen swap moved (R8.1);
- `chosen`: positions holding a card their owner drew from the stock and kept
  without showing it, so not a J, Q or K (R6.1);
- `pile`: the discard pile as it was shown face up (R16.4), and `kings`: the
  Kings played this turn, lying beside the piles until it ends (R9.3);
- `stock`: the order of a stock rebuilt from the pile (R4.2 turns the pile over
  without shuffling, so anyone who watched the pile knows it), top first, None
  where the pile was not seen; every draw from it takes its top, so the card
  another player draws there is known to this seat too;
- `aware`: which positions of each hand hold a card their owner was shown
  (R2.4, R4.1, R7.1, R8.2, R8.3), as the public events tell;
- `caps`: a soft upper bound on each position's value from its owner's public
  choices: a card kept from the stock in place of a card they knew is lower
  than the card they threw away (R5.1); a drawn card thrown away (R5.2) says the
  cards they know are not much higher. A guess about people, never a card;
- the card its own seat holds, and the card another player drew and has not yet
  placed when this seat knows it (a public pile draw, a known stock top).

Nothing else: no card is ever recorded unless it reached this seat in an event
or a view, and everything is forgotten when the next round is dealt. The memory
round-trips exactly through JSON, so a server can keep it in the room document
and play an away seat after a restart (R17.2).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from crisp.engine import PEEK, PLAYING, BotLevel, EventKind, SlotLabel, Source

SLOT_NAMES = tuple(SlotLabel)  # left, middle, right: a hand's slots in index order
SLOT_OF = {name: i for i, name in enumerate(SLOT_NAMES)}
LEVELS = (*BotLevel, "random")  # "random": the uniform policy, a bot-only level
DEALT = 0b101  # R2.4: each player was shown their left and right cards
NO_CAP = 10  # the highest value a card has (R1.3): no bound
UNAWARE_CAP = 5  # a card put in place of a card its owner never saw: one of the low ones
FACES = frozenset(r + s for r in "JQK" for s in "CDHS")
# The event kinds `_event` reads, as module names: a member looked up on its class
# costs about 0.3 us in Python 3.11, and every event passes this chain.
_ROUND_STARTED, _ROUND_OVER, _TURN_STARTED = (
    EventKind.ROUND_STARTED, EventKind.ROUND_OVER, EventKind.TURN_STARTED)
_PEEK, _DREW, _SWAPPED = EventKind.PEEK, EventKind.DREW, EventKind.SWAPPED
_DISCARDED = EventKind.DISCARDED
_KING, _JACK, _QUEEN = EventKind.KING, EventKind.JACK, EventKind.QUEEN
_STOCK_REBUILT, _CRISP = EventKind.STOCK_REBUILT, EventKind.CRISP
_DISCARD = Source.DISCARD


def _value(card: str) -> int:
    """R1.3 from the card text alone (A=1, 2-9, T/J/Q/K=10)."""
    rank = card[0]
    return 1 if rank == "A" else int(rank) if rank.isdigit() else 10


def _blank() -> list[str | None]:
    return [None, None, None]


@dataclass
class Memory:
    """One seat's recollection of the round in play. `me` is its player id."""

    me: str
    level: str = BotLevel.NORMAL
    round: int = 0
    slots: dict[str, list[str | None]] = field(default_factory=dict)
    chosen: dict[str, list[bool]] = field(default_factory=dict)
    pile: list[str] = field(default_factory=list)
    kings: list[str] = field(default_factory=list)  # played this turn, beside the piles (R9.3)
    held: str | None = None  # the card in play: mine from the stock, or a public pile draw
    held_by: str | None = None
    stock: list[str | None] = field(default_factory=list)  # R4.2: top first; [] = not known
    aware: dict[str, int] = field(default_factory=dict)  # bit i: slot i seen by its owner
    caps: dict[str, list[int]] = field(default_factory=dict)
    caller: str | None = None
    turns: int = 0  # turns started this round (public)
    my_turns: int = 0

    def __post_init__(self) -> None:
        if self.level not in LEVELS:
            raise ValueError(f"level must be one of {', '.join(LEVELS)}")

    # -- reading ----------------------------------------------------------------------

    def hand(self, player: str) -> list[str | None]:
        """The cards this seat knows in `player`'s hand (None = not known)."""
        return self.slots.get(player) or _blank()

    def kept(self, player: str) -> list[bool]:
        """Which of `player`'s positions hold a card they drew and kept unseen (R6.1)."""
        return self.chosen.get(player) or [False, False, False]

    def knows_of(self, player: str) -> int:
        """Bit i set: `player` was shown the card at slot i (their own looks, as public
        events tell: R2.4, R4.1, R7.1, R8.2, R8.3)."""
        return self.aware.get(player, DEALT)

    def cap(self, player: str) -> list[int]:
        """A soft upper bound on the value at each of `player`'s positions (NO_CAP: none)."""
        return self.caps.get(player) or [NO_CAP, NO_CAP, NO_CAP]

    def cards(self) -> set[str]:
        """Every card identity this memory holds (all of them shown to this seat)."""
        out = {c for hand in self.slots.values() for c in hand if c is not None}
        out.update(self.pile)
        out.update(self.kings)
        out.update(c for c in self.stock if c is not None)
        if self.held is not None:
            out.add(self.held)
        return out

    # -- learning ---------------------------------------------------------------------

    def observe(self, view: dict[str, Any] | None, events: list[dict[str, Any]]) -> None:
        """Take in one update: its events (already redacted for this seat), then its view.

        The view is optional (a simulator may skip building it); when given, a
        new round number resets the memory even if its `round_started` was
        missed, and the discard pile's top is noted.
        """
        for event in events:
            self._event(event)
        if view is None:
            return
        if view.get("round") != self.round and view.get("status") in (PEEK, PLAYING):
            self._reset(int(view.get("round") or 0))
        top = view.get("discard_top")
        if view.get("status") == PLAYING and top is not None and top not in self.pile:
            self.pile.append(top)

    def _reset(self, round_no: int) -> None:
        self.round = round_no
        self.slots = {}
        self.chosen = {}
        self.pile = []
        self.kings = []
        self.held = self.held_by = self.caller = None
        self.stock = []
        self.aware = {}
        self.caps = {}
        self.turns = self.my_turns = 0

    def _hand(self, player: str) -> list[str | None]:
        return self.slots.setdefault(player, _blank())

    def _kept(self, player: str) -> list[bool]:
        return self.chosen.setdefault(player, [False, False, False])

    def _place(self, player: str, slot: int, card: str | None, kept: bool) -> None:
        self._hand(player)[slot] = card
        self._kept(player)[slot] = kept

    def _caps(self, player: str) -> list[int]:
        return self.caps.setdefault(player, [NO_CAP, NO_CAP, NO_CAP])

    def _sees(self, player: str, slot: int, seen: bool) -> None:
        bits = self.knows_of(player)
        self.aware[player] = bits | (1 << slot) if seen else bits & ~(1 << slot)

    def _from_stock(self, shown: str | None) -> str | None:
        """R4.1: the top of the stock leaves it; what this seat knows of it."""
        if not self.stock:
            return shown
        top = self.stock.pop(0)
        if shown is not None and top is not None and top != shown:
            self.stock = []  # never expected: the pile it saw was not the real one
            return shown
        return shown or top

    def _rebuilt(self, count: int) -> None:
        """R4.2: the pile, turned over, is the stock: its first card on top. A pile this
        seat saw only the end of (it started watching mid-round) leaves the top unknown."""
        missing = count - len(self.pile)
        self.stock = [] if missing < 0 or missing == count else \
            [None] * missing + list(self.pile)
        self.pile = []

    def _swapped(self, player: str, slot: int, thrown: str | None, unseen: bool) -> None:
        """R5.1: `player` put a drawn card at `slot` and threw `thrown` away. A card kept
        unseen is lower than the one thrown if they knew that one, else one of the low
        cards; the other cards they know are at most the one thrown (people replace
        their worst card), or middling if they replaced a card they never saw. Soft
        bounds: a guess about people, never a card."""
        if player == self.me or thrown is None:
            return
        bits = self.knows_of(player)
        knew = bool(bits >> slot & 1)
        caps = self._caps(player)
        caps[slot] = (max(1, _value(thrown) - 1) if knew else UNAWARE_CAP) if unseen else NO_CAP
        others = _value(thrown) if knew else UNAWARE_CAP + 1
        for s in range(3):
            if s != slot and bits >> s & 1 and caps[s] > others:
                caps[s] = others

    def _threw(self, player: str, card: str) -> None:
        """R5.2: `player` threw away a number card it drew: the cards it knows are at most
        a little higher (a soft bound)."""
        if player == self.me or card in FACES:
            return
        bits, bound = self.knows_of(player), _value(card) + 1
        caps = self._caps(player)
        for slot in range(3):
            if bits >> slot & 1 and caps[slot] > bound:
                caps[slot] = bound

    def _to_pile(self, card: str | None) -> None:
        if card is not None:
            self.pile.append(card)
        self.held = self.held_by = None

    def _event(self, e: dict[str, Any]) -> None:
        kind = e.get("kind")
        player = e.get("player")
        if kind == _ROUND_STARTED:
            self._reset(int(e["round"]))
        elif kind == _ROUND_OVER:
            self._reset(self.round)
        elif kind == _TURN_STARTED:
            self.pile += self.kings  # R9.3: a turn's Kings go on the pile as it ends
            self.kings = []
            self.turns += 1
            if player == self.me:
                self.my_turns += 1
        elif kind == _PEEK and player == self.me:  # R2.4, R7.1, R8.2, R8.3
            self._place(self.me, SLOT_OF[e["slot"]], e["card"], False)
        elif kind == _DREW:
            if e.get("source") == _DISCARD:  # R13.1: the pile's top, public
                if e.get("card") in self.pile:
                    self.pile.remove(e["card"])
                self.held = e.get("card")
            else:
                self.held = self._from_stock(e.get("card"))
            self.held_by = player
        elif kind == _SWAPPED and isinstance(player, str):  # R5.1
            slot = SLOT_OF[e["slot"]]
            card = self.held if self.held_by == player else None
            self._swapped(player, slot, e.get("discarded"), card is None)
            self._place(player, slot, card, card is None)
            self._sees(player, slot, True)
            self._to_pile(e.get("discarded"))
        elif kind == _KING:  # R9.3: it lies beside the piles until the turn ends
            self.kings.append(e["card"])
            self.held = self.held_by = None
        elif kind == _DISCARDED:
            card = e.get("card")
            if isinstance(player, str) and card is not None:
                if e.get("timeout") and self.held_by != player:
                    self._from_stock(card)  # R14.2a: the top of the stock, thrown for them
                elif not e.get("timeout") and self.held_by == player:
                    self._threw(player, card)
            self._to_pile(card)
        elif kind == _JACK:
            if isinstance(player, str):
                self._sees(player, 1, True)  # R7.1
            self._to_pile(e.get("card"))
        elif kind == _QUEEN and isinstance(player, str):  # R8.1: known cards move
            mine, theirs = SLOT_OF[e["slot"]], SLOT_OF[e["target_slot"]]
            target = e["target"]
            a, b = self._hand(player), self._hand(target)
            ka, kb = self._kept(player), self._kept(target)
            ca, cb = self._caps(player), self._caps(target)
            a[mine], b[theirs] = b[theirs], a[mine]
            ka[mine], kb[theirs] = kb[theirs], ka[mine]
            ca[mine], cb[theirs] = cb[theirs], ca[mine]
            self._sees(player, mine, mine != 1)  # R8.2
            self._sees(target, theirs, theirs != 1)  # R8.3
            self._to_pile(e.get("card"))
        elif kind == _STOCK_REBUILT:  # R4.2: the pile becomes the stock
            self._rebuilt(int(e.get("count") or 0))
        elif kind == _CRISP:
            self.caller = player

    # -- JSON -------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """Plain JSON; `Memory.from_json(m.to_json()) == m`. The fields added with the
        `hard` level (`stock`, `aware`, `caps`) are written only when not empty, so a
        memory stays small in the room document and older documents still load."""
        out: dict[str, Any] = {
            "me": self.me, "level": self.level, "round": self.round,
            "slots": {p: list(h) for p, h in self.slots.items()},
            "chosen": {p: list(k) for p, k in self.chosen.items()},
            "pile": list(self.pile), "kings": list(self.kings),
            "held": self.held, "held_by": self.held_by,
            "caller": self.caller, "turns": self.turns, "my_turns": self.my_turns,
        }
        if self.stock:
            out["stock"] = list(self.stock)
        if self.aware:
            out["aware"] = dict(self.aware)
        if self.caps:
            out["caps"] = {p: list(c) for p, c in self.caps.items()}
        return out

    @staticmethod
    def from_json(raw: dict[str, Any]) -> Memory:
        """The inverse of `to_json`."""
        return Memory(
            me=raw["me"], level=raw["level"], round=raw["round"],
            slots={p: list(h) for p, h in raw["slots"].items()},
            chosen={p: [bool(x) for x in k] for p, k in raw["chosen"].items()},
            pile=list(raw["pile"]), kings=list(raw["kings"]),
            held=raw["held"], held_by=raw["held_by"],
            stock=list(raw.get("stock", ())),
            aware={p: int(b) for p, b in raw.get("aware", {}).items()},
            caps={p: [int(x) for x in c] for p, c in raw.get("caps", {}).items()},
            caller=raw["caller"], turns=raw["turns"], my_turns=raw["my_turns"],
        )
