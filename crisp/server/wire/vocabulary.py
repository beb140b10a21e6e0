"""The server's wire vocabulary: close codes, server error codes, why a socket ended.

Every value here reaches clients, metrics or logs as its plain value (the enums
are `IntEnum`/`StrEnum`), so the wire is exactly what protocol.md and
docs/protocol-additions.md document. The engine's own error codes (`not_your_turn`,
`illegal`, `bad_message`, ...) are its `ErrorCode`.
"""

from __future__ import annotations

from enum import IntEnum, StrEnum


class MessageType(StrEnum):
    """The `type` of a message that is not a game action (those are the engine's
    `ActionType`): the client's hello and lock, the server's update and error."""

    HELLO = "hello"  # client: the first message (protocol.md "WebSocket")
    LOCK = "lock"  # client: docs/protocol-additions.md, "Locked rooms"
    UPDATE = "update"  # server: every message after hello
    ERROR = "error"  # server: a refused client message


class CloseCode(IntEnum):
    """WebSocket close codes (docs/protocol-additions.md, "WebSocket close codes")."""

    # sent by this server
    NOT_UTF8 = 1007  # a text frame that is not UTF-8 (the websocket layer, edge/transport.py)
    POLICY = 1008  # a foreign Origin, refused before accept (HTTP 403)
    TOO_BIG = 1009  # a frame over 64 KiB
    INTERNAL = 1011  # an unexpected error on this socket
    RESTART = 1012  # the server restarts: reconnect at once
    TRY_LATER = 1013  # the store is unreachable at hello, or the socket reads too slowly
    BAD_HELLO = 4401  # no valid hello in time, a bad token or an unknown room
    KICKED = 4403  # the host kicked this seat
    ROOM_GONE = 4404  # the room expired while the socket was open
    REPLACED = 4409  # a newer connection took the seat
    WATCHERS_FULL = 4413  # R18.1: the room has its 50 watchers already
    RATE = 4429  # too many rate-limited messages
    # only received from clients (or reported by the websocket layer)
    NORMAL = 1000
    GOING_AWAY = 1001  # a browser tab closed or navigated away
    NO_STATUS = 1005  # a close frame without a code
    ABNORMAL = 1006  # the connection dropped without a close frame


class ServerErrorCode(StrEnum):
    """Error codes the server itself sends, on a socket (`error.code`) or over HTTP
    (`{"error": {"code"}}`). The engine's codes, `bad_message` among them, are
    `crisp.engine.ErrorCode`."""

    TOO_LARGE = "too_large"
    RATE_LIMITED = "rate_limited"
    BUSY = "busy"
    STORE_UNAVAILABLE = "store_unavailable"  # nothing was written
    OUTCOME_UNKNOWN = "outcome_unknown"  # sent to the store, not known whether saved (v1.1)
    INTERNAL = "internal"
    NOT_A_PLAYER = "not_a_player"  # v1.2: a watcher sent something else than hello (R18.1)
    # HTTP only
    BAD_REQUEST = "bad_request"
    BAD_NAME = "bad_name"
    NAME_TAKEN = "name_taken"  # 409: another player of the room has this name
    ROOM_LOCKED = "room_locked"  # 409: the host locked the room (a kick locks it)
    BAD_DECK = "bad_deck"
    UNKNOWN_GAME = "unknown_game"  # v2: 422, POST /api/rooms with a game not listed
    BAD_DEALER = "bad_dealer"
    TEST_HOOKS_OFF = "test_hooks_off"
    NOT_FOUND = "not_found"
    NO_MOVE = "no_move"  # v1.2 (R18.5): 404, a move code unknown, used or expired
    NOT_AWAY = "not_away"  # v1.2 (R18.5): 403, the host asked to move a seat not away
    REQUEST_TIMEOUT = "request_timeout"  # 408: the request body came too slowly
    TOO_MANY_ROOMS = "too_many_rooms"  # 503: the server holds CRISP_MAX_ROOMS rooms
    METHOD_NOT_ALLOWED = "method_not_allowed"
    FORBIDDEN = "forbidden"
    ORIGIN_REFUSED = "origin_refused"
    HTTP_ERROR = "http_error"  # any other HTTP status from the framework
    # v1.2, GET /api/rooms/{code}/rounds/{n} (R18.2)
    NO_ROOM = "no_room"  # 404
    NO_ROUND = "no_round"  # 404: no such round in this game, or its record was not kept
    ROUND_IN_PLAY = "round_in_play"  # 409
    NOT_ALLOWED = "not_allowed"  # 403: a stranger while watching is off
    BAD_TOKEN = "bad_token"  # 401: a token that is not a seat's


# The server's own codes a socket's `error` may carry (with the engine's ErrorCode);
# `messages.SocketErrorCode` lists them all for the schema.
SOCKET_ERRORS = frozenset({
    ServerErrorCode.TOO_LARGE, ServerErrorCode.RATE_LIMITED, ServerErrorCode.BUSY,
    ServerErrorCode.STORE_UNAVAILABLE, ServerErrorCode.OUTCOME_UNKNOWN, ServerErrorCode.INTERNAL,
    ServerErrorCode.NOT_A_PLAYER,
})


class EndReason(StrEnum):
    """Why the server ended a socket that passed hello (logs; `ws_closed` hooks).

    `keeps_presence`: after such an end the seat is NOT marked disconnected,
    because another socket holds it, it is gone, or the server is restarting (the
    client reconnects at once, and marking it away could end a peek phase early,
    R16.2).
    """

    REPLACED = "replaced"
    KICKED = "kicked"
    WATCHING_OFF = "watching_off"  # R18.1: the host turned watching off (a watcher, 4403)
    ROOM_GONE = "room_gone"
    BAD_HELLO = "bad_hello"
    SHUTDOWN = "shutdown"
    TOO_BIG = "too_big"
    RATE = "rate"
    TOO_SLOW = "too_slow"
    STORE_UNAVAILABLE = "store_unavailable"  # nothing was written
    OUTCOME_UNKNOWN = "outcome_unknown"  # sent to the store, not known whether saved (v1.1)
    INTERNAL = "internal"

    @property
    def keeps_presence(self) -> bool:
        return self in _KEEPS_PRESENCE


_KEEPS_PRESENCE = frozenset(
    {EndReason.REPLACED, EndReason.KICKED, EndReason.ROOM_GONE, EndReason.BAD_HELLO,
     EndReason.SHUTDOWN}
)


class Refusal(StrEnum):
    """Why a socket was refused before or at hello (the `ws_refused` hook's reason)."""

    ORIGIN = "origin"
    HELLO_TIMEOUT = "hello_timeout"
    BAD_HELLO = "bad_hello"
    STORE_UNAVAILABLE = "store_unavailable"
    RATE_LIMITED = "rate_limited"  # the client's look-ups or the seat's hellos are spent
    TOO_MANY_SOCKETS = "too_many_sockets"  # the client holds its cap of websockets
    WATCHING_OFF = "watching_off"  # R18.1: a watcher, and the host turned watching off
    WATCHERS_FULL = "watchers_full"  # R18.1: a watcher, and the room has 50
