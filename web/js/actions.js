// Taps into protocol messages (protocol.md, "Client to server") and into
// changes of what this page shows: the table's here, a game's from its module
// (`actions(kit)`, games.js), merged by `actsFor`. The screens (render/, and a
// game's) call these as `ctx.act.<name>`; keys.js clicks the same buttons.

import { setLanguage, t, msg } from './i18n.js';
import * as api from './net/api.js';
import { loadQr } from './lazy.js';
import { ActionType, ClientError, ErrorCode, MessageType } from './protocol.js';
import { saveSeat, saveName, saveSettings } from './storage.js';
import { serverTime, helpGame } from './state.js';
import { gameId, gameModule, loadGame } from './games.js';
import { getState, setState, replaceState } from './store.js';
import { errorMessage, withToast } from './update.js';
import { enterRoom, lookUp, sendToRoom, showHome } from './routing.js';
import { askMove, closeMove, copyMoveLink } from './moving.js';
import { openReplay, closeReplay, goToStep, togglePlaying } from './replay/playing.js';
import { render } from './paint.js';
import { nameField, typedCode } from './render/home.js';

const PENDING_MS = 2000; // after a tap, the action buttons wait this long at most for the answer
const LOOKUP_DELAY_MS = 350;

let lookUpTimer = null;

function toast(message) {
  replaceState(withToast(getState(), message, Date.now()));
}

const serverNow = () => serverTime(getState().clock, Date.now());
const view = () => getState().view;
const legal = (type) => view().legal.includes(type);

/** Send on the room's socket; with `pend`, the action buttons wait for the answer. */
function send(msg, pend = true) {
  if (!sendToRoom(msg)) {
    toast(errorMessage(ClientError.OFFLINE));
    return false;
  }
  if (pend) setState({ pending: Date.now() + PENDING_MS });
  else render();
  return true;
}

/** The typed name, if it is one the server takes: 1 to 20 characters (code points). */
function readName() {
  const el = nameField();
  const name = el ? el.value.trim() : '';
  if (!name || [...name].length > 20) {
    toast(errorMessage(ErrorCode.BAD_NAME));
    if (el) el.focus();
    return null;
  }
  saveName(name);
  return name;
}

/** Create or join a room over HTTP, store the seat and enter the room (of `game`,
 * when it is known: its table loads meanwhile). */
async function viaApi(call, game = null) {
  setState({ busy: true });
  try {
    const seat = await call();
    saveSeat(seat.code, seat);
    history.pushState(null, '', `/r/${seat.code}`);
    enterRoom(seat.code, { game });
  } catch (e) {
    toast(errorMessage(e.code, e.message));
  } finally {
    setState({ busy: false });
  }
}

export const act = {
  setLanguage: async (code) => {
    await setLanguage(code, true);
    render();
  },
  toggleMenu: () => setState({ menuOpen: !getState().menuOpen }),
  setSetting: (key, value) => {
    const settings = { ...getState().settings, [key]: value };
    saveSettings(settings);
    setState({ settings });
  },
  create: () => {
    const name = readName();
    if (!name) return;
    loadQr().catch(() => {}); // the lobby comes next: its QR code loads meanwhile
    const game = getState().homeGame || gameId(null);
    loadGame(game).catch(() => {}); // its table comes next
    viaApi(() => api.createRoom(name, game), game);
  },
  join: () => {
    const code = api.normalizeCode(typedCode());
    if (!api.isCodeLength(code.length)) {
      toast(errorMessage(ClientError.BAD_CODE));
      return;
    }
    const name = readName();
    if (!name) return;
    loadQr().catch(() => {});
    viaApi(() => api.joinRoom(code, name));
  },
  submitHome: () => (typedCode().trim() ? act.join() : act.create()),
  codeTyped: () => {
    clearTimeout(lookUpTimer);
    const code = api.normalizeCode(typedCode());
    setState({ homeInfo: null, homeError: null });
    // Only a whole code is looked up: the server counts look-ups of codes that do
    // not exist, and every prefix typed would be one.
    if (code.length === api.CODE_LENGTH) lookUpTimer = setTimeout(() => lookUp(code), LOOKUP_DELAY_MS);
  },
  // R18.1: watch a room (no seat, no name); stop, back home
  watch: (code) => {
    history.pushState(null, '', `/r/${code}?watch`);
    enterRoom(code, { watch: true });
  },
  stopWatching: () => {
    history.pushState(null, '', '/');
    showHome('');
  },
  // R18.2: a round's replay
  openReplay: (round) => openReplay(round),
  closeReplay,
  replayTo: (step) => goToStep(step),
  replayPlay: togglePlaying,
  rejoin: (code) => {
    history.pushState(null, '', `/r/${code}`);
    enterRoom(code);
  },
  useHere: () => enterRoom(getState().code),
  share: async (link) => {
    if (typeof navigator.share === 'function') {
      try {
        await navigator.share({ title: 'Crisp', text: t('lobby.shareText', { code: api.formatCode(view().code) }), url: link });
        return;
      } catch (e) {
        if (e && e.name === 'AbortError') return;
      }
    }
    if (await copyText(link)) toast(msg('lobby.copied'));
    else toast(link);
  },
  setOption: (o) => {
    // Shown at once; the next update (or an error) replaces it with the room's options.
    setState({ optionsDraft: { ...(getState().optionsDraft || {}), ...o } });
    send({ type: ActionType.OPTIONS, ...o });
  },
  kick: (player) => send({ type: ActionType.KICK, player }),
  lock: (locked) => send({ type: MessageType.LOCK, locked }),
  setBotLevel: (botLevel) => setState({ botLevel }),
  addBot: () => send({ type: ActionType.ADD_BOT, level: getState().botLevel }),
  askLeave: () => setState({ confirmLeave: true, menuOpen: false }),
  cancelLeave: () => setState({ confirmLeave: false }),
  // R17.5: the server frees the seat (lobby) or gives it to the computer (game),
  // and closes this socket with 4403; routing.js then shows the home screen.
  leave: () => {
    setState({ confirmLeave: false });
    if (send({ type: ActionType.LEAVE })) setState({ leaving: true });
  },
  start: () => send({ type: ActionType.START }),
  toggleHelp: () => {
    const open = !getState().help;
    setState({ help: open, menuOpen: false });
    if (open) loadGame(helpGame(getState())).then(render, () => {}); // its rules
  },
  chooseGame: (id) => {
    setState({ homeGame: id });
    loadGame(id).catch(() => {});
  },
  rematch: () => send({ type: ActionType.REMATCH }),
  askMove, closeMove, copyMoveLink, // R18.5: moving.js
};

/** What a game's taps may use (its `actions(kit)`). */
const kit = Object.freeze({ getState, setState, send, serverNow, view, legal });
const merged = new Map();

/** The taps of a room of `view`'s game: the table's and the game's own. */
export function actsFor(v) {
  const id = gameId(v);
  const game = gameModule(id);
  if (!game || !game.actions) return act;
  if (!merged.has(id)) merged.set(id, Object.freeze({ ...act, ...game.actions(kit) }));
  return merged.get(id);
}

/** The clipboard, or the old way where it is not allowed. */
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
