// What a server message does to the client state, as pure functions: the same
// state, message and time always give the same result, and the input is never
// changed (new objects are returned). What cannot be state is returned as
// effects for the caller to run (routing.js):
//   {type: 'fatal', reason: 'removed'}  this seat is no longer in the room
//   {type: 'yourTurn'}                  buzz/beep and bring the piles into view
//   {type: 'wake', after: ms}           render again then: the clock enables a draw
//                                       or closes the crisp window
//   {type: 'motion', ev, delay}         animate a move (motion.js): a card travels
//                                       between the piles and the seats
// Peeked cards go into `peeks` for a few seconds and nowhere else: never the
// log, never storage (R16.3).
// Nothing here is translated: the log and the banner keep the event's public
// part, toasts keep a message (i18n.js `msg`), and the screens turn them into
// text when they draw, in the language of that moment.

import { msg, has } from './i18n.js';
import { describe, publicEvent } from './events.js';
import { ErrorCode, Status } from './protocol.js';
import { sampleClock, serverTime } from './state.js';

export const PEEK_MS = 5000; // a Jack or Queen peek stays this long unless hidden sooner
export const PEEK_PHASE_MS = 10000; // R16.2: the deal's peeks stay for the peek phase
export const FLASH_MS = 1400;
export const TOAST_MS = 4000;
export const NOTICE_MS = 4000; // a crisp call, a Queen on your card, a timeout: in the notice line
const MOTION_STEP_MS = 380; // the moves of one update animate one after the other
/** The events that are a player's move: each seat shows its last ones until that
 * player's next turn starts (`moves`). */
const MOVE_KINDS = new Set(['drew', 'swapped', 'discarded', 'jack', 'queen', 'king', 'timeout', 'crisp']);
const MOTION_KINDS = new Set(['drew', 'swapped', 'discarded', 'queen', 'king']);
const LOG_LINES = 60;
const MAX_WAKE_MS = 60000;
// `pending` after `outcome_unknown`: the action may have been saved, so the taps
// wait for the next update (the server sends one as soon as its store answers).
export const UNTIL_NEXT_UPDATE = Number.MAX_SAFE_INTEGER;

/** The message (i18n.js `msg`) for an error code (protocol.js). */
export function errorMessage(code, message) {
  if (has(`error.${code}`)) return msg(`error.${code}`);
  return msg('error.generic', { code: code || '?', message: message || '' });
}

/** `state` with a toast added (at most three stay): `message` from msg(), or a
 * plain string shown as it is. `now`: local time (Date.now()). */
export function withToast(state, message, now) {
  const id = state.serial + 1;
  return { ...state, serial: id, toasts: [...state.toasts.slice(-2), { id, msg: message, until: now + TOAST_MS }] };
}

/**
 * The state after the server message `msg` arrived at local time `now` (Date.now()).
 * An `error` shows a toast and unblocks the taps (after `outcome_unknown` they stay
 * blocked until the next update); an `update` replaces the view
 * (every update is whole) and turns its events into log lines, highlights, peeks
 * and banners. Anything else changes nothing.
 * @returns {{state: object, effects: object[]}}
 */
export function applyUpdate(state, msg, now) {
  if (!msg || typeof msg !== 'object') return { state, effects: [] };
  if (msg.type === 'error') {
    const after = msg.code === ErrorCode.OUTCOME_UNKNOWN
      ? { ...state, pending: UNTIL_NEXT_UPDATE } // not known to be unchanged: wait
      : { ...state, pending: 0, optionsDraft: null, leaving: false };
    return { state: withToast(after, errorMessage(msg.code, msg.message), now), effects: [] };
  }
  if (msg.type !== 'update' || !msg.view) return { state, effects: [] };
  const view = msg.view;
  const names = { ...state.names };
  for (const p of view.players) names[p.id] = p.name;
  // Fresh copies of everything the events below change: the input stays as it was.
  const next = {
    ...state,
    clock: sampleClock(state.clock, msg.now, now),
    names,
    view,
    pending: 0,
    optionsDraft: null,
    peeks: { ...state.peeks },
    flashes: { ...state.flashes },
    log: [...state.log],
    moves: { ...state.moves },
  };
  if (!view.players.some((p) => p.id === view.you)) {
    return { state: next, effects: [{ type: 'fatal', reason: 'removed' }] };
  }
  const effects = [];
  for (const ev of msg.events || []) applyEvent(next, ev, now, effects);
  let motions = 0;
  for (const ev of msg.events || []) {
    if (MOTION_KINDS.has(ev.kind)) effects.push({ type: 'motion', ev: publicEvent(ev), delay: MOTION_STEP_MS * motions++ });
  }
  afterUpdate(next, state.view, now, effects);
  return { state: next, effects };
}

/** One event into `s` (a fresh copy that applyUpdate owns). */
function applyEvent(s, ev, now, effects) {
  const view = s.view;
  const you = view.you;
  // A card that moves takes its peek with it; a peek event that follows shows the new one.
  if (ev.kind === 'swapped' && ev.player === you) delete s.peeks[ev.slot];
  if (ev.kind === 'queen') {
    if (ev.player === you) delete s.peeks[ev.slot];
    if (ev.target === you) delete s.peeks[ev.target_slot];
  }
  if (ev.kind === 'turn_started') s.moves[ev.player] = [];
  if (MOVE_KINDS.has(ev.kind) && ev.player) s.moves[ev.player] = [...(s.moves[ev.player] || []), publicEvent(ev)];
  if (ev.kind === 'round_started' || ev.kind === 'round_over' || ev.kind === 'rematch') {
    s.moves = {};
    s.peeks = {};
    s.queen = null;
    s.banner = null; // the results screen says it all
    s.readyRound = null;
  }
  if (ev.kind === 'rematch') s.banner = { ev: publicEvent(ev), until: now + NOTICE_MS }; // in the lobby
  if (ev.kind === 'drew') s.publicHolding = ev.source === 'discard' ? { player: ev.player, card: ev.card } : null;
  if (ev.kind === 'peek' && ev.player === you && ev.card) {
    const dur = view.status === Status.PEEK ? PEEK_PHASE_MS : PEEK_MS;
    s.peeks[ev.slot] = { card: ev.card, from: now, until: now + dur };
  }
  if (ev.kind === 'turn_started' && ev.player === you) effects.push({ type: 'yourTurn' });
  // Said to every phone, in the notice line: a crisp call, a timeout and what it discarded (R14.2).
  // A new host's banner from this same update is kept: shown at least once (the
  // notice is in the log either way).
  const hostToldNow = s.banner && s.banner.ev.kind === 'host_changed' && s.banner.until === now + 3000;
  if ((ev.kind === 'crisp' || ev.kind === 'timeout' || (ev.kind === 'discarded' && ev.timeout)) && !hostToldNow) {
    s.banner = { ev: publicEvent(ev), until: now + NOTICE_MS };
  }
  // R17.4: the new host is told so (the role's buttons appear with the view).
  if (ev.kind === 'host_changed' && ev.player === you) s.banner = { ev: publicEvent(ev), until: now + 3000 };
  // Whether there is a line and what lights up do not depend on the language or on names.
  const d = describe(ev, { you, name: (id) => id });
  // Someone else's Queen took one of your cards: say it big, it changes what you know.
  if (ev.kind === 'queen' && ev.target === you && ev.player !== you && d.text) {
    s.banner = { ev: publicEvent(ev), until: now + NOTICE_MS };
  }
  if (d.text) {
    s.serial += 1;
    s.log.push({ id: s.serial, ev: publicEvent(ev) });
    if (s.log.length > LOG_LINES) s.log.splice(0, s.log.length - LOG_LINES);
  }
  for (const key of d.flash) s.flashes[key] = now + FLASH_MS;
}

/** What follows from the new view as a whole, whatever the events were. */
function afterUpdate(s, prev, now, effects) {
  const view = s.view;
  if (prev && prev.status === Status.PEEK && view.status !== Status.PEEK) s.peeks = {};
  if (s.queen && !view.legal.includes('queen')) s.queen = null;
  const server = serverTime(s.clock, now);
  const w = view.crisp && view.crisp.window;
  if (w && w.player === view.you) {
    if (!s.crispWindow || s.crispWindow.closes_at !== w.closes_at) {
      s.crispWindow = { closes_at: w.closes_at, total: Math.max(1, w.closes_at - server) };
    }
  } else s.crispWindow = null;
  // The draw timer's ring: the whole time of this draw, without the start delay (R14.3).
  const turn = view.turn;
  if (turn && turn.draw_deadline) {
    if (!s.drawClock || s.drawClock.deadline !== turn.draw_deadline) {
      const from = Math.max(server, turn.may_start_at || 0);
      s.drawClock = { deadline: turn.draw_deadline, total: Math.max(1000, turn.draw_deadline - from) };
    }
  } else s.drawClock = null;
  // Wake up exactly when the clock makes a draw legal or closes the crisp window.
  for (const at of [view.turn && view.turn.may_start_at, w && w.closes_at]) {
    if (at && at > server) effects.push({ type: 'wake', after: Math.min(at - server + 15, MAX_WAKE_MS) });
  }
}

/** `state` without the peeks, highlights and toasts whose time is over at `now`
 * (local); the same object when nothing expired. */
export function expire(state, now) {
  const peeks = dropExpired(state.peeks, (p) => p.until <= now);
  const flashes = dropExpired(state.flashes, (until) => until <= now);
  const toasts = state.toasts.filter((x) => x.until > now);
  if (peeks === state.peeks && flashes === state.flashes && toasts.length === state.toasts.length) return state;
  return { ...state, peeks, flashes, toasts };
}

function dropExpired(map, isOver) {
  const keys = Object.keys(map).filter((k) => isOver(map[k]));
  if (!keys.length) return map;
  const out = { ...map };
  for (const k of keys) delete out[k];
  return out;
}
