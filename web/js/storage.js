// What this phone remembers (localStorage; the language also as a cookie), behind
// one wrapper: storage that is switched off or full (private mode) never breaks
// the page, it only forgets.
// The keys are listed in docs/web-client.md, "Storage". A game's hidden cards
// are never stored (its module's `publicTable`).

import { gameOf } from './games.js';

const SEAT_PREFIX = 'crisp.seat.';
const TABLE_PREFIX = 'crisp.table.';
// The service worker's list of seated rooms (Cache API, which it can read and
// localStorage is not): a page `/r/<CODE>` listed here starts as the room's
// screen, not as the join form (sw.js). It holds the code only, never a token.
const SEATS_CACHE = 'crisp-seats';
const seatEntry = (code) => `/__seat/${code}`;
// The cookie naming the rooms this phone holds a seat in (their codes only,
// never a token): the server then sends a seated player's reload of `/r/{code}`
// a "Loading your seat…" first screen instead of the join form (shell.py).
const SEATS_COOKIE = 'crisp_seats';
const MAX_COOKIE_SEATS = 20;
const LAST_ROOM_KEY = 'crisp.lastRoom';
const NAME_KEY = 'crisp.name';
const LANG_KEY = 'crisp.lang';
const SETTINGS_KEY = 'crisp.settings';
const DEFAULT_SETTINGS = Object.freeze({ sound: true, vibrate: true });

function read(key) {
  try { return localStorage.getItem(key); } catch { return null; }
}
function write(key, value) {
  try { localStorage.setItem(key, value); } catch { /* storage disabled */ }
}
function remove(key) {
  try { localStorage.removeItem(key); } catch { /* storage disabled */ }
}

// ---- seats: crisp.seat.<CODE> = {"token", "player_id"}

export function loadSeat(code) {
  try {
    const seat = JSON.parse(read(SEAT_PREFIX + code) || 'null');
    return seat && typeof seat.token === 'string' ? seat : null;
  } catch {
    return null;
  }
}
export function saveSeat(code, seat) {
  write(SEAT_PREFIX + code, JSON.stringify({ token: seat.token, player_id: seat.player_id }));
  write(LAST_ROOM_KEY, code);
  markSeated(code, true);
}
export function forgetSeat(code) {
  remove(SEAT_PREFIX + code);
  remove(TABLE_PREFIX + code);
  if (read(LAST_ROOM_KEY) === code) remove(LAST_ROOM_KEY);
  markSeated(code, false);
}

/** The codes of the rooms whose seats are stored, the last one taken last. */
function seatedCodes() {
  const codes = [];
  try {
    for (let i = 0; i < localStorage.length; i++) {
      const key = localStorage.key(i);
      if (key && key.startsWith(SEAT_PREFIX)) codes.push(key.slice(SEAT_PREFIX.length));
    }
  } catch { /* storage disabled */ }
  const last = read(LAST_ROOM_KEY);
  return codes.filter((c) => /^[A-Z0-9]{1,8}$/.test(c) && c !== last).concat(codes.includes(last) ? [last] : []);
}

/** The cookie `crisp_seats`: the codes of the rooms with a stored seat (the last
 * MAX_COOKIE_SEATS, joined by dots), or no cookie at all when there is none.
 * Written again on the home screen too, so that a cookie older than the seats
 * this phone still has (storage cleared, a seat lost while away) is put right. */
export function writeSeatsCookie() {
  const codes = seatedCodes().slice(-MAX_COOKIE_SEATS);
  const secure = location.protocol === 'https:' ? '; Secure' : '';
  const value = codes.length ? `${codes.join('.')}; Max-Age=31536000` : '; Max-Age=0';
  try {
    document.cookie = `${SEATS_COOKIE}=${value}; Path=/; SameSite=Lax${secure}`;
  } catch { /* cookies disabled */ }
}

/** Tell the server (the cookie) and the service worker (its cache of seated
 * rooms) that this page has, or no longer has, a seat in room `code`. Quietly
 * nothing where there are no cookies or caches. */
export function markSeated(code, seated) {
  writeSeatsCookie();
  try {
    if (typeof caches === 'undefined' || !window.isSecureContext) return;
    caches.open(SEATS_CACHE).then((c) => (seated
      ? c.put(seatEntry(code), new Response('1'))
      : c.delete(seatEntry(code)))).catch(() => {});
  } catch { /* no Cache API */ }
}

// ---- the table as last seen: crisp.table.<CODE>, drawn while (re)connecting

/** The public part of a view, for the table shell a reload shows before the
 * socket is open (or while the phone is offline). Never a hidden card: the card
 * held (R16.3) and what may be done are left out, as are the clock-driven parts. */
export function publicTable(view) {
  const game = gameOf(view);
  const table = { ...view, legal: [], lag_ms: null };
  return game && game.publicTable ? game.publicTable(table) : table;
}

/** Keep the table as last seen; only a game whose module says what of its view is
 * public (`publicTable`) is kept: a hidden card is never stored. */
export function saveTable(code, view) {
  const game = gameOf(view);
  if (!game || !game.publicTable) return;
  write(TABLE_PREFIX + code, JSON.stringify(publicTable(view)));
}

export function loadTable(code) {
  try {
    const view = JSON.parse(read(TABLE_PREFIX + code) || 'null');
    return view && typeof view === 'object' && Array.isArray(view.players) && view.code === code
      ? publicTable(view) : null;
  } catch {
    return null;
  }
}
/** The last room joined, if its seat is still stored. */
export function lastRoom() {
  const code = read(LAST_ROOM_KEY);
  return code && loadSeat(code) ? code : null;
}

// ---- the name, the language, the settings

export const loadName = () => read(NAME_KEY) || '';
export const saveName = (name) => write(NAME_KEY, name);

export const loadLanguage = () => read(LANG_KEY);
/** The chosen language, also as the cookie `crisp_lang`: the server then sends the
 * page's first screen in it (a language code, nothing else, goes in the cookie). */
export function saveLanguage(code) {
  write(LANG_KEY, code);
  const secure = location.protocol === 'https:' ? '; Secure' : '';
  try {
    document.cookie = `crisp_lang=${encodeURIComponent(code)}; Path=/; Max-Age=31536000; SameSite=Lax${secure}`;
  } catch { /* cookies disabled */ }
}

export function loadSettings() {
  try {
    return { ...DEFAULT_SETTINGS, ...JSON.parse(read(SETTINGS_KEY) || '{}') };
  } catch {
    return { ...DEFAULT_SETTINGS };
  }
}
export const saveSettings = (settings) => write(SETTINGS_KEY, JSON.stringify(settings));
