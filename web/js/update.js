// What a server message does to the client state, as pure functions: the same
// state, message and time always give the same result, and the input is never
// changed (new objects are returned). What cannot be state is returned as
// effects for the caller to run (routing.js):
//   {type: 'fatal', reason: 'removed'}  this seat is no longer in the room
//   {type: 'yourTurn'}                  buzz/beep and bring the table into view
//   {type: 'wake', after: ms}           render again then (a clock the game watches)
//   {type: 'motion', ev, delay}         animate a move (the game's `animate`)
// This is the table's part, the same in every game: the view, names, the clock,
// presence, the host, the log and the notices. The room's game (games.js, its
// module's `onEvent`, `afterUpdate`, `motions`, `playedWhileAway`, `expire`)
// adds its own; a game whose module is not loaded gets only the table's part.
// Nothing here is translated: the log and the notices keep the event's public
// part, toasts keep a message (i18n.js `msg`), and the screens turn them into
// text when they draw, in the language of that moment.
//
// Notices (`notices`, docs/web-client.md "The notice line") come in two kinds.
// A notice that *matters* to this player (you are the host now, R17.4; the
// computer played for you while you were away, R17.2; and what the game says
// matters) waits its turn: it is shown for NOTICE_MS of time *on screen*
// (`expire` counts only the time it was drawn), one after the other, whatever
// else happens meanwhile. A *passing* notice lives NOTICE_MS from its arrival
// and is simply dropped if something that matters was on screen all that time
// (the log keeps it).

import { msg, has } from './i18n.js';
import { describe, publicEvent } from './events.js';
import { ErrorCode, EventKind, MessageType } from './protocol.js';
import { sampleClock } from './state.js';
import { gameOf } from './games.js';

export const FLASH_MS = 1400;
export const TOAST_MS = 4000;
export const NOTICE_MS = 4000; // how long a notice shows (one that matters: 4 s on screen)
const MAX_NOTICES = 6; // notices that matter waiting their turn, at most
const LOG_LINES = 60;
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
 * (every update is whole) and turns its events into log lines, highlights and
 * notices, the game's hooks adding their own. Anything else changes nothing.
 * @returns {{state: object, effects: object[]}}
 */
export function applyUpdate(state, msg, now) {
  if (!msg || typeof msg !== 'object') return { state, effects: [] };
  if (msg.type === MessageType.ERROR) {
    const after = msg.code === ErrorCode.OUTCOME_UNKNOWN
      ? { ...state, pending: UNTIL_NEXT_UPDATE } // not known to be unchanged: wait
      : { ...state, pending: 0, optionsDraft: null, leaving: false };
    return { state: withToast(after, errorMessage(msg.code, msg.message), now), effects: [] };
  }
  if (msg.type !== MessageType.UPDATE || !msg.view) return { state, effects: [] };
  const view = msg.view;
  const game = gameOf(view);
  const names = { ...state.names };
  const bots = { ...state.bots };
  for (const p of view.players) {
    names[p.id] = p.name;
    if (p.is_bot) bots[p.id] = true;
    else delete bots[p.id];
  }
  // Fresh copies of everything the events below change: the input stays as it was.
  const next = {
    ...(game && game.roomState ? game.roomState() : {}),
    ...state,
    clock: sampleClock(state.clock, msg.now, now),
    names,
    bots,
    view,
    pending: 0,
    optionsDraft: null,
    flashes: { ...state.flashes },
    log: [...state.log],
    notices: [...state.notices],
  };
  if (game && game.copy) Object.assign(next, game.copy(next));
  if (!view.watching && !view.players.some((p) => p.id === view.you)) { // R18.1: a watcher is no seat
    return { state: next, effects: [{ type: 'fatal', reason: 'removed' }] };
  }
  const effects = [];
  // The first update of a connection (seq 1) after a time away: was this seat
  // played meanwhile? (R17.2; the events of that time never reach this phone.)
  if (msg.seq === 1 && game && game.playedWhileAway) {
    const away = game.playedWhileAway(state.view, view);
    if (away) {
      addNotice(next, away, now, true);
      next.serial += 1;
      next.log.push({ id: next.serial, ev: publicEvent(away, game) });
    }
  }
  const events = msg.events || [];
  // "X is back" once: a return from away says more than the connection alone.
  const back = new Set(events.filter((ev) => ev.kind === EventKind.BACK).map((ev) => ev.player));
  for (const ev of events) {
    if (ev.kind === EventKind.CONNECTED && back.has(ev.player)) continue;
    applyEvent(next, ev, now, effects, game);
  }
  if (game && game.motions) effects.push(...game.motions(events));
  if (game && game.afterUpdate) game.afterUpdate(next, state.view, now, effects);
  return { state: next, effects };
}

/** One event into `s` (a fresh copy that applyUpdate owns): the game's part
 * first, then the table's (the new host is told, R17.4; the log line and what
 * lights up, which depend neither on the language nor on names). */
function applyEvent(s, ev, now, effects, game) {
  const you = s.view.you;
  if (game && game.onEvent) game.onEvent(s, ev, now, effects);
  if (ev.kind === EventKind.REMATCH) s.rematchBy = ev.player || null; // said in the lobby itself
  // R17.4: the new host is told so (the role's buttons appear with the view).
  if (ev.kind === EventKind.HOST_CHANGED) {
    s.notices = s.notices.filter((n) => n.ev.kind !== EventKind.HOST_CHANGED);
    if (ev.player === you) addNotice(s, ev, now, true);
  }
  const d = describe(ev, { you, name: (id) => id }, game);
  if (d.text) {
    s.serial += 1;
    s.log.push({ id: s.serial, ev: publicEvent(ev, game) });
    if (s.log.length > LOG_LINES) s.log.splice(0, s.log.length - LOG_LINES);
  }
  for (const key of d.flash) s.flashes[key] = now + FLASH_MS;
}

/** `state` without the highlights, toasts and notices whose time is over at `now`
 * (local), and what the room's game lets expire (its `expire`); the same object
 * when nothing changed. `drawn`: the id of the notice on screen now (paint.js),
 * whose time on screen is counted. */
export function expire(state, now, { drawn = null } = {}) {
  const game = state.view ? gameOf(state.view) : null;
  const own = game && game.expire ? game.expire(state, now) : null;
  const flashes = dropExpired(state.flashes, (until) => until <= now);
  const toasts = state.toasts.filter((x) => x.until > now);
  const notices = ageNotices(state.notices, now, drawn);
  if (!own && flashes === state.flashes && toasts.length === state.toasts.length
    && notices === state.notices) return state;
  return { ...state, ...(own || {}), flashes, toasts, notices };
}

// ---- notices

/** Add a notice for `ev` (its public part) to `s` (a copy applyUpdate owns); a
 * game's `onEvent` adds its own through this. */
export function addNotice(s, ev, now, matters) {
  s.serial += 1;
  const notice = { id: s.serial, ev: publicEvent(ev, gameOf(s.view)), matters, at: now, shownMs: 0, since: null };
  s.notices = [...s.notices, notice];
  const waiting = s.notices.filter((n) => n.matters);
  if (waiting.length > MAX_NOTICES) {
    const drop = waiting[0].id;
    s.notices = s.notices.filter((n) => n.id !== drop);
  }
}

/** The notice to show now: the new host's (R17.4: told at once, whatever else
 * waits), else the oldest other one that matters (each waits its turn), else the
 * newest passing one still fresh, else null. */
export function currentNotice(state, now) {
  const list = state.notices || [];
  const first = list.find((n) => n.matters && n.ev.kind === EventKind.HOST_CHANGED) || list.find((n) => n.matters);
  if (first) return first;
  for (let i = list.length - 1; i >= 0; i--) {
    if (list[i].at + NOTICE_MS > now) return list[i];
  }
  return null;
}

/** Notices after time passes: a passing one goes NOTICE_MS after it came; one
 * that matters goes once it has been on screen (`drawn`) for NOTICE_MS in all. */
function ageNotices(list, now, drawn) {
  let changed = false;
  const out = [];
  for (const n of list) {
    if (!n.matters) {
      if (n.at + NOTICE_MS <= now) changed = true;
      else out.push(n);
      continue;
    }
    let next = n;
    if (n.id === drawn) {
      if (n.since == null) next = { ...n, since: now };
      else if (n.shownMs + (now - n.since) >= NOTICE_MS) next = null;
    } else if (n.since != null) {
      next = { ...n, shownMs: n.shownMs + Math.max(0, now - n.since), since: null };
    }
    if (next !== n) changed = true;
    if (next) out.push(next);
  }
  return changed ? out : list;
}

/** `map` without the entries `isOver` says are over; the same object when none is. */
export function dropExpired(map, isOver) {
  const keys = Object.keys(map).filter((k) => isOver(map[k]));
  if (!keys.length) return map;
  const out = { ...map };
  for (const k of keys) delete out[k];
  return out;
}
