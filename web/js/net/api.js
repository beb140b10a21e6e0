// The HTTP lobby API (protocol.md, "HTTP"). net/ holds the two ways this client
// talks to the server: this one, and the room's websocket (socket.js).

import { ClientError, DEFAULT_GAME, ErrorCode } from '../protocol.js';

// An error answer without an error body (a proxy's page, say) still gets a code.
const CODE_BY_STATUS = { 404: ErrorCode.NO_ROOM, 422: ErrorCode.BAD_NAME };

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message || code);
    this.status = status;
    this.code = code;
  }
}

async function call(method, path, body, headers = {}) {
  let res;
  try {
    res = await fetch(path, {
      method,
      headers: body ? { 'Content-Type': 'application/json', ...headers } : headers,
      body: body ? JSON.stringify(body) : undefined,
      cache: 'no-store',
    });
  } catch (e) {
    throw new ApiError(0, ClientError.NETWORK, String(e));
  }
  let data = null;
  try { data = await res.json(); } catch { /* empty or not JSON */ }
  if (!res.ok) {
    const err = (data && data.error) || {};
    throw new ApiError(res.status, err.code || CODE_BY_STATUS[res.status] || ClientError.HTTP, err.message);
  }
  return data;
}

/** Room codes are case-insensitive; spaces, dashes and the like are dropped, and
 * full-width or Arabic-Indic characters become their plain forms (as the server
 * does, docs/protocol-additions.md "Room codes"). */
export function normalizeCode(code) {
  return String(code || '')
    .normalize('NFKC')
    .replace(/[\u0660-\u0669]/g, (d) => String(d.charCodeAt(0) - 0x0660))
    .replace(/[\u06f0-\u06f9]/g, (d) => String(d.charCodeAt(0) - 0x06f0))
    .toUpperCase()
    .replace(/[^A-Z0-9]/g, '');
}

/** New rooms have 8-character codes; rooms of older servers 4 to 6. */
export const CODE_LENGTH = 8;
export const isCodeLength = (n) => n === CODE_LENGTH || (n >= 4 && n <= 6);

/** A code as people read it: groups of four (`K7QX-M3RT`). */
export function formatCode(code) {
  const c = String(code || '');
  return c.length === CODE_LENGTH ? `${c.slice(0, 4)}-${c.slice(4)}` : c;
}

/** The groups of a code, for showing them apart without a character between. */
export function codeGroups(code) {
  const c = String(code || '');
  return c.length === CODE_LENGTH ? [c.slice(0, 4), c.slice(4)] : [c];
}

/** A new room of game `game` (protocol.md "v2 additions": 422 `unknown_game` for
 * a game the server does not host). */
export const createRoom = (name, game = DEFAULT_GAME) => call('POST', '/api/rooms', { name, game });

/** The games this server offers (`GET /api/games`): [{id, seats: {min, max}, teams,
 * options: {name: {default, choices}}}]. A server without the list (404: before
 * protocol v2) offers the default game alone, its options unknown. */
export async function games() {
  try {
    const body = await call('GET', '/api/games');
    const list = body && Array.isArray(body.games) ? body.games.filter((g) => g && typeof g.id === 'string') : [];
    return list.length ? list : [{ id: DEFAULT_GAME }];
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) return [{ id: DEFAULT_GAME }];
    throw e;
  }
}
export const joinRoom = (code, name) =>
  call('POST', `/api/rooms/${encodeURIComponent(normalizeCode(code))}/players`, { name });
export const roomInfo = (code) => call('GET', `/api/rooms/${encodeURIComponent(normalizeCode(code))}`);

/** R18.5: a one-time code that moves a seat to another phone: this seat's own
 * (`player` null), or, for the host, an away seat's. */
export const askMoveCode = (code, token, player = null) =>
  call('POST', `/api/rooms/${encodeURIComponent(normalizeCode(code))}/move`,
    player ? { player } : {}, { Authorization: `Bearer ${token}` });
/** R18.2, R18.3: round `n`'s replay (with every player's memory review), once it
 * is over; a player sends its seat's token, a watcher none. */
export const roundReplay = (code, n, token = null) =>
  call('GET', `/api/rooms/${encodeURIComponent(normalizeCode(code))}/rounds/${n}`, null,
    token ? { Authorization: `Bearer ${token}` } : {});
/** R18.5: take the seat of a move code on this phone (a new token for it). */
export const takeMoveCode = (code, move) =>
  call('POST', `/api/rooms/${encodeURIComponent(normalizeCode(code))}/move/${encodeURIComponent(move)}`);
