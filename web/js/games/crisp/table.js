// The table, top to bottom: the turn line, the move log's button and the draw
// timer (sticky, table/status.js); the other players in clockwise order
// (table/seats.js); the notice line (table/notice.js: what to do, or what just
// happened, in a reserved place that never covers the table); the piles, the
// drawn card and the Kings played (R9.3, table/piles.js) and your cards
// (table/hand.js); the action dock (sticky, table/dock.js: Discard, Jack, Queen,
// King, crisp; Ready in the peek phase; the Queen's confirmation); the running
// totals and the move log's sheet (here). From 4 players on (`crowded`) the piles
// and your cards share one row, so that 8 seats fit a 360x640 screen. Only what
// the view shows is drawn: a card is face up only when this player may know it
// (R16.3).

import { h } from '../../dom.js';
import { t, formatNumber } from '../../i18n.js';
import { changedSlots } from './events.js';
import { nameEl, seatOrder, offlineStrip, logList, playerName } from '../../render/parts.js';
import { statusBar } from './table/status.js';
import { seat } from './table/seats.js';
import { noticeLine } from './table/notice.js';
import { center } from './table/piles.js';
import { mine } from './table/hand.js';
import { dock } from './table/dock.js';

/** From this many players on, the seats are compact and the piles share a row
 * with your cards: the whole table fits a 360x640 screen. */
const CROWDED = 4;

export function table(ctx) {
  const { S } = ctx;
  const v = S.view;
  const crowded = v.players.length >= CROWDED;
  const marks = changedSlots(S.moves);
  return h('div', { class: `table ${crowded ? 'crowded' : ''}`, 'data-seats': v.players.length },
    h('div', { class: 'sticky-top' }, offlineStrip(S), statusBar(ctx)),
    h('section', { class: 'opponents', 'aria-label': t('table.opponents') },
      seatOrder(v, v.you).map((p) => seat(ctx, p, marks, crowded))),
    noticeLine(ctx),
    h('div', { class: 'midrow' }, center(ctx), v.watching ? null : mine(ctx, marks)),
    h('div', { class: 'dock' }, dock(ctx)),
    scoreStrip(ctx),
    logSheet(ctx));
}

/** The round's moves, newest first, one tap away (the ☰ button in the status bar). */
function logSheet(ctx) {
  const { S, act } = ctx;
  return h('section', {
    id: 'movelog', class: 'logsheet', hidden: !S.logOpen, 'aria-label': t('log.title'), 'data-testid': 'log-sheet',
  },
  h('div', { class: 'logsheet-head' },
    h('h2', null, t('log.title')),
    h('button', { type: 'button', class: 'btn small', 'data-testid': 'log-close', onclick: act.toggleLog }, t('settings.close'))),
  logList(S));
}

function scoreStrip(ctx) {
  const v = ctx.S.view;
  return h('section', { class: 'scorestrip', 'data-testid': 'scoreboard', 'aria-label': t('score.title') },
    h('span', { class: 'limit' }, t('score.limit', { n: v.options.limit })),
    seatOrder(v).map((p) => h('span', { key: p.id, class: `score ${p.id === v.you ? 'you' : ''}`, 'data-player': p.id },
      h('span', { class: 'sname' }, nameEl(playerName(p))), ' ', h('b', { dir: 'ltr' }, formatNumber(p.total)))));
}
