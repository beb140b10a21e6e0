// The client state's shape and the server-clock estimate. Plain data and pure
// functions only: the state changes in update.js (server messages), actions.js
// and routing.js. A game's own fields (its `roomState()`, games.js) join the
// state when one of its rooms is entered; what a view allows is the game's.

import { loadSettings } from './storage.js';
import { BotLevel } from './protocol.js';
import { gameOf, gameId } from './games.js';

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
    homeGame: null, // the game chosen on the home screen (null: the default game)
    games: null, // GET /api/games's list, once asked (net/api.js games); null until then
    busy: false,
    booting: false, // true only in the page's first screen, drawn before the client runs (web/shell/make.mjs)
    conn: 'idle', // idle | connecting | open | reconnecting | replaced
    clock: newClock(), // the server-clock estimate of this room's connection
    view: null, // the latest view (protocol.md), whole
    stale: false, // `view` is the table as last seen (storage.js loadTable), not yet this connection's
    names: {}, // player id -> last known name, for events about players who left
    bots: {}, // player id -> true for a computer player (its default name is translated, parts.js)
    log: [], // [{id, ev}] newest last: each event's public part (events.js publicEvent), described when shown
    flashes: {}, // highlight key -> until (ms, local clock)
    notices: [], // [{id, ev, matters, at, shownMs, since}]: update.js, "Notices"; described when shown
    rematchBy: null, // who sent everyone back to the lobby (R16.5): said in the lobby until the game starts
    logOpen: false, // the move log's sheet (table)
    help: false, // the how-to-play page is open
    toasts: [], // [{id, msg, until}]: msg from i18n.js msg(), or a plain string
    serial: 0, // the last id given to a log line or a toast
    optionsDraft: null, // options the host just changed, until the room confirms them
    pending: 0, // local time until which taps wait for the answer to a sent action
    settings: loadSettings(),
    menuOpen: false,
    botLevel: BotLevel.NORMAL, // the level of the next computer player the host adds (R17.1)
    confirmLeave: false, // the "Leave the room?" question is open
    leaving: false, // this player asked to leave: the seat's end is expected (R17.5)
    watching: false, // this page watches the room (R18.1: /r/{code}?watch), no seat
    replay: null, // a round's replay on screen (R18.2): {code, round, data, steps, step, playing} (replay/playing.js)
    review: null, // the game's review of this seat's round just over (R18.3): {code, round, data}
  };
}

// ---- the room

export function playerById(view, id) {
  return (view && view.players.find((p) => p.id === id)) || null;
}

/** A turn of the room's game is being played (its table on screen: the tick
 * redraws, notices go in the table's own line), as its module says. */
export function atTable(view) {
  const game = gameOf(view);
  return !!game && !!game.atTable && game.atTable(view);
}

/** The game whose How to play shows: the room's, else the one chosen on the home screen. */
export function helpGame(S) {
  if (S.screen === 'room' && S.view) return gameId(S.view);
  return S.homeGame || gameId(null);
}
