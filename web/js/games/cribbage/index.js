// Cribbage's module for the shell (games.js): its table, taps, words and How
// to play. Loaded with import() only for a Cribbage room (or its How to play).
// Its stylesheet, css/cribbage.css, is linked when the module loads.

import { t } from '../../i18n.js';
import { GAME_ID, CribStatus as Status, CribAction as ActionType } from './protocol.js';
import { table } from './table.js';
import { help } from './help.js';
import { describe, PUBLIC_FIELDS } from './events.js';
import { giveCount, mustGive, myTurn } from './rules.js';

const COACH_KEY = 'crisp.cribbage.coach';

function linkStyle() {
  if (typeof document === 'undefined') return;
  const href = new URL('../../../css/cribbage.css', import.meta.url).href;
  if ([...document.querySelectorAll('link[rel=stylesheet]')].some((l) => l.href === href)) return;
  const link = document.createElement('link');
  link.rel = 'stylesheet';
  link.href = href;
  document.head.appendChild(link);
}
linkStyle();

function coachOff() {
  try { return globalThis.localStorage && localStorage.getItem(COACH_KEY) === 'off'; } catch { return false; }
}

const OPTIONS = Object.freeze({
  target: { default: 121, choices: [121, 61] },
  skunk: { default: 'skunk', choices: ['skunk', 'lurch', 'off'] },
  muggins: { default: false, choices: [false, true] },
  turn_seconds: { default: null, choices: [null, 15, 30, 60] },
  watchers: { default: true, choices: [true, false] },
});

const OPTION_LABELS = { target: 'game.cribbage.opt.target', skunk: 'game.cribbage.opt.skunk', muggins: 'game.cribbage.opt.muggins', turn_seconds: 'game.cribbage.opt.turnSeconds' };

function optionValue(name, value) {
  if (name === 'target' && typeof value === 'number') return t('game.cribbage.opt.targetValue', { n: value });
  if (name === 'skunk' && typeof value === 'string') return t(`game.cribbage.opt.skunk.${value}`);
  if (name === 'turn_seconds') return value == null ? t('opt.noLimit') : t('opt.secondsValue', { count: value });
  return null;
}

export function actions({ getState, setState, send, view, legal }) {
  return {
    tapCard: (card) => {
      const v = view();
      if (mustGive(v)) {
        const picked = (getState().cribPick || []).filter((c) => v.hand.includes(c));
        const next = picked.includes(card) ? picked.filter((c) => c !== card) : [...picked, card].slice(-giveCount(v));
        setState({ cribPick: next, cribWhy: null });
      } else if (myTurn(v) && (v.playable || []).includes(card)) {
        send({ type: ActionType.LAY, card });
      }
    },
    cardWhy: (reason) => setState({ cribWhy: reason }),
    give: () => {
      const v = view();
      const picked = (getState().cribPick || []).filter((c) => v.hand.includes(c));
      if (mustGive(v) && picked.length === giveCount(v)) {
        send({ type: ActionType.GIVE, cards: picked });
        setState({ cribPick: [] });
      }
    },
    skipShow: (key) => setState({ cribSkip: [...(getState().cribSkip || []), key] }),
    claimSet: (n) => setState({ cribClaim: Math.max(0, Math.min(29, n)) }),
    claimSend: () => { if (legal(ActionType.CLAIM)) send({ type: ActionType.CLAIM, points: getState().cribClaim || 0 }); },
    muggins: () => { if (legal(ActionType.MUGGINS)) send({ type: ActionType.MUGGINS }); },
    cribReady: () => { if (legal(ActionType.READY)) send({ type: ActionType.READY }); },
    toggleCoach: () => {
      const off = !getState().cribCoachOff;
      try { localStorage.setItem(COACH_KEY, off ? 'off' : 'on'); } catch { /* private mode */ }
      setState({ cribCoachOff: off });
    },
  };
}

const roomState = () => ({ cribPick: [], cribWhy: null, cribSkip: [], cribClaim: 0, cribCoachOff: coachOff() });

/** The table is on screen while a hand is given, played or shown (the tick runs). */
const atTable = (v) => !!v && [Status.GIVE, Status.PLAY, Status.SHOW, Status.HAND_OVER].includes(v.status);

function title(S) {
  const v = S.view;
  return myTurn(v) || mustGive(v) ? `★ ${t('turn.you')}` : null;
}

/** Keys: 1-6 tap your cards, g gives, n the next hand. */
const KEYS = Object.freeze({ 1: 'cb-card-0', 2: 'cb-card-1', 3: 'cb-card-2', 4: 'cb-card-3', 5: 'cb-card-4', 6: 'cb-card-5', g: 'cb-give', n: 'cb-ready' });

export const game = Object.freeze({
  id: GAME_ID,
  screen: (ctx) => table(ctx),
  atTable,
  help,
  title,
  roomState,
  describe,
  publicFields: PUBLIC_FIELDS,
  options: OPTIONS,
  optionLabel: (name) => (OPTION_LABELS[name] ? t(OPTION_LABELS[name]) : null),
  optionValue,
  actions,
  keys: KEYS,
  yourTurnScroll: '.cb-me',
  publicTable: (view) => ({ ...view, hand: null, gave: null, playable: [], coach: null, give_deadline: null, turn: view.turn ? { ...view.turn, deadline: null } : null }),
});
