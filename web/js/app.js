// The controller: routes (/ and /r/{code}), the home form, the room socket,
// updates and events into state, taps into protocol messages.

import { patch } from './dom.js';
import { setLanguage, preferredLanguage, t, has } from './i18n.js';
import * as api from './api.js';
import { RoomSocket } from './net.js';
import {
  Clock, initialState, loadSeat, saveSeat, forgetSeat, lastRoom, loadName, saveName,
  saveSettings, canDraw, canDrawDiscard, canCrisp, playerById,
} from './state.js';
import { describe } from './events.js';
import { app as renderApp } from './render.js';
import { yourTurn, unlockAudio } from './feedback.js';

const PEEK_MS = 5000; // a Jack or Queen peek stays this long unless hidden sooner
const PEEK_PHASE_MS = 10000; // R16.2: the deal's peeks stay for the peek phase
const FLASH_MS = 1400;
const TOAST_MS = 4000;
const PENDING_MS = 2000;

const S = initialState();
const clock = new Clock();
const root = document.getElementById('app');
let sock = null;
let queued = false;
let logId = 0;
let toastId = 0;
let infoTimer = null;
let lastScreen = '';
const names = new Map(); // player id -> last known name, for events about players who left

// ------------------------------------------------------------------ rendering

function render() {
  if (queued) return;
  queued = true;
  queueMicrotask(() => {
    queued = false;
    const local = Date.now();
    patch(root, renderApp({ S, now: clock.now(), local, act }));
    document.title = titleFor();
    // A new screen (lobby -> table -> results) starts at its top.
    const screen = `${S.screen}:${S.view ? S.view.status : ''}`;
    if (screen !== lastScreen) {
      lastScreen = screen;
      window.scrollTo(0, 0);
    }
    // Your turn at a crowded table: bring the stock and your cards into view.
    if (S.scrollToPiles) {
      S.scrollToPiles = false;
      const piles = document.querySelector('.piles');
      if (piles && piles.getBoundingClientRect().bottom > window.innerHeight - 140) {
        piles.scrollIntoView({ block: 'start', behavior: 'smooth' });
      }
    }
  });
}

function titleFor() {
  const v = S.view;
  if (S.screen !== 'room' || !v) return 'Crisp';
  if (v.turn && v.turn.player === v.you) return `★ ${t('turn.you')} — Crisp ${v.code}`;
  return `Crisp ${v.code}`;
}

function tick() {
  const local = Date.now();
  let changed = false;
  for (const slot of Object.keys(S.peeks)) {
    if (S.peeks[slot].until <= local) { delete S.peeks[slot]; changed = true; }
  }
  for (const k of Object.keys(S.flashes)) {
    if (S.flashes[k] <= local) { delete S.flashes[k]; changed = true; }
  }
  const before = S.toasts.length;
  S.toasts = S.toasts.filter((x) => x.until > local);
  if (S.toasts.length !== before) changed = true;
  const live = S.screen === 'room' && S.view && (S.view.status === 'playing' || S.view.status === 'peek');
  if (changed || live || (S.banner && S.banner.until > local - 200)) render();
}

function toast(text) {
  S.toasts = [...S.toasts.slice(-2), { id: ++toastId, text, until: Date.now() + TOAST_MS }];
  render();
}

function errorText(code, message) {
  if (has(`error.${code}`)) return t(`error.${code}`);
  return t('error.generic', { code: code || '?', message: message || '' });
}

// ------------------------------------------------------------------ routing

function route() {
  const m = location.pathname.match(/^\/r\/([^/]+)\/?$/);
  const code = m ? api.normalizeCode(decodeURIComponent(m[1])) : '';
  if (code && loadSeat(code)) enterRoom(code);
  else showHome(code);
}

function leaveSocket() {
  if (sock) sock.stop();
  sock = null;
}

function showHome(code, error = null) {
  leaveSocket();
  Object.assign(S, {
    screen: 'home', code: null, view: null, conn: 'idle', homeCode: code || '',
    homeInfo: null, homeError: error, homeName: loadName(), lastRoom: lastRoom(), queen: null, peeks: {},
  });
  render();
  if (code) lookUp(code);
}

async function lookUp(code) {
  try {
    const info = await api.roomInfo(code);
    if (S.screen === 'home' && api.normalizeCode(currentCodeInput() || S.homeCode) === info.code) {
      S.homeInfo = info;
      render();
    }
  } catch (e) {
    if (S.screen === 'home' && e.status === 404) {
      S.homeInfo = null;
      S.homeError = t('error.no_room');
      render();
    }
  }
}

function enterRoom(code) {
  leaveSocket();
  const seat = loadSeat(code);
  Object.assign(S, {
    screen: 'room', code, view: null, log: [], peeks: {}, flashes: {}, queen: null,
    pending: 0, readyRound: null, conn: 'connecting', homeError: null, crispWindow: null,
  });
  names.clear();
  clock.reset();
  if (location.pathname !== `/r/${code}`) history.replaceState(null, '', `/r/${code}`);
  sock = new RoomSocket({
    code, token: seat.token,
    onMessage, onStatus: (st) => { S.conn = st; render(); }, onFatal,
  });
  sock.start();
  render();
}

function onFatal(reason) {
  const code = S.code;
  if (reason === 'replaced') {
    S.conn = 'replaced';
    render();
    return;
  }
  forgetSeat(code);
  if (reason === 'token') {
    history.replaceState(null, '', `/r/${code}`);
    showHome(code, t('fatal.token', { code }));
  } else if (reason === 'gone') {
    history.replaceState(null, '', '/');
    showHome('', t('fatal.gone', { code }));
  } else {
    history.replaceState(null, '', '/');
    showHome('', t('fatal.removed', { code }));
  }
}

// ------------------------------------------------------------------ messages

function onMessage(msg) {
  if (!msg || typeof msg !== 'object') return;
  if (msg.type === 'error') {
    S.pending = 0;
    S.optionsDraft = null;
    toast(errorText(msg.code, msg.message));
    return;
  }
  if (msg.type !== 'update' || !msg.view) return;
  clock.sample(msg.now);
  const prev = S.view;
  const view = msg.view;
  for (const p of view.players) names.set(p.id, p.name);
  S.view = view;
  S.pending = 0;
  S.optionsDraft = null;
  if (!view.players.some((p) => p.id === view.you)) {
    onFatal('removed');
    return;
  }
  for (const ev of msg.events || []) handleEvent(ev, view);
  afterUpdate(prev, view);
  render();
}

function handleEvent(ev, view) {
  const you = view.you;
  const local = Date.now();
  const name = (id) => (id === you ? t('you') : names.get(id) || (playerById(view, id) || {}).name || '?');
  // A card that moves takes its peek with it; a peek event that follows shows the new one.
  if (ev.kind === 'swapped' && ev.player === you) delete S.peeks[ev.slot];
  if (ev.kind === 'queen') {
    if (ev.player === you) delete S.peeks[ev.slot];
    if (ev.target === you) delete S.peeks[ev.target_slot];
  }
  if (ev.kind === 'round_started' || ev.kind === 'round_over') {
    S.peeks = {};
    S.queen = null;
    S.banner = null; // the results screen says it all
    S.readyRound = null;
  }
  if (ev.kind === 'drew') S.publicHolding = ev.source === 'discard' ? { player: ev.player, card: ev.card } : null;
  if (ev.kind === 'peek' && ev.player === you && ev.card) {
    const dur = view.status === 'peek' ? PEEK_PHASE_MS : PEEK_MS;
    S.peeks[ev.slot] = { card: ev.card, from: local, until: local + dur };
  }
  if (ev.kind === 'turn_started' && ev.player === you) {
    yourTurn(S.settings);
    S.scrollToPiles = true;
  }
  if (ev.kind === 'crisp') {
    S.banner = { text: ev.player === you ? t('crisp.bannerYou') : t('crisp.banner', { name: name(ev.player) }), until: local + 2500 };
  }
  const d = describe(ev, { you, name });
  // Someone else's Queen took one of your cards: say it big, it changes what you know.
  if (ev.kind === 'queen' && ev.target === you && ev.player !== you && d.text) {
    S.banner = { text: d.text, until: local + 3000 };
  }
  if (d.text) {
    S.log.push({ id: ++logId, text: d.text });
    if (S.log.length > 60) S.log.splice(0, S.log.length - 60);
  }
  for (const key of d.flash) S.flashes[key] = local + FLASH_MS;
}

function afterUpdate(prev, view) {
  if (prev && prev.status === 'peek' && view.status !== 'peek') S.peeks = {};
  if (S.queen && !view.legal.includes('queen')) S.queen = null;
  const w = view.crisp && view.crisp.window;
  if (w && w.player === view.you) {
    if (!S.crispWindow || S.crispWindow.closes_at !== w.closes_at) {
      S.crispWindow = { closes_at: w.closes_at, total: Math.max(1, w.closes_at - clock.now()) };
    }
  } else S.crispWindow = null;
  // Wake up exactly when the clock makes a draw legal or closes the crisp window.
  const now = clock.now();
  for (const at of [view.turn && view.turn.may_start_at, w && w.closes_at]) {
    if (at && at > now) setTimeout(render, Math.min(at - now + 15, 60000));
  }
}

// ------------------------------------------------------------------ actions

function send(msg, pend = true) {
  if (!sock || !sock.send(msg)) {
    toast(t('error.offline'));
    return false;
  }
  if (pend) S.pending = Date.now() + PENDING_MS;
  render();
  return true;
}

function nameInput() {
  return document.querySelector('[data-testid="name-input"]');
}
function currentCodeInput() {
  const el = document.querySelector('[data-testid="room-code-input"]');
  return el ? el.value : '';
}
function readName() {
  const el = nameInput();
  const name = el ? el.value.trim() : '';
  if (!name || [...name].length > 20) { // 1 to 20 characters (code points), as the server counts
    toast(t('error.bad_name'));
    if (el) el.focus();
    return null;
  }
  saveName(name);
  return name;
}

async function viaApi(fn) {
  S.busy = true;
  render();
  try {
    const r = await fn();
    saveSeat(r.code, r);
    history.pushState(null, '', `/r/${r.code}`);
    enterRoom(r.code);
  } catch (e) {
    toast(errorText(e.code, e.message));
  } finally {
    S.busy = false;
    render();
  }
}

const act = {
  setLanguage: async (code) => {
    await setLanguage(code, true);
    render();
  },
  toggleMenu: () => { S.menuOpen = !S.menuOpen; render(); },
  setSetting: (key, value) => {
    S.settings = { ...S.settings, [key]: value };
    saveSettings(S.settings);
    render();
  },
  create: () => {
    const name = readName();
    if (name) viaApi(() => api.createRoom(name));
  },
  join: () => {
    const code = api.normalizeCode(currentCodeInput());
    if (code.length < 4 || code.length > 6) {
      toast(t('error.bad_code'));
      return;
    }
    const name = readName();
    if (name) viaApi(() => api.joinRoom(code, name));
  },
  submitHome: () => (currentCodeInput().trim() ? act.join() : act.create()),
  codeTyped: () => {
    clearTimeout(infoTimer);
    const code = api.normalizeCode(currentCodeInput());
    S.homeInfo = null;
    S.homeError = null;
    render();
    if (code.length >= 4 && code.length <= 6) infoTimer = setTimeout(() => lookUp(code), 350);
  },
  rejoin: (code) => {
    history.pushState(null, '', `/r/${code}`);
    enterRoom(code);
  },
  useHere: () => enterRoom(S.code),
  share: async (link) => {
    if (typeof navigator.share === 'function') {
      try {
        await navigator.share({ title: 'Crisp', text: t('lobby.shareText', { code: S.view.code }), url: link });
        return;
      } catch (e) {
        if (e && e.name === 'AbortError') return;
      }
    }
    if (await copyText(link)) toast(t('lobby.copied'));
    else toast(link);
  },
  setOption: (o) => {
    // Shown at once; the next update (or an error) replaces it with the room's options.
    S.optionsDraft = { ...(S.optionsDraft || {}), ...o };
    send({ type: 'options', ...o });
  },
  kick: (player) => send({ type: 'kick', player }),
  start: () => send({ type: 'start' }),
  ready: () => {
    if (send({ type: 'ready' }, false)) {
      S.readyRound = S.view.round;
      if (S.view.status === 'peek') S.peeks = {};
      render();
    }
  },
  drawStock: () => { if (canDraw(S.view, clock.now())) send({ type: 'draw', source: 'stock' }); },
  drawDiscard: () => { if (canDrawDiscard(S.view, clock.now())) send({ type: 'draw', source: 'discard' }); },
  tapMySlot: (slot) => {
    if (S.queen) {
      S.queen = { ...S.queen, mine: slot };
      queenMaybeSend();
    } else if (S.view.legal.includes('swap')) send({ type: 'swap', slot });
  },
  tapSeatSlot: (player, slot) => {
    if (!S.queen) return;
    S.queen = { ...S.queen, target: { player, slot } };
    queenMaybeSend();
  },
  discard: () => send({ type: 'discard' }),
  jack: () => send({ type: 'jack' }),
  queen: () => {
    if (!S.view.legal.includes('queen')) return;
    S.queen = { mine: null, target: null };
    render();
  },
  cancelQueen: () => { S.queen = null; render(); },
  king: () => send({ type: 'king' }),
  crisp: () => { if (canCrisp(S.view, clock.now())) send({ type: 'crisp' }); },
  hidePeeks: () => { S.peeks = {}; render(); },
  nextRound: () => send({ type: 'next_round' }),
  rematch: () => send({ type: 'rematch' }),
};

function queenMaybeSend() {
  const q = S.queen;
  if (q.mine && q.target) {
    S.queen = null;
    send({ type: 'queen', slot: q.mine, target: q.target.player, target_slot: q.target.slot });
  } else render();
}

async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const ta = document.createElement('textarea');
    ta.value = text;
    ta.setAttribute('readonly', '');
    ta.style.position = 'fixed';
    ta.style.opacity = '0';
    document.body.appendChild(ta);
    ta.select();
    let ok = false;
    try { ok = document.execCommand('copy'); } catch { ok = false; }
    ta.remove();
    return ok;
  }
}

// Keyboard play: s = stock, d = discard pile, 1/2/3 = your left/middle/right card,
// x = discard, j/q/k = Jack/Queen/King, c = crisp, r = ready, Escape = cancel.
function onKey(e) {
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  const tag = (e.target && e.target.tagName) || '';
  if (tag === 'INPUT' || tag === 'SELECT' || tag === 'TEXTAREA') return;
  if (S.screen !== 'room' || !S.view) return;
  const click = (id) => {
    const el = document.querySelector(`[data-testid="${id}"]`);
    if (el && !el.disabled) { el.click(); return true; }
    return false;
  };
  const map = {
    s: 'stock', d: 'discard-pile', 1: 'my-slot-left', 2: 'my-slot-middle', 3: 'my-slot-right',
    x: 'action-discard', j: 'action-jack', q: 'action-queen', k: 'action-king', c: 'crisp-button',
    r: 'ready-button',
  };
  if (e.key === 'Escape') {
    if (S.queen) act.cancelQueen();
    else if (S.menuOpen) act.toggleMenu();
    return;
  }
  const id = map[e.key.toLowerCase()];
  if (id && click(id)) e.preventDefault();
}

// ------------------------------------------------------------------ start

async function boot() {
  try {
    await setLanguage(preferredLanguage());
  } catch {
    /* the page still works with keys shown */
  }
  window.addEventListener('popstate', route);
  document.addEventListener('keydown', onKey);
  for (const type of ['pointerdown', 'keydown']) document.addEventListener(type, unlockAudio, { passive: true });
  setInterval(tick, 100);
  route();
}

// For the console and the browser tests: read-only looks at the state, the clock and the socket.
window.crisp = { state: S, clock, socket: () => sock };
boot();
