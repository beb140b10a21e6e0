// Client state: the stored seats (token per room code), the server clock
// estimate, the latest view, and what the screen shows for a moment (peeks,
// highlights, toasts). Peeked cards live only in memory, for a few seconds
// (R16.3): they are never written to storage and never put in the log.

const SEAT_PREFIX = 'crisp.seat.';
const NAME_KEY = 'crisp.name';
const SETTINGS_KEY = 'crisp.settings';
const LAST_ROOM_KEY = 'crisp.lastRoom';

function get(k) {
  try { return localStorage.getItem(k); } catch { return null; }
}
function set(k, v) {
  try { localStorage.setItem(k, v); } catch { /* storage disabled */ }
}
function del(k) {
  try { localStorage.removeItem(k); } catch { /* storage disabled */ }
}

// ---- stored seats: localStorage["crisp.seat.<CODE>"] = {"token", "player_id"}

export function loadSeat(code) {
  try {
    const seat = JSON.parse(get(SEAT_PREFIX + code) || 'null');
    return seat && typeof seat.token === 'string' ? seat : null;
  } catch {
    return null;
  }
}
export function saveSeat(code, seat) {
  set(SEAT_PREFIX + code, JSON.stringify({ token: seat.token, player_id: seat.player_id }));
  set(LAST_ROOM_KEY, code);
}
export function forgetSeat(code) {
  del(SEAT_PREFIX + code);
  if (get(LAST_ROOM_KEY) === code) del(LAST_ROOM_KEY);
}
export function lastRoom() {
  const code = get(LAST_ROOM_KEY);
  return code && loadSeat(code) ? code : null;
}

export const loadName = () => get(NAME_KEY) || '';
export const saveName = (name) => set(NAME_KEY, name);

export function loadSettings() {
  const defaults = { sound: true, vibrate: true };
  try { return { ...defaults, ...JSON.parse(get(SETTINGS_KEY) || '{}') }; } catch { return defaults; }
}
export const saveSettings = (s) => set(SETTINGS_KEY, JSON.stringify(s));

// ---- the server clock

/** Offset between the server clock and this phone's clock. Each update says
 * when the server sent it (`now`); `now - Date.now()` at arrival underestimates
 * the offset by the network delay, so the largest recent sample is the best. */
export class Clock {
  constructor() {
    this.samples = [];
    this.offset = 0;
  }
  sample(serverNow) {
    if (typeof serverNow !== 'number') return;
    this.samples.push(serverNow - Date.now());
    if (this.samples.length > 12) this.samples.shift();
    this.offset = Math.max(...this.samples);
  }
  reset() {
    this.samples = [];
  }
  now() {
    return Date.now() + this.offset;
  }
}

// ---- the whole client state

export function initialState() {
  return {
    screen: 'loading', // loading | home | room
    code: null, // room code of the seat in use
    homeName: '', // name pre-filled on the home form
    homeCode: '', // code pre-filled on the join form
    lastRoom: null, // a room with a stored seat, offered as "Back to room"
    homeInfo: null, // GET /api/rooms/{code} result for the join form
    homeError: null,
    busy: false,
    conn: 'idle', // idle | connecting | open | reconnecting | replaced
    view: null, // the latest view (protocol.md), whole
    log: [], // [{id, text}] newest last, no hidden cards in it
    peeks: {}, // slot -> {card, until, phase}; memory only, a few seconds
    flashes: {}, // highlight key -> until (ms, local clock)
    banner: null, // {text, until}
    toasts: [], // [{id, text, until}]
    queen: null, // {mine: slot|null, target: {player, slot}|null} while choosing
    optionsDraft: null, // options the host just changed, until the room confirms them
    crispWindow: null, // {closes_at, total}: this player's open crisp window, for its bar
    publicHolding: null, // {player, card}: a card someone took from the discard pile (public)
    pending: 0, // local time until which taps wait for the answer to a sent action
    readyRound: null, // round for which "ready" was sent
    settings: loadSettings(),
    menuOpen: false,
    scrollToPiles: false, // set when your turn starts: the next render scrolls the stock into view
  };
}

/** Whether the current player may draw now: from `legal`, or by the clock
 * once turn.may_start_at has passed (protocol.md, "legal"). */
export function canDraw(view, serverNow) {
  if (!view || view.status !== 'playing' || view.holding) return false;
  if (view.legal.includes('draw')) return true;
  const turn = view.turn;
  return !!turn && turn.player === view.you && !turn.drawn_from && serverNow >= turn.may_start_at;
}

export function canDrawDiscard(view, serverNow) {
  return canDraw(view, serverNow) && !!view.options.discard_draw && view.discard_count > 0
    && !!view.discard_top;
}

/** Crisp is legal while this player's window is open (checked against the clock too). */
export function canCrisp(view, serverNow) {
  if (!view || !view.legal.includes('crisp')) return false;
  const w = view.crisp && view.crisp.window;
  return !w || w.player !== view.you || serverNow < w.closes_at;
}

export function playerById(view, id) {
  return (view && view.players.find((p) => p.id === id)) || null;
}
