// The client state's shape, the server-clock estimate, and the rules derived
// from a view (what may be tapped). Plain data and pure functions only: the
// state changes in update.js (server messages), actions.js and routing.js.
// Peeked cards live only in memory, for a few seconds (R16.3).

import { loadSettings } from './storage.js';
import { ActionType, BotLevel, Status } from './protocol.js';

const CLOCK_SAMPLES = 12;

// ---- the server clock

/** Offset between the server clock and this phone's clock. Each update says
 * when the server sent it (`now`); `now - Date.now()` at arrival underestimates
 * the offset by the network delay, so the largest recent sample is the best. */
export const newClock = () => ({ samples: [], offset: 0 });

/** The clock after an update sent at `serverNow` arrived at `local` (Date.now()). */
export function sampleClock(clock, serverNow, local) {
  if (typeof serverNow !== 'number') return clock;
  const samples = [...clock.samples, serverNow - local].slice(-CLOCK_SAMPLES);
  return { samples, offset: Math.max(...samples) };
}

/** A new connection: forget the samples; the offset holds until the first new one. */
export const restartClock = (clock) => ({ samples: [], offset: clock.offset });

/** The server's time at `local` (Date.now()). */
export const serverTime = (clock, local) => local + clock.offset;

// ---- the whole client state

export function initialState() {
  return {
    screen: 'loading', // loading | home | room
    code: null, // room code of the seat in use
    homeName: '', // name pre-filled on the home form
    homeCode: '', // code pre-filled on the join form
    lastRoom: null, // a room with a stored seat, offered as "Back to room"
    homeInfo: null, // GET /api/rooms/{code} result for the join form
    homeError: null, // a message (i18n.js msg) shown on the home form
    busy: false,
    booting: false, // true only in the page's first screen, drawn before the client runs (web/shell/make.mjs)
    conn: 'idle', // idle | connecting | open | reconnecting | replaced
    clock: newClock(), // the server-clock estimate of this room's connection
    view: null, // the latest view (protocol.md), whole
    stale: false, // `view` is the table as last seen (storage.js loadTable), not yet this connection's
    names: {}, // player id -> last known name, for events about players who left
    bots: {}, // player id -> true for a computer player (its default name is translated, parts.js)
    log: [], // [{id, ev}] newest last: each event's public part (events.js publicEvent), described when shown
    peeks: {}, // slot -> {card, from, until}; memory only, a few seconds
    flashes: {}, // highlight key -> until (ms, local clock)
    notices: [], // [{id, ev, matters, at, shownMs, since}]: update.js, "Notices"; described when shown
    rematchBy: null, // who sent everyone back to the lobby (R16.5): said in the lobby until the game starts
    moves: {}, // player id -> the public events of their current or last turn this round (events.js publicEvent)
    drawClock: null, // {deadline, total}: the current draw's time, for the timer's ring
    logOpen: false, // the move log's sheet (table)
    help: false, // the how-to-play page is open
    toasts: [], // [{id, msg, until}]: msg from i18n.js msg(), or a plain string
    serial: 0, // the last id given to a log line or a toast
    queen: null, // {mine: slot|null, target: {player, slot}|null} while choosing; both set: waiting for Confirm
    optionsDraft: null, // options the host just changed, until the room confirms them
    crispWindow: null, // {closes_at, total}: this player's open crisp window, for its bar
    publicHolding: null, // {player, card}: a card someone took from the discard pile (public)
    pending: 0, // local time until which taps wait for the answer to a sent action
    readyRound: null, // round for which "ready" was sent
    settings: loadSettings(),
    menuOpen: false,
    botLevel: BotLevel.NORMAL, // the level of the next computer player the host adds (R17.1)
    confirmLeave: false, // the "Leave the room?" question is open
    leaving: false, // this player asked to leave: the seat's end is expected (R17.5)
    watching: false, // this page watches the room (R18.1: /r/{code}?watch), no seat
    replay: null, // a round's replay on screen (R18.2): {code, round, data, steps, step, playing} (replay/playing.js)
    review: null, // this seat's memory review of the round just over (R18.3): {code, round, data}
  };
}

// ---- what a view allows

/** Whether the current player may draw now: from `legal`, or by the clock
 * once turn.may_start_at has passed (protocol.md, "legal"). */
export function canDraw(view, serverNow) {
  if (!view || view.status !== Status.PLAYING || view.holding) return false;
  if (view.legal.includes(ActionType.DRAW)) return true;
  const turn = view.turn;
  return !!turn && turn.player === view.you && !turn.drawn_from && serverNow >= turn.may_start_at;
}

/** Drawing from the discard pile also needs the option and a card there (R13.4). */
export function canDrawDiscard(view, serverNow) {
  return canDraw(view, serverNow) && !!view.options.discard_draw && view.discard_count > 0
    && !!view.discard_top;
}

/** Crisp is legal while this player's window is open (checked against the clock too). */
export function canCrisp(view, serverNow) {
  if (!view || !view.legal.includes(ActionType.CRISP)) return false;
  const w = view.crisp && view.crisp.window;
  return !w || w.player !== view.you || serverNow < crispEnd(view, w);
}

const LATE_CAP_MS = 300; // R18.4: the most the server credits a late call

/** When this phone ends the crisp window `w` (R18.4), on its estimate of the server
 * clock: `closes_at` less the connection's measured delay (`lag_ms`), and less what
 * of it the server's 300 ms cap does not credit. The estimate runs behind the server
 * by about that delay (its samples are the server's `now` when sent), and a tap
 * travels it again: so a tap before the end shown here reaches the server within
 * the delay it credits, and counts. */
export function crispEnd(view, w) {
  const lag = typeof view.lag_ms === 'number' ? view.lag_ms : 0;
  return w.closes_at - lag - Math.max(0, lag - LATE_CAP_MS);
}

export function playerById(view, id) {
  return (view && view.players.find((p) => p.id === id)) || null;
}

/** The table is on screen: the peek phase or a turn being played. */
export function atTable(view) {
  return !!view && (view.status === Status.PEEK || view.status === Status.PLAYING);
}
