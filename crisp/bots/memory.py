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
- the card its own seat holds, and the public card another player took from the
  pile and has not yet placed.

Nothing else: no card is ever recorded unless it reached this seat in an event
or a view, and everything is forgotten when the next round is dealt. The memory
round-trips exactly through JSON, so a server can keep it in the room document
and play an away seat after a restart (R17.2).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

SLOT_NAMES = ("left", "middle", "right")
SLOT_OF = {name: i for i, name in enumerate(SLOT_NAMES)}
LEVELS = ("easy", "normal", "random")


def _blank() -> list[str | None]:
    return [None, None, None]


@dataclass
class Memory:
    """One seat's recollection of the round in play. `me` is its player id."""

    me: str
    level: str = "normal"
    round: int = 0
    slots: dict[str, list[str | None]] = field(default_factory=dict)
    chosen: dict[str, list[bool]] = field(default_factory=dict)
    pile: list[str] = field(default_factory=list)
    kings: list[str] = field(default_factory=list)  # played this turn, beside the piles (R9.3)
    held: str | None = None  # the card in play: mine from the stock, or a public pile draw
    held_by: str | None = None
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

    def cards(self) -> set[str]:
        """Every card identity this memory holds (all of them shown to this seat)."""
        out = {c for hand in self.slots.values() for c in hand if c is not None}
        out.update(self.pile)
        out.update(self.kings)
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
        if view.get("round") != self.round and view.get("status") in ("peek", "playing"):
            self._reset(int(view.get("round") or 0))
        top = view.get("discard_top")
        if view.get("status") == "playing" and top is not None and top not in self.pile:
            self.pile.append(top)

    def _reset(self, round_no: int) -> None:
        self.round = round_no
        self.slots = {}
        self.chosen = {}
        self.pile = []
        self.kings = []
        self.held = self.held_by = self.caller = None
        self.turns = self.my_turns = 0

    def _hand(self, player: str) -> list[str | None]:
        return self.slots.setdefault(player, _blank())

    def _kept(self, player: str) -> list[bool]:
        return self.chosen.setdefault(player, [False, False, False])

    def _place(self, player: str, slot: int, card: str | None, kept: bool) -> None:
        self._hand(player)[slot] = card
        self._kept(player)[slot] = kept

    def _to_pile(self, card: str | None) -> None:
        if card is not None:
            self.pile.append(card)
        self.held = self.held_by = None

    def _event(self, e: dict[str, Any]) -> None:
        kind = e.get("kind")
        player = e.get("player")
        if kind == "round_started":
            self._reset(int(e["round"]))
        elif kind == "round_over":
            self._reset(self.round)
        elif kind == "turn_started":
            self.pile += self.kings  # R9.3: a turn's Kings go on the pile as it ends
            self.kings = []
            self.turns += 1
            if player == self.me:
                self.my_turns += 1
        elif kind == "peek" and player == self.me:  # R2.4, R7.1, R8.2, R8.3
            self._place(self.me, SLOT_OF[e["slot"]], e["card"], False)
        elif kind == "drew":
            self.held, self.held_by = e.get("card"), player
            if e.get("source") == "discard" and e.get("card") in self.pile:  # R13.1
                self.pile.remove(e["card"])
        elif kind == "swapped" and isinstance(player, str):  # R5.1
            card = self.held if self.held_by == player else None
            self._place(player, SLOT_OF[e["slot"]], card, card is None)
            self._to_pile(e.get("discarded"))
        elif kind == "king":  # R9.3: it lies beside the piles until the turn ends
            self.kings.append(e["card"])
            self.held = self.held_by = None
        elif kind in ("discarded", "jack"):
            self._to_pile(e.get("card"))
        elif kind == "queen" and isinstance(player, str):  # R8.1: known cards move
            mine, theirs = SLOT_OF[e["slot"]], SLOT_OF[e["target_slot"]]
            target = e["target"]
            a, b = self._hand(player), self._hand(target)
            ka, kb = self._kept(player), self._kept(target)
            a[mine], b[theirs] = b[theirs], a[mine]
            ka[mine], kb[theirs] = kb[theirs], ka[mine]
            self._to_pile(e.get("card"))
        elif kind == "stock_rebuilt":  # R4.2: the pile becomes the stock
            self.pile = []
        elif kind == "crisp":
            self.caller = player

    # -- JSON -------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """Plain JSON; `Memory.from_json(m.to_json()) == m`."""
        return {
            "me": self.me, "level": self.level, "round": self.round,
            "slots": {p: list(h) for p, h in self.slots.items()},
            "chosen": {p: list(k) for p, k in self.chosen.items()},
            "pile": list(self.pile), "kings": list(self.kings),
            "held": self.held, "held_by": self.held_by,
            "caller": self.caller, "turns": self.turns, "my_turns": self.my_turns,
        }

    @staticmethod
    def from_json(raw: dict[str, Any]) -> Memory:
        """The inverse of `to_json`."""
        return Memory(
            me=raw["me"], level=raw["level"], round=raw["round"],
            slots={p: list(h) for p, h in raw["slots"].items()},
            chosen={p: [bool(x) for x in k] for p, k in raw["chosen"].items()},
            pile=list(raw["pile"]), kings=list(raw["kings"]),
            held=raw["held"], held_by=raw["held_by"],
            caller=raw["caller"], turns=raw["turns"], my_turns=raw["my_turns"],
        )
