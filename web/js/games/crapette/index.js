// Crapette's module for the shell (games.js, docs/web-client.md "Crapette
// table"): its table and gestures (table.js, drag.js), its moves read from the
// view (moves.js), the "Crapette!" call, its log lines and How to play. Loaded
// with import() only for a Crapette room; its CSS (web/css/crapette.css) comes
// with it.

import { t } from '../../i18n.js';
import { table, moveWords } from './table.js';
import { help } from './help.js';
import { flip } from './drag.js';
import { getState } from '../../store.js';
import { CrapWhy } from './protocol.js';
import {
  ActionType, Calls, EventKind, GAME_ID, Status, callMessage, lastMovedVersion, moveMessage, moving,
  sources, tablePile, targets, showsSequence, callVersion,
} from './moves.js';

if (typeof document !== 'undefined' && typeof document.querySelector === 'function'
  && !document.querySelector('link[data-game-css="crapette"]')) {
  const link = document.createElement('link');
  link.rel = 'stylesheet';
  link.href = new URL('../../../css/crapette.css', import.meta.url).href;
  link.dataset.gameCss = GAME_ID;
  // the module is ready once its stylesheet is (no unstyled table first), or after 3 s
  const loaded = new Promise((resolve) => { link.onload = resolve; link.onerror = resolve; setTimeout(resolve, 3000); });
  document.head.appendChild(link);
  await loaded;
}

const CALL_SHOWN_MS = 12000; // a call's outcome stays this long (or until the next turn's first move)
const MOTION_STEP_MS = 260;

const OPTIONS = Object.freeze({
  calls: { default: Calls.OBVIOUS, choices: [Calls.OFF, Calls.OBVIOUS, Calls.COMBINATION, Calls.STRICT] },
  move_seconds: { default: null, choices: [null, 15, 30, 60] },
  watchers: { default: true, choices: [true, false] },
});

function optionValue(name, value) {
  if (name === 'calls') return t(`game.crapette.calls.${value}`);
  if (name === 'move_seconds') return value == null ? t('opt.noLimit') : t('opt.secondsValue', { count: value });
  return null;
}

const atTable = (v) => !!v && (v.status === Status.PLAYING || v.status === Status.GAME_OVER);

function roomState() {
  return {
    crPick: null, // the table pile whose card is picked up (tap-tap)
    crDragging: false,
    crVersion: null, // the version of the last `moved` event seen this turn (a call names it)
    crCalling: false, // picking the moves to show (combination / strict)
    crShow: [], // [[from, to], ...] table piles, the sequence shown
    crShowFrom: null,
    crLastCall: null, // {player, mover, right, fault, missed, at}
    crMissed: null, // {from, to} table piles of a right call's missed move
    logOpen: false,
  };
}

/** One event into the client state (a fresh copy update.js owns). */
function onEvent(s, ev, now) {
  const v = s.view;
  if (ev.kind === EventKind.MOVED) {
    s.crVersion = lastMovedVersion([ev], ev.player, s.crVersion);
    s.crPick = null;
    if (s.crLastCall && s.crLastCall.mover !== ev.player) { s.crLastCall = null; s.crMissed = null; }
  } else if (ev.kind === EventKind.ENDED) {
    s.crVersion = null;
    s.crPick = null;
    s.crCalling = false;
    s.crShow = [];
    s.crShowFrom = null;
  } else if (ev.kind === EventKind.CALLED) {
    const mover = (v.players.find((p) => p.id !== ev.player) || {}).id;
    s.crLastCall = { player: ev.player, mover, right: !!ev.right, fault: ev.fault || null, missed: ev.missed || null, at: now };
    s.crMissed = ev.right && ev.missed ? { from: tablePile(v, ev.missed.from, mover), to: tablePile(v, ev.missed.to, mover) } : null;
    s.crCalling = false;
    s.crShow = [];
    s.crShowFrom = null;
  }
}

function afterUpdate(next) {
  if (next.view.status !== Status.PLAYING) { next.crPick = null; next.crCalling = false; }
  if (next.crPick && !sources(next.view).includes(next.crPick)) next.crPick = null;
}

function expire(state, now) {
  if (state.crLastCall && state.crLastCall.at + CALL_SHOWN_MS <= now) return { crLastCall: null, crMissed: null };
  return null;
}

function motions(events) {
  const out = [];
  for (const ev of events) {
    if (ev.kind === EventKind.MOVED) out.push({ type: 'motion', ev, delay: MOTION_STEP_MS * out.length });
  }
  return out;
}

/** A moved card slides from its pile to its new one (FLIP, drag.js). */
function animate(ev, you, delay) {
  const v = getState().view;
  if (v && ev.from && ev.to) flip(tablePile(v, ev.from, ev.player), tablePile(v, ev.to, ev.player), delay);
}

function actions({ getState, setState, send, view }) {
  const move = (from, to) => {
    const msg = moveMessage(view(), from, to);
    setState({ crPick: null });
    if (msg) send(msg);
  };
  return {
    crMove: move,
    crTap: (pile) => {
      const S = getState();
      const v = view();
      if (!v || v.status !== Status.PLAYING) return;
      if (S.crCalling) { // picking the sequence to show
        if (!S.crShowFrom) setState({ crShowFrom: pile });
        else if (S.crShowFrom === pile) setState({ crShowFrom: null });
        else setState({ crShow: [...S.crShow, [S.crShowFrom, pile]], crShowFrom: null });
        return;
      }
      if (!moving(v)) return;
      if (S.crPick && targets(v, S.crPick).includes(pile)) move(S.crPick, pile);
      else if (S.crPick === pile) setState({ crPick: null });
      else setState({ crPick: sources(v).includes(pile) ? pile : null });
    },
    crEnd: () => { setState({ crPick: null }); send({ type: ActionType.END }); },
    crCall: () => {
      const S = getState();
      const v = view();
      if (showsSequence(v) && !S.crCalling) { setState({ crCalling: true, crShow: [], crShowFrom: null }); return; }
      const msg = callMessage(v, callVersion(S), S.crShow);
      setState({ crCalling: false, crShow: [], crShowFrom: null });
      if (msg) send(msg);
    },
    crCancelCall: () => setState({ crCalling: false, crShow: [], crShowFrom: null }),
    toggleLog: () => setState({ logOpen: !getState().logOpen }),
  };
}

function onEscape(S, act) {
  if (S.crCalling) { act.crCancelCall(); return true; }
  if (S.crPick) { act.crTap(S.crPick); return true; }
  return false;
}

/** A log line of Crapette's own events. */
function describe(ev, ctx) {
  const me = ev.player === ctx.you;
  const name = ev.player ? ctx.name(ev.player) : '';
  switch (ev.kind) {
    case EventKind.CALLED:
      return { text: t(ev.right ? 'game.crapette.ev.callRight' : 'game.crapette.ev.callWrong', { name }), flash: [] };
    case EventKind.ENDED:
      return { text: t(`game.crapette.ev.ended.${ev.why || CrapWhy.END}`, { name }), flash: [] };
    case EventKind.GAME_OVER:
      return { text: (ev.winners || []).length ? t('game.winner', { name: ctx.name(ev.winners[0]) }) : t('game.crapette.blocked'), flash: [] };
    default:
      return { text: null, flash: [] };
  }
}

function title(S) {
  return moving(S.view) ? `★ ${t('game.crapette.yourTurn')}` : null;
}

export const game = Object.freeze({
  id: GAME_ID,
  screen: table,
  atTable,
  help,
  title,
  roomState,
  copy: (s) => ({ crShow: [...(s.crShow || [])] }),
  onEvent,
  afterUpdate,
  expire,
  motions,
  animate,
  describe,
  publicFields: ['from', 'to', 'version', 'right', 'fault', 'missed', 'why', 'winners', 'left'],
  publicCard: () => true,
  options: OPTIONS,
  optionLabel: (name) => (name === 'calls' || name === 'move_seconds' ? t(`game.crapette.opt.${name}`) : null),
  optionValue,
  actions,
  keys: { c: 'crapette-button', e: 'end-turn' },
  onEscape,
  publicTable: (view) => ({ ...view, turn: view.turn ? { ...view.turn, deadline: null } : null }),
  yourTurnScroll: '.cr-board',
});

export { moveWords };
