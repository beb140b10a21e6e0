// Crisp's module for the shell (games.js): its table picture and gestures, its
// results, replay and memory review, its rules' words and How to play, and what
// its updates do to the client state. Loaded with import() only for a Crisp
// room (or Crisp's How to play); nothing of the shell imports it.

import { t } from '../../i18n.js';
import { EventKind, GAME_ID, Status } from './protocol.js';
import { atTable } from './rules.js';
import { table } from './table.js';
import { results } from './results.js';
import { help } from './help.js';
import { replayScreen } from './replay.js';
import { replaySteps, stepMs } from './steps.js';
import { animateMove } from './motion.js';
import { actions, BUTTON_FOR_KEY, onEscape } from './actions.js';
import { describe, optionsText, PUBLIC_FIELDS, publicCard } from './events.js';
import { roomState, copy, onEvent, afterUpdate, motions, expire, playedWhileAway } from './update.js';

/** The options in the order the lobby shows them, with their choices for a server
 * that does not list them (GET /api/games), R13-R15, R18.1. */
const OPTIONS = Object.freeze({
  limit: { default: 100, choices: [50, 100, 150] },
  draw_seconds: { default: 30, choices: [30, 45, 60, null] },
  discard_draw: { default: false, choices: [false, true] },
  watchers: { default: true, choices: [true, false] },
});

/** An option's name in the lobby (null: the shell's word, or the name itself). */
const OPTION_LABELS = { limit: 'opt.limit', draw_seconds: 'opt.drawSeconds', discard_draw: 'opt.discardDraw' };

function optionValue(name, value) {
  if (name === 'limit' && typeof value === 'number') return t('opt.limitValue', { count: value });
  if (name === 'draw_seconds') return value == null ? t('opt.noLimit') : t('opt.secondsValue', { count: value });
  return null;
}

/** The table while a round is dealt or played; the results after it. */
function screen(ctx) {
  return atTable(ctx.S.view) ? table(ctx) : results(ctx);
}

/** The document title's mark: your turn. */
function title(S) {
  const v = S.view;
  return v.turn && v.turn.player === v.you ? `★ ${t('turn.you')}` : null;
}

/** A notice of Crisp's own words: the crisp call. */
function noticeText(S, notice, nameOf) {
  const ev = notice.ev;
  if (ev.kind !== EventKind.CRISP) return null;
  return ev.player === (S.view && S.view.you) ? t('crisp.bannerYou') : t('crisp.banner', { name: nameOf(ev.player) });
}

/** The public part of a view a reload may draw: no card held (R16.3), no clock. */
function publicTable(view) {
  const turn = view.turn ? { ...view.turn, draw_deadline: null, may_start_at: 0 } : null;
  const crisp = view.crisp ? { ...view.crisp, window: null, windows: [] } : view.crisp;
  return { ...view, holding: null, turn, crisp, peek_ends_at: null };
}

/** The round a player's own results review (R18.3: "What you remembered"). */
function reviewRound(v) {
  const over = v.status === Status.ROUND_OVER || v.status === Status.GAME_OVER;
  return over && v.last_round ? v.last_round.round : null;
}

export const game = Object.freeze({
  id: GAME_ID,
  screen,
  atTable,
  help,
  title,
  roomState,
  copy,
  onEvent,
  afterUpdate,
  motions,
  expire,
  playedWhileAway,
  describe,
  publicFields: PUBLIC_FIELDS,
  publicCard,
  noticeText,
  optionsText,
  options: OPTIONS,
  optionLabel: (name) => (OPTION_LABELS[name] ? t(OPTION_LABELS[name]) : null),
  optionValue,
  actions,
  keys: BUTTON_FOR_KEY,
  onEscape,
  animate: animateMove,
  publicTable,
  replayScreen,
  replaySteps,
  stepMs,
  reviewRound,
});
