// Taps into protocol messages (protocol.md, "Client to server") and into
// changes of what this page shows. The screens (render/) call these as
// `ctx.act.<name>`; keys.js clicks the same buttons.

import { setLanguage, t, msg } from './i18n.js';
import * as api from './net/api.js';
import { loadQr } from './lazy.js';
import { ActionType, ClientError, ErrorCode, MessageType, Source, Status } from './protocol.js';
import { saveSeat, saveName, saveSettings } from './storage.js';
import { canDraw, canDrawDiscard, canCrisp, serverTime } from './state.js';
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

/** Create or join a room over HTTP, store the seat and enter the room. */
async function viaApi(call) {
  setState({ busy: true });
  try {
    const seat = await call();
    saveSeat(seat.code, seat);
    history.pushState(null, '', `/r/${seat.code}`);
    enterRoom(seat.code);
  } catch (e) {
    toast(errorMessage(e.code, e.message));
  } finally {
    setState({ busy: false });
  }
}

/** Queen (R8): your card, then theirs (either may be changed), then Confirm sends the swap. */
function chooseForQueen(choice) {
  setState({ queen: { ...getState().queen, ...choice } });
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
    viaApi(() => api.createRoom(name));
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
  ready: () => {
    if (send({ type: ActionType.READY }, false)) {
      const v = view();
      setState({ readyRound: v.round, ...(v.status === Status.PEEK ? { peeks: {} } : {}) });
    }
  },
  drawStock: () => { if (canDraw(view(), serverNow())) send({ type: ActionType.DRAW, source: Source.STOCK }); },
  drawDiscard: () => { if (canDrawDiscard(view(), serverNow())) send({ type: ActionType.DRAW, source: Source.DISCARD }); },
  tapMySlot: (slot) => {
    if (getState().queen) chooseForQueen({ mine: slot });
    else if (legal(ActionType.SWAP)) send({ type: ActionType.SWAP, slot });
  },
  tapSeatSlot: (player, slot) => {
    if (getState().queen) chooseForQueen({ target: { player, slot } });
  },
  discard: () => send({ type: ActionType.DISCARD }),
  jack: () => send({ type: ActionType.JACK }),
  queen: () => {
    if (legal(ActionType.QUEEN)) setState({ queen: { mine: null, target: null } });
  },
  cancelQueen: () => setState({ queen: null }),
  confirmQueen: () => {
    const q = getState().queen;
    if (!q || !q.mine || !q.target || !legal(ActionType.QUEEN)) return;
    setState({ queen: null });
    send({ type: ActionType.QUEEN, slot: q.mine, target: q.target.player, target_slot: q.target.slot });
  },
  toggleLog: () => setState({ logOpen: !getState().logOpen }),
  toggleHelp: () => setState({ help: !getState().help, menuOpen: false }),
  king: () => send({ type: ActionType.KING }),
  crisp: () => { if (canCrisp(view(), serverNow())) send({ type: ActionType.CRISP }); },
  hidePeeks: () => setState({ peeks: {} }),
  nextRound: () => send({ type: ActionType.NEXT_ROUND }),
  rematch: () => send({ type: ActionType.REMATCH }),
  askMove, closeMove, copyMoveLink, // R18.5: moving.js
};

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
