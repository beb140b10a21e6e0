"""The engine's vocabulary as enums: the game's wire names, each written once
(issue 22): a table's phase, where a card was drawn from, the three slots of a
hand (R2.3), the client messages that are actions, the event kinds and the
computer players' levels. Everything else imports them from here (the server's
own wire names are `crisp.server.wire.vocabulary`'s; the error codes the engine
gives are `errors.ErrorCode`).

`Status` and `Source` are `StrEnum`s: each member *is* its protocol string, so
it compares equal to it and `json.dumps` writes it unchanged. `Slot` is an
`IntEnum` (an index into a hand) whose protocol text is `slot.label`.

The members are also plain module names (`PLAYING`, `STOCK`, ...): in Python
3.11 looking a member up on its class (`Status.PLAYING`) costs about 0.3 us,
through `EnumType.__getattr__`, and the engine's hot paths (`refusal`,
`next_deadline`, `view_for`) run thousands of times per second.
"""

from __future__ import annotations

from enum import IntEnum, StrEnum


class Status(StrEnum):
    """A table's phase (protocol.md, the view's `status`)."""

    LOBBY = "lobby"
    PEEK = "peek"  # R2.4, R16.2
    PLAYING = "playing"
    ROUND_OVER = "round_over"  # R12, R16.5
    GAME_OVER = "game_over"  # R12.5


LOBBY = Status.LOBBY
PEEK = Status.PEEK
PLAYING = Status.PLAYING
ROUND_OVER = Status.ROUND_OVER
GAME_OVER = Status.GAME_OVER


class Source(StrEnum):
    """Where a drawn card came from: the stock (R4.1) or the discard pile (R13)."""

    STOCK = "stock"
    DISCARD = "discard"


STOCK = Source.STOCK
DISCARD = Source.DISCARD

# Value to member, for reading JSON: a dict look-up costs a fraction of `Status(value)`.
STATUS_OF: dict[str, Status] = {s.value: s for s in Status}
SOURCE_OF: dict[str, Source] = {s.value: s for s in Source}


class Slot(IntEnum):
    """A position in a hand, left to right (R2.3); the value indexes `Player.hand`."""

    LEFT = 0
    MIDDLE = 1  # never looked at by its owner except through a Jack (R2.4, R7.1)
    RIGHT = 2

    @property
    def label(self) -> str:
        """The protocol text: "left", "middle" or "right"."""
        return _LABELS[self]

    @staticmethod
    def parse(text: object) -> Slot | None:
        """The slot named by a protocol text, or None for anything else."""
        return _BY_LABEL.get(text) if isinstance(text, str) else None


class SlotLabel(StrEnum):
    """A slot's protocol text (`Slot.label`)."""

    LEFT = "left"
    MIDDLE = "middle"
    RIGHT = "right"


_LABELS: dict[Slot, str] = {s: SlotLabel[s.name] for s in Slot}
_BY_LABEL: dict[str, Slot] = {label: s for s, label in _LABELS.items()}
SLOT_OF: dict[str, Slot] = dict(_BY_LABEL)  # label to member, for reading JSON


class ActionType(StrEnum):
    """A client message's `type` that is a game action (protocol.md "Client to
    server", v1.1 additions)."""

    OPTIONS = "options"  # R16.1
    START = "start"
    KICK = "kick"  # R17.5
    READY = "ready"  # R16.2, R16.5
    DRAW = "draw"  # R4
    SWAP = "swap"  # R5.1
    DISCARD = "discard"  # R5.2
    JACK = "jack"  # R7
    QUEEN = "queen"  # R8
    KING = "king"  # R9
    CRISP = "crisp"  # R10
    NEXT_ROUND = "next_round"  # R16.5
    REMATCH = "rematch"  # R16.5
    ADD_BOT = "add_bot"  # R17.1
    LEAVE = "leave"  # R17.5


class EventKind(StrEnum):
    """An event's `kind` (protocol.md "Events", v1.1 additions, and the additions in
    docs/protocol-additions.md)."""

    JOINED = "joined"
    LEFT = "left"
    CONNECTED = "connected"
    DISCONNECTED = "disconnected"
    OPTIONS = "options"
    ROUND_STARTED = "round_started"
    PEEK = "peek"  # R2.4, R7.1, R8.2, R8.3
    TURN_STARTED = "turn_started"
    DREW = "drew"  # R4.1, R13
    SWAPPED = "swapped"  # R5.1
    DISCARDED = "discarded"  # R5.2, R14.2
    JACK = "jack"  # R7
    QUEEN = "queen"  # R8
    KING = "king"  # R9
    STOCK_REBUILT = "stock_rebuilt"  # R4.2
    CRISP = "crisp"  # R10
    TIMEOUT = "timeout"  # R14.2
    ROUND_OVER = "round_over"  # R11.2, R12
    GAME_OVER = "game_over"  # R12.5
    READY = "ready"  # R16.2, R16.5 (an addition)
    AWAY = "away"  # R17.2
    BACK = "back"  # R17.2
    HOST_CHANGED = "host_changed"  # R17.4
    BOT_ADDED = "bot_added"  # R17.1
    TOOK_OVER = "took_over"  # R17.5
    REMATCH = "rematch"  # R16.5 (an addition)


class BotLevel(StrEnum):
    """A computer player's level (R17.1; "hard": docs/protocol-additions.md)."""

    EASY = "easy"
    NORMAL = "normal"
    HARD = "hard"
