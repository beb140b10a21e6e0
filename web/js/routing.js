// Where the page is: "/" is the home screen, "/r/{code}" a room, entered at
// once with a stored seat (a reload returns to the same seat), else the join
// form with the code filled in; "/r/{code}?watch" watches the room (R18.1: no
// seat, no name asked). Entering a room opens its socket (net/socket.js);
// its messages go through applyUpdate (update.js) and their effects run here.
// A fatal close (docs/web-client.md, "Connecting and reconnecting") leads back
// home, except "replaced", which waits for "Play in this tab".

import { msg } from './i18n.js';
import * as api from './net/api.js';
import { RoomSocket } from './net/socket.js';
import { ErrorCode, MessageType, Status } from './protocol.js';
import { gameId, gameModule, gameOf, loadGame } from './games.js';
import { loadQr, qrModule } from './lazy.js';
import {
  loadSeat, saveSeat, forgetSeat, lastRoom, loadName, loadTable, saveTable, markSeated, writeSeatsCookie,
} from './storage.js';
import { restartClock } from './state.js';
import { getState, setState, replaceState } from './store.js';
import { applyUpdate, errorMessage } from './update.js';
import { render, bringPilesIntoView } from './paint.js';
import { yourTurn } from './feedback.js';
import { typedCode } from './render/home.js';
import { reviewIfOver } from './replay/playing.js';

let sock = null;

/** Show what the address bar says (on start and on back/forward). */
export function route() {
  const m = location.pathname.match(/^\/r\/([^/]+)\/?$/);
  const code = m ? api.normalizeCode(decodeURIComponent(m[1])) : '';
  const move = (location.hash.match(/^#move=([A-Za-z0-9-]+)$/) || [])[1];
  const watch = new URLSearchParams(location.search).has('watch');
  if (code && move) takeMovedSeat(code, move);
  else if (code && watch) enterRoom(code, { watch: true });
  else if (code && loadSeat(code)) enterRoom(code);
  else showHome(code);
}

/** R18.5: a link `/r/{code}#move={move_code}` from another phone: take that seat
 * here, without a name. The code leaves the address bar at once (a reload does not
 * try it again); it was in the fragment, so no server log has it. */
async function takeMovedSeat(code, move) {
  history.replaceState(null, '', `/r/${code}`);
  leaveRoom();
  setState({ screen: 'loading' });
  try {
    const seat = await api.takeMoveCode(code, move);
    saveSeat(seat.code, seat);
    enterRoom(seat.code);
  } catch (e) {
    showHome(code, errorMessage(e.code, e.message));
  }
}

/** The home screen; with `code`, the join form for that room (and who is waiting there);
 * `error`: a message (i18n.js msg) to show there. */
export function showHome(code, error = null) {
  leaveRoom();
  setState({
    screen: 'home', code: null, view: null, stale: false, conn: 'idle', homeCode: code || '', notices: [],
    homeInfo: null, homeError: error, homeName: loadName(), lastRoom: lastRoom(),
    confirmLeave: false, leaving: false, watching: false, replay: null, review: null,
  });
  if (code) lookUp(code);
  loadGames();
  writeSeatsCookie();
}

/** Who is waiting in room `code`, for the join form (if that code is still the one typed). */
export async function lookUp(code) {
  try {
    const info = await api.roomInfo(code);
    const S = getState();
    if (S.screen === 'home' && api.normalizeCode(typedCode() || S.homeCode) === info.code) {
      setState({ homeInfo: info });
    }
  } catch (e) {
    if (getState().screen === 'home' && e.status === 404) {
      setState({ homeInfo: null, homeError: errorMessage(ErrorCode.NO_ROOM) });
    }
  }
}

/** The games this server offers (GET /api/games), for the home screen and the
 * lobby; asked for once (again after a failure). A server without the list (404)
 * offers the default game alone. */
let gamesAsked = null;
export function loadGames() {
  if (!gamesAsked) {
    gamesAsked = api.games().then((games) => setState({ games }), () => { gamesAsked = null; });
  }
  return gamesAsked;
}

/** Take the stored seat in room `code` and connect. Until the first update
 * comes, the page shows the table as it last saw it (storage.js `loadTable`:
 * public only, every tap disabled), so that a reload, or a phone offline, shows
 * the room at once; the first update also says whether this seat was played
 * meanwhile (the game's `playedWhileAway`). The room's game's module is loaded
 * meanwhile (games.js): the game of the table last seen, of the room's look-up
 * on the join form, or `game` (the one just created); else the room is looked up
 * for it at once (and the first update, which names it too, waits for it). */
export function enterRoom(code, { watch = false, game: named = null } = {}) {
  leaveRoom();
  const seat = watch ? null : loadSeat(code);
  const S = getState();
  const last = watch ? null : loadTable(code);
  const info = S.homeInfo && S.homeInfo.code === code ? S.homeInfo : null;
  const id = last ? gameId(last) : named || (info && gameId(info));
  const game = id ? gameModule(id) : null;
  if (id && !game) loadGame(id).then(() => enterIfStill(code, watch), render);
  // not known here (a seat taken elsewhere, a watcher's link): the room's look-up
  // names it, in parallel with the socket, so its table loads meanwhile
  if (!id) api.roomInfo(code).then((found) => loadGame(gameId(found))).then(() => enterIfStill(code, watch), render);
  const names = {};
  const bots = {};
  for (const p of (last && last.players) || []) {
    names[p.id] = p.name;
    if (p.is_bot) bots[p.id] = true;
  }
  replaceState({
    ...S, ...(game && game.roomState ? game.roomState() : {}), screen: 'room', code, view: last, stale: !!last,
    log: [], flashes: {}, pending: 0, conn: 'connecting', homeError: null,
    confirmLeave: false, leaving: false, notices: [], rematchBy: null,
    names, bots, clock: restartClock(S.clock), watching: watch, replay: null, review: null,
  });
  if (!watch) markSeated(code, true);
  const path = watch ? `/r/${code}?watch` : `/r/${code}`;
  if (`${location.pathname}${location.search}` !== path) history.replaceState(null, '', path);
  sock = new RoomSocket({
    code, token: seat && seat.token, watch, onMessage: receive, onStatus: announce, onFatal,
  });
  sock.start();
}

/** The room's game's module came after the room was entered: its own fields join
 * the state (kept where an update set them meanwhile), and it is drawn. */
function enterIfStill(code, watch) {
  const S = getState();
  const game = gameOf(S.view);
  if (S.screen !== 'room' || S.code !== code || S.watching !== watch || !game) return;
  replaceState({ ...(game.roomState ? game.roomState() : {}), ...S });
}

function leaveRoom() {
  if (sock) sock.stop();
  sock = null;
}

/** Send a client message on the room's socket; false when it is not connected. */
export function sendToRoom(msg) {
  return !!sock && !!sock.send(msg);
}

/** The room's socket, for the browser tests (window.crisp.socket()). */
export const currentSocket = () => sock;

/** The socket's state, shown in the header and announced to tests: 'open' is
 * said with the first update it brought, which may wait for its game's module
 * (receive), so an open room always has its view; a later state overtakes an
 * 'open' still waiting. */
let announced = 0;
function announce(conn) {
  const n = ++announced;
  if (conn !== 'open' || !waiting) {
    setState({ conn });
    return;
  }
  const from = sock;
  inbox = inbox.then(() => { if (n === announced && sock === from) setState({ conn }); });
}

/** A server message, in order: one whose view names a game not yet loaded waits
 * for its module (and the messages after it wait behind it). */
let inbox = Promise.resolve();
let waiting = 0;
function receive(msg) {
  const id = msg && msg.view ? gameId(msg.view) : null;
  if (!waiting && (!id || gameModule(id))) {
    apply(msg);
    return;
  }
  waiting += 1;
  const from = sock;
  // a game this client has no module for: the table's part still applies (the lobby
  // works, the rest says this client cannot show the game)
  inbox = inbox.then(() => (id && !gameModule(id) ? loadGame(id) : null)).catch(() => {}).then(() => {
    waiting -= 1;
    if (sock === from) apply(msg);
  });
}

function apply(msg) {
  const before = getState();
  const { state, effects } = applyUpdate(before, msg, Date.now());
  const isUpdate = !!msg && msg.type === MessageType.UPDATE;
  if (state !== before) replaceState(state.stale && isUpdate ? { ...state, stale: false } : state);
  if (isUpdate && state.view && state.code && !state.watching) saveTable(state.code, state.view);
  if (isUpdate) reviewIfOver(getState()); // R18.3: what you remembered
  if (state.view && state.view.status === Status.LOBBY && !qrModule()) loadQr().then(render, () => {});
  for (const effect of effects) {
    if (effect.type === 'fatal') onFatal(effect.reason);
    else if (effect.type === 'yourTurn') {
      yourTurn(getState().settings);
      bringPilesIntoView();
    } else if (effect.type === 'wake') setTimeout(render, effect.after);
    else if (effect.type === 'motion') {
      const game = gameOf(state.view);
      if (game && game.animate) game.animate(effect.ev, state.view && state.view.you, effect.delay);
    }
  }
}

/** The seat is lost ('token', 'gone', 'removed', 'moved' to another phone) or taken by
 * another tab ('replaced'). */
function onFatal(reason) {
  const code = getState().code;
  if (getState().watching) { // R18.1: a watcher has no seat to forget
    history.replaceState(null, '', '/');
    showHome('', msg(`fatal.watch.${reason === 'watchOff' || reason === 'watchFull' ? reason : 'gone'}`, { code }));
    return;
  }
  if (reason === 'replaced') {
    setState({ conn: 'replaced' });
    return;
  }
  forgetSeat(code);
  if (getState().leaving && reason !== 'token') {
    history.replaceState(null, '', '/');
    showHome('', msg('fatal.left', { code }));
  } else if (reason === 'token') {
    history.replaceState(null, '', `/r/${code}`);
    showHome(code, msg('fatal.token', { code }));
  } else if (reason === 'moved') {
    history.replaceState(null, '', '/');
    showHome('', msg('fatal.moved', { code }));
  } else if (reason === 'gone') {
    history.replaceState(null, '', '/');
    showHome('', msg('fatal.gone', { code }));
  } else {
    history.replaceState(null, '', '/');
    showHome('', msg('fatal.removed', { code }));
  }
}
