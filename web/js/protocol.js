// The wire's vocabulary, the one place of the shell that names it (issue 22; each
// game's own words are in its games/<id>/protocol.js, issue 35): message types,
// the table's action types, event kinds and lobby status, the computer players'
// levels, error codes and websocket close codes, with the values of protocol.md (v1 and its v1.1 and v1.2
// additions) and docs/protocol-additions.md. Every other module imports these and
// never writes a wire name as a string of its own (tests/web/test_web_vocabulary.py
// checks both, and each name against the server's enums of the same name:
// crisp/engine/vocabulary.py, crisp/engine/errors.py, crisp/server/wire/vocabulary.py).
// Frozen: nothing adds to them at run time.

/** A message's `type` that is not a game action: the client's `hello` and `lock`,
 * the server's `update` and `error` (protocol.md "WebSocket"; `MessageType`). */
export const MessageType = Object.freeze({
  HELLO: 'hello', // the client's first message: the seat's token, or a watcher's `watch`
  LOCK: 'lock', // docs/protocol-additions.md, "Locked rooms"
  UPDATE: 'update', // every server message after hello: the view and its events
  ERROR: 'error', // a refused client message
});

/** The game of a room whose view or look-up names none (protocol.md "v2
 * additions": a client that never names a game plays this one). */
export const DEFAULT_GAME = 'crisp';

/** A client message's `type` that every game's table takes (protocol.md "v2
 * additions": seats, host and options are the table's); also names in a view's
 * `legal` list. A game's own actions are in its `games/<id>/protocol.js`. */
export const ActionType = Object.freeze({
  OPTIONS: 'options', // R16.1
  START: 'start',
  KICK: 'kick', // R17.5
  REMATCH: 'rematch', // R16.5
  ADD_BOT: 'add_bot', // R17.1
  LEAVE: 'leave', // R17.5
});

/** An event's `kind` that every game's table sends (protocol.md "Events", v1.1
 * additions, docs/protocol-additions.md, "v2 additions"; `EventKind`): seats,
 * presence, the host, options, computer players. A game's own events are in its
 * `games/<id>/protocol.js`. */
export const EventKind = Object.freeze({
  JOINED: 'joined',
  LEFT: 'left',
  CONNECTED: 'connected',
  DISCONNECTED: 'disconnected',
  OPTIONS: 'options',
  AWAY: 'away', // R17.2
  BACK: 'back', // R17.2
  HOST_CHANGED: 'host_changed', // R17.4
  BOT_ADDED: 'bot_added', // R17.1
  TOOK_OVER: 'took_over', // R17.5
  REMATCH: 'rematch', // R16.5
});

/** `view.status` before a game starts, in every game (protocol.md, "View";
 * `Status`); a game's other statuses are in its `games/<id>/protocol.js`. */
export const Status = Object.freeze({
  LOBBY: 'lobby',
});

/** A computer player's level (R17.1; "hard": protocol v1.2; `BotLevel`), in the
 * order the host is offered them. */
export const BotLevel = Object.freeze({
  EASY: 'easy',
  NORMAL: 'normal', // the server's default, and the client's
  HARD: 'hard',
});

/** Websocket close codes: what the server closes with, and what the client does
 * about each (the table in docs/web-client.md, "Connecting and reconnecting"). The
 * names are the server's (`CloseCode`). */
export const CloseCode = Object.freeze({
  NORMAL: 1000, // this client leaves the room or drops a socket it gave up on
  NOT_UTF8: 1007, // a text frame that is not UTF-8: network trouble as far as the client knows
  TOO_BIG: 1009, // a frame over 64 KiB: network trouble as far as the client knows
  INTERNAL: 1011, // an unexpected server error on this socket: retry with backoff
  RESTART: 1012, // the server restarts: reconnect at once
  TRY_LATER: 1013, // the store is unreachable, or the socket read too slowly: backoff
  BAD_HELLO: 4401, // no hello in time, a bad token or an unknown room: forget the seat
  KICKED: 4403, // the host removed this seat (or it moved, or it left): forget the seat
  ROOM_GONE: 4404, // the room expired or was closed: forget the seat
  REPLACED: 4409, // another tab or device took the seat: do not reconnect by itself
  WATCHERS_FULL: 4413, // v1.2 (R18.1): a watcher, and the room has its 50 watchers
  RATE: 4429, // flooding: a rate limit, not a removal, so reconnect with backoff
});

/** How the reason of a 4403 starts when the seat moved to another phone (R18.5). */
export const MOVED_REASON = 'moved';

/** 4400-4499: the server ended this seat's connection on purpose. Every such
 * code but 4429 (a rate limit) means the seat is no longer this client's. */
export function isRemoval(closeCode) {
  return closeCode >= 4400 && closeCode < 4500 && closeCode !== CloseCode.RATE;
}

/** Error codes the server sends: `{"type": "error", "code"}` on the socket and
 * `{"error": {"code"}}` from the HTTP API (the engine's `ErrorCode` and the
 * server's `ServerErrorCode`). Each has a message `error.<code>` in web/i18n; an
 * unknown one gets `error.generic`. */
export const ErrorCode = Object.freeze({
  // protocol.md, "Error codes"
  BAD_MESSAGE: 'bad_message',
  TOO_LARGE: 'too_large',
  RATE_LIMITED: 'rate_limited', // also HTTP 429 (v1.1)
  NOT_HOST: 'not_host',
  NOT_YOUR_TURN: 'not_your_turn',
  TOO_EARLY: 'too_early',
  WRONG_PHASE: 'wrong_phase',
  ILLEGAL: 'illegal',
  UNKNOWN_PLAYER: 'unknown_player',
  ROOM_FULL: 'room_full',
  GAME_STARTED: 'game_started',
  // protocol.md, v1.1 additions
  OUTCOME_UNKNOWN: 'outcome_unknown',
  // docs/protocol-additions.md: the socket
  BUSY: 'busy',
  STORE_UNAVAILABLE: 'store_unavailable',
  INTERNAL: 'internal',
  // docs/protocol-additions.md: the HTTP API
  NOT_FOUND: 'not_found',
  METHOD_NOT_ALLOWED: 'method_not_allowed',
  FORBIDDEN: 'forbidden', // 403 from the web framework itself
  HTTP_ERROR: 'http_error', // any other HTTP status from the web framework
  BAD_NAME: 'bad_name',
  NAME_TAKEN: 'name_taken', // 409: someone in the room has that name
  ROOM_LOCKED: 'room_locked', // 409: the host locked the room
  REQUEST_TIMEOUT: 'request_timeout', // 408: the request body came too slowly
  BAD_REQUEST: 'bad_request',
  TEST_HOOKS_OFF: 'test_hooks_off',
  BAD_DECK: 'bad_deck',
  BAD_DEALER: 'bad_dealer',
  ORIGIN_REFUSED: 'origin_refused',
  TOO_MANY_ROOMS: 'too_many_rooms', // 503: the server holds as many rooms as it may (CRISP_MAX_ROOMS)
  // protocol.md v1.2, moving a seat (R18.5)
  NO_MOVE: 'no_move', // 404: the move code is unknown, used or expired
  NOT_AWAY: 'not_away', // 403: the host may move another seat only while it is away
  BAD_TOKEN: 'bad_token', // 401: this seat's token is no longer valid
  // protocol.md v1.2, watching and replays (R18.1, R18.2)
  NOT_A_PLAYER: 'not_a_player', // a watcher sent something else than hello
  NO_ROOM: 'no_room', // 404: no such room (the client also gives it to a 404 without a body)
  NO_ROUND: 'no_round', // 404: no such round in this game, or its record was not kept
  ROUND_IN_PLAY: 'round_in_play', // 409: the round is being played
  NOT_ALLOWED: 'not_allowed', // 403: watching is off, and this is no player
  // protocol.md v2 additions
  UNKNOWN_GAME: 'unknown_game', // 422: POST /api/rooms with a game this server does not host
});

/** Codes this client gives its own errors (never on the wire), shown the same way. */
export const ClientError = Object.freeze({
  NETWORK: 'network', // fetch failed: no answer at all
  HTTP: 'http', // an HTTP error without an error body
  BAD_CODE: 'bad_code', // a typed room code that cannot exist
  OFFLINE: 'offline', // a tap while the socket is not open
});

/** Event kinds this client makes itself (never on the wire): a notice and a log line. */
export const ClientEvent = Object.freeze({
  PLAYED_FOR_YOU: 'played_for_you', // this seat was played while its phone was away (R17.2)
});
