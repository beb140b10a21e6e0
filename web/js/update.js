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
// Nothing here is translated: the log and the notices keep the event's public
// part, toasts keep a message (i18n.js `msg`), and the screens turn them into
// text when they draw, in the language of that moment.
//
// Notices (`notices`, docs/web-client.md "The notice line") come in two kinds.
// A notice that *matters* to this player (you are the host now, R17.4; another
// player's Queen took one of your cards, R8.3; the computer played for you while
// you were away, R17.2; your own time ran out, R14.2) waits its turn: it is shown
// for NOTICE_MS of time *on screen* (`expire` counts only the time it was drawn),
// one after the other, whatever else happens meanwhile. A *passing* notice (a
// crisp call, another player's timeout) lives NOTICE_MS from its arrival and is
// simply dropped if something that matters was on screen all that time (the log
// keeps it).

import { msg, has } from './i18n.js';
import { describe, publicEvent } from './events.js';
import { ActionType, ClientEvent, ErrorCode, EventKind, MessageType, Source, Status } from './protocol.js';
import { crispEnd, sampleClock, serverTime } from './state.js';

export const PEEK_MS = 5000; // a Jack or Queen peek stays this long unless hidden sooner
export const PEEK_PHASE_MS = 10000; // R16.2: the deal's peeks stay for the peek phase
export const FLASH_MS = 1400;
export const TOAST_MS = 4000;
export const NOTICE_MS = 4000; // how long a notice shows (one that matters: 4 s on screen)
const MAX_NOTICES = 6; // notices that matter waiting their turn, at most
const MOTION_STEP_MS = 380; // the moves of one update animate one after the other
/** The events that are a player's move: each seat shows its last ones until that
 * player's next turn starts (`moves`). */
const MOVE_KINDS = new Set([
  EventKind.DREW, EventKind.SWAPPED, EventKind.DISCARDED, EventKind.JACK, EventKind.QUEEN, EventKind.KING,
  EventKind.TIMEOUT, EventKind.CRISP,
]);
const MOTION_KINDS = new Set([EventKind.DREW, EventKind.SWAPPED, EventKind.DISCARDED, EventKind.QUEEN, EventKind.KING]);
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
  if (msg.type === MessageType.ERROR) {
    const after = msg.code === ErrorCode.OUTCOME_UNKNOWN
      ? { ...state, pending: UNTIL_NEXT_UPDATE } // not known to be unchanged: wait
      : { ...state, pending: 0, optionsDraft: null, leaving: false };
    return { state: withToast(after, errorMessage(msg.code, msg.message), now), effects: [] };
  }
  if (msg.type !== MessageType.UPDATE || !msg.view) return { state, effects: [] };
  const view = msg.view;
  const names = { ...state.names };
  const bots = { ...state.bots };
  for (const p of view.players) {
    names[p.id] = p.name;
    if (p.is_bot) bots[p.id] = true;
    else delete bots[p.id];
  }
  // Fresh copies of everything the events below change: the input stays as it was.
  const next = {
    ...state,
    clock: sampleClock(state.clock, msg.now, now),
    names,
    bots,
    view,
    pending: 0,
    optionsDraft: null,
    peeks: { ...state.peeks },
    flashes: { ...state.flashes },
    log: [...state.log],
    moves: { ...state.moves },
    notices: [...state.notices],
  };
  if (!view.watching && !view.players.some((p) => p.id === view.you)) { // R18.1: a watcher is no seat
    return { state: next, effects: [{ type: 'fatal', reason: 'removed' }] };
  }
  const effects = [];
  // The first update of a connection (seq 1) after a time away: was this seat
  // played meanwhile? (R17.2; the events of that time never reach this phone.)
  if (msg.seq === 1) {
    const away = playedWhileAway(state.view, view);
    if (away) {
      addNotice(next, away, now, true);
      next.serial += 1;
      next.log.push({ id: next.serial, ev: publicEvent(away) });
    }
  }
  const events = msg.events || [];
  // "X is back" once: a return from away says more than the connection alone.
  const back = new Set(events.filter((ev) => ev.kind === EventKind.BACK).map((ev) => ev.player));
  for (const ev of events) {
    if (ev.kind === EventKind.CONNECTED && back.has(ev.player)) continue;
    applyEvent(next, ev, now, effects);
  }
  let motions = 0;
  for (const ev of events) {
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
  if (ev.kind === EventKind.SWAPPED && ev.player === you) delete s.peeks[ev.slot];
  if (ev.kind === EventKind.QUEEN) {
    if (ev.player === you) delete s.peeks[ev.slot];
    if (ev.target === you) delete s.peeks[ev.target_slot];
  }
  if (ev.kind === EventKind.TURN_STARTED) s.moves[ev.player] = [];
  if (MOVE_KINDS.has(ev.kind) && ev.player) s.moves[ev.player] = [...(s.moves[ev.player] || []), publicEvent(ev)];
  if (ev.kind === EventKind.ROUND_STARTED || ev.kind === EventKind.ROUND_OVER || ev.kind === EventKind.REMATCH) {
    s.moves = {};
    s.peeks = {};
    s.queen = null;
    s.readyRound = null;
    // a Queen on your cards of a round that is over no longer matters; the rest waits
    s.notices = s.notices.filter((n) => n.matters && n.ev.kind !== EventKind.QUEEN);
  }
  if (ev.kind === EventKind.REMATCH) s.rematchBy = ev.player || null; // said in the lobby itself
  if (ev.kind === EventKind.ROUND_STARTED) s.rematchBy = null;
  if (ev.kind === EventKind.DREW) s.publicHolding = ev.source === Source.DISCARD ? { player: ev.player, card: ev.card } : null;
  if (ev.kind === EventKind.PEEK && ev.player === you && ev.card) {
    const dur = view.status === Status.PEEK ? PEEK_PHASE_MS : PEEK_MS;
    s.peeks[ev.slot] = { card: ev.card, from: now, until: now + dur };
  }
  if (ev.kind === EventKind.TURN_STARTED && ev.player === you) effects.push({ type: 'yourTurn' });
  // Said to every phone: a crisp call; a timeout with what it discarded (R14.2),
  // which matters to the player whose time ran out.
  if (ev.kind === EventKind.CRISP) addNotice(s, ev, now, false);
  if (ev.kind === EventKind.TIMEOUT) addNotice(s, ev, now, ev.player === you);
  if (ev.kind === EventKind.DISCARDED && ev.timeout) {
    // one notice for the timeout and its discard: "Ana ran out of time: 5♣ discarded"
    s.notices = s.notices.filter((n) => !(n.ev.kind === EventKind.TIMEOUT && n.ev.player === ev.player && n.at === now));
    addNotice(s, ev, now, ev.player === you);
  }
  // R17.4: the new host is told so (the role's buttons appear with the view).
  if (ev.kind === EventKind.HOST_CHANGED) {
    s.notices = s.notices.filter((n) => n.ev.kind !== EventKind.HOST_CHANGED);
    if (ev.player === you) addNotice(s, ev, now, true);
  }
  // Whether there is a line and what lights up do not depend on the language or on names.
  const d = describe(ev, { you, name: (id) => id });
  // Someone else's Queen took one of your cards: it changes what you know (R8.3).
  if (ev.kind === EventKind.QUEEN && ev.target === you && ev.player !== you && d.text) addNotice(s, ev, now, true);
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
  if (s.queen && !view.legal.includes(ActionType.QUEEN)) s.queen = null;
  const server = serverTime(s.clock, now);
  const w = view.crisp && view.crisp.window;
  if (w && w.player === view.you) {
    if (!s.crispWindow || s.crispWindow.closes_at !== w.closes_at) {
      s.crispWindow = { closes_at: w.closes_at, total: Math.max(1, crispEnd(view, w) - server) };
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
  for (const at of [view.turn && view.turn.may_start_at, w && crispEnd(view, w)]) {
    if (at && at > server) effects.push({ type: 'wake', after: Math.min(at - server + 15, MAX_WAKE_MS) });
  }
}

/** `state` without the peeks, highlights, toasts and notices whose time is over
 * at `now` (local); the same object when nothing changed. `drawn`: the id of the
 * notice on screen now (paint.js), whose time on screen is counted. */
export function expire(state, now, { drawn = null } = {}) {
  const peeks = dropExpired(state.peeks, (p) => p.until <= now);
  const flashes = dropExpired(state.flashes, (until) => until <= now);
  const toasts = state.toasts.filter((x) => x.until > now);
  const notices = ageNotices(state.notices, now, drawn);
  if (peeks === state.peeks && flashes === state.flashes && toasts.length === state.toasts.length
    && notices === state.notices) return state;
  return { ...state, peeks, flashes, toasts, notices };
}

// ---- notices

/** Add a notice for `ev` (its public part) to `s` (a copy applyUpdate owns). */
function addNotice(s, ev, now, matters) {
  s.serial += 1;
  const notice = { id: s.serial, ev: publicEvent(ev), matters, at: now, shownMs: 0, since: null };
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

/** What the computer did for this seat while its player was away (R17.2), seen
 * by comparing the table this phone last had (`prev`, possibly from storage)
 * with the one it gets on reconnecting: the turn passed this seat (it was its
 * turn, or the turn went past it) or a round it was playing ended. A notice
 * event, or null. The phone never got those events, so it says what it can:
 * that its seat was played, and how its total changed. */
export function playedWhileAway(prev, view) {
  if (!prev || !view || prev.code !== view.code || prev.you !== view.you) return null;
  const me = view.you;
  const was = prev.players.find((p) => p.id === me);
  const now = view.players.find((p) => p.id === me);
  if (!was || !now) return null;
  const inPlay = prev.status === Status.PLAYING && !!prev.turn;
  if (!inPlay) return null;
  const caller = prev.crisp && prev.crisp.caller;
  let played = false;
  if (view.round !== prev.round || view.status !== Status.PLAYING || !view.turn) {
    // the round ended (or more): this seat had a turn in it, unless it had called crisp
    played = caller !== me;
  } else {
    const order = [...view.players].sort((a, b) => a.seat - b.seat).map((p) => p.id);
    const at = (id) => order.indexOf(id);
    const n = order.length;
    const from = at(prev.turn.player);
    const to = at(view.turn.player);
    const mine = at(me);
    const dist = (a, b) => (b - a + n) % n;
    if (from < 0 || to < 0 || mine < 0) return null;
    // a whole turn of the table or more: every seat drew from the stock at least once
    const drawn = (prev.stock_count || 0) - (view.stock_count || 0);
    if (prev.turn.player === me && view.turn.player !== me) played = true;
    else if (dist(from, mine) > 0 && dist(from, mine) < dist(from, to)) played = true;
    else if (drawn >= n) played = true;
  }
  if (!played) return null;
  return { kind: ClientEvent.PLAYED_FOR_YOU, player: me, from: was.total, to: now.total };
}

function dropExpired(map, isOver) {
  const keys = Object.keys(map).filter((k) => isOver(map[k]));
  if (!keys.length) return map;
  const out = { ...map };
  for (const k of keys) delete out[k];
  return out;
}
