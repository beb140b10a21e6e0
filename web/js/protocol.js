// The protocol's vocabulary in one place: room statuses, websocket close codes
// and error codes, with the same values as protocol.md (v1 and its v1.1 and v1.2
// additions) and docs/protocol-additions.md. The rest of the client names
// these, never the bare numbers or strings. Frozen: nothing adds to them at run time.

/** `view.status` (protocol.md, "View"). */
export const Status = Object.freeze({
  LOBBY: 'lobby',
  PEEK: 'peek', // the deal's peek phase (R16.2)
  PLAYING: 'playing',
  ROUND_OVER: 'round_over',
  GAME_OVER: 'game_over',
});

/** Websocket close codes: what the server closes with, and what the client does
 * about each (the table in docs/web-client.md, "Connecting and reconnecting"). */
export const CloseCode = Object.freeze({
  NORMAL: 1000, // this client leaves the room or drops a socket it gave up on
  NOT_UTF8: 1007, // a text frame that is not UTF-8: network trouble as far as the client knows
  TOO_LARGE: 1009, // a frame over 64 KiB: network trouble as far as the client knows
  SERVER_ERROR: 1011, // an unexpected server error on this socket: retry with backoff
  RESTARTING: 1012, // the server restarts: reconnect at once
  TRY_LATER: 1013, // the store is unreachable, or the socket read too slowly: backoff
  TOKEN_REFUSED: 4401, // no hello in time, a bad token or an unknown room: forget the seat
  KICKED: 4403, // the host removed this seat: forget the seat
  ROOM_GONE: 4404, // the room expired or was closed: forget the seat
  REPLACED: 4409, // another tab or device took the seat: do not reconnect by itself
  WATCHERS_FULL: 4413, // v1.2 (R18.1): a watcher, and the room has its 50 watchers
  RATE_LIMITED: 4429, // flooding: a rate limit, not a removal, so reconnect with backoff
});

/** 4400-4499: the server ended this seat's connection on purpose. Every such
 * code but 4429 (a rate limit) means the seat is no longer this client's. */
export function isRemoval(closeCode) {
  return closeCode >= 4400 && closeCode < 4500 && closeCode !== CloseCode.RATE_LIMITED;
}

/** Error codes the server sends: `{"type": "error", "code"}` on the socket and
 * `{"error": {"code"}}` from the HTTP API. Each has a message `error.<code>` in
 * web/i18n; an unknown one gets `error.generic`. */
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
});

/** Codes this client gives its own errors (never on the wire), shown the same way. */
export const ClientError = Object.freeze({
  NETWORK: 'network', // fetch failed: no answer at all
  HTTP: 'http', // an HTTP error without an error body
  BAD_CODE: 'bad_code', // a typed room code that cannot exist
  OFFLINE: 'offline', // a tap while the socket is not open
});
