// What this phone remembers (localStorage; the language also as a cookie), behind
// one wrapper: storage that is switched off or full (private mode) never breaks
// the page, it only forgets.
// The keys are listed in docs/web-client.md, "Storage". Peeked cards are never
// stored (R16.3).

const SEAT_PREFIX = 'crisp.seat.';
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
}
export function forgetSeat(code) {
  remove(SEAT_PREFIX + code);
  if (read(LAST_ROOM_KEY) === code) remove(LAST_ROOM_KEY);
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
