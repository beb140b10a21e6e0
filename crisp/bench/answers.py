"""Which frame answers a client message: the events that announce each accepted
message (`ANSWER`, `announces`), the errors that refuse it (`refuses`), and the
one action that becomes legal by the clock alone (`legal_at`). `crisp bench`'s
clients and the test suite's players (tests/support/player.py) both use them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from crisp.engine import PLAYING
from crisp.engine import ActionType as A
from crisp.engine import EventKind as K
from crisp.server.wire.vocabulary import ServerErrorCode

# The events that announce each accepted client message (crisp/engine), and whose id
# their `player` holds: the sender's ("actor"), that of a field of the message
# ("player" for kick), or nobody's (None). A kick frees a seat in the lobby and
# hands it to the computer during a game (R17.5). `leave` has no answer here: the
# leaver's socket is closed (4403).
ANSWER: dict[str, tuple[tuple[str, ...], str | None]] = {
    A.OPTIONS: ((K.OPTIONS,), None),
    A.START: ((K.ROUND_STARTED,), None),
    A.NEXT_ROUND: ((K.ROUND_STARTED,), None),
    A.REMATCH: ((K.REMATCH,), "actor"),  # back to the lobby (issue 11)
    A.KICK: ((K.LEFT, K.TOOK_OVER), "player"),
    A.ADD_BOT: ((K.BOT_ADDED,), None),
    A.READY: ((K.READY,), "actor"),
    A.DRAW: ((K.DREW,), "actor"),
    A.SWAP: ((K.SWAPPED,), "actor"),
    A.DISCARD: ((K.DISCARDED,), "actor"),
    A.JACK: ((K.JACK,), "actor"),
    A.QUEEN: ((K.QUEEN,), "actor"),
    A.KING: ((K.KING,), "actor"),
    A.CRISP: ((K.CRISP,), "actor"),
}
# Errors that cannot name the message they refuse: they carry no `ref` (protocol.md).
UNREFERENCED_ERRORS = frozenset({ServerErrorCode.RATE_LIMITED, ServerErrorCode.TOO_LARGE})


def announces(
    events: list[dict[str, Any]], kind: str, actor: str, fields: Mapping[str, Any]
) -> bool:
    """True if `events` (one update's) announce the accepted message `{"type": kind,
    **fields}` that `actor` sent. The server handles a socket's messages in order, but
    updates of other changes can arrive between the sending and the answer."""
    event_kinds, who = ANSWER[kind]
    player = actor if who == "actor" else None if who is None else fields.get(who)
    return any(
        e["kind"] in event_kinds
        and (player is None or e.get("player") == player)
        and not e.get("timeout")  # a draw timer's discard is not the player's (R14.2)
        for e in events
    )


def legal_at(view: dict[str, Any], now: float) -> dict[str, Any]:
    """The view with `legal` as of `now`: the one action that becomes legal by the clock
    alone, the seat's first draw of its turn (from `turn.may_start_at`, protocol.md),
    is added once that time has come."""
    turn = view.get("turn")
    if (
        A.DRAW in view["legal"]
        or view["status"] != PLAYING
        or turn is None
        or turn["player"] != view["you"]
        or view["holding"] is not None
        or now < turn["may_start_at"]
    ):
        return view
    return {**view, "legal": [*view["legal"], A.DRAW]}


def refuses(error: dict[str, Any], ref: str) -> bool:
    """True if `error` refuses the message whose `id` was `ref`."""
    if "ref" in error:
        return bool(error["ref"] == ref)
    return error.get("code") in UNREFERENCED_ERRORS
