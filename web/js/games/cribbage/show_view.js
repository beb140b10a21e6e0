// The show, hand by hand (C6, C7): each counted hand with the starter, its
// items lit one after another on the cards and said in words with the running
// total ("fifteen 2, fifteen 4, and a pair is 6"), at a pace you can follow
// (PACE_MS an item) and skip; what did not count where players expect it (the
// entry's `notes`); under muggins the claim; at hand_over the summary and the
// coach (C10.3), which a setting hides.

import { h } from '../../dom.js';
import { t, formatNumber } from '../../i18n.js';
import { num } from '../../render/parts.js';
import { CribStatus as Status, CribAction as ActionType, CRIB } from './protocol.js';
import { sayCount } from './words.js';
import { chip, whoName } from './parts.js';

export const PACE_MS = 1400;

/** When each show entry was first drawn on this phone (local ms), to pace its items. */
const firstSeen = new Map();

export function stepOf(key, now, skipped) {
  if (skipped) return Infinity;
  if (!firstSeen.has(key)) firstSeen.set(key, now);
  return Math.floor((now - firstSeen.get(key)) / PACE_MS) + 1;
}

const entryTitle = (v, e) => (e.whose === CRIB
  ? (v.crib && v.crib.owner === v.you ? t('game.cribbage.cribYours') : t('game.cribbage.cribOf', { name: whoName(v, v.crib ? v.crib.owner : v.dealer) }))
  : (e.whose === v.you ? t('game.cribbage.yourHand') : t('game.cribbage.handOf', { name: whoName(v, e.whose) })));

function entryView(ctx, e, i, { live }) {
  const { S, act } = ctx;
  const v = S.view;
  const key = `${v.hand_no}:${i}:${e.cards.join('')}`; // a new game's hand 1 is another key
  const counted = e.items != null;
  const step = live && counted ? stepOf(key, ctx.local || Date.now(), (S.cribSkip || []).includes(key)) : Infinity;
  const items = e.items || [];
  const shown = Math.min(step, items.length);
  const lit = shown > 0 && shown <= items.length && step !== Infinity ? new Set(items[shown - 1].cards) : new Set();
  const done = !live || step > items.length;
  const running = items.slice(0, shown).reduce((a, it) => a + it.points, 0);
  return h('article', { key, class: `cb-entry ${live ? 'live' : ''}`, 'data-testid': `cb-show-${e.whose}` },
    h('header', null, h('span', { class: 'cb-entry-who' }, entryTitle(v, e)),
      h('b', { class: 'cb-entry-pts' }, counted ? num(done ? e.points : running) : '…')),
    h('div', { class: 'cb-entry-cards', dir: 'ltr' },
      e.cards.map((c) => chip(c, `small ${lit.has(c) ? 'lit' : ''}`, { key: c })),
      h('span', { class: 'cb-plus', 'aria-hidden': 'true' }, '+'),
      chip(v.starter, `small starter ${lit.has(v.starter) ? 'lit' : ''}`)),
    counted ? h('p', { class: 'cb-words', 'data-testid': 'cb-words', 'aria-live': live ? 'polite' : null },
      done ? sayCount(items, t) : sayCount(items, t, Math.max(1, shown))) : h('p', { class: 'cb-words' }, t('game.cribbage.counting')),
    done && e.notes && e.notes.length ? h('p', { class: 'cb-note', 'data-testid': 'cb-note' },
      e.notes.map((n) => t(`game.cribbage.note.${n}`)).join(' ')) : null,
    e.claimed != null ? h('p', { class: 'cb-claimed' }, t('game.cribbage.claimedPts', { count: e.claimed })) : null,
    live && !done ? h('button', { type: 'button', class: 'btn small', 'data-testid': 'cb-skip', onclick: () => act.skipShow(key) }, t('game.cribbage.skip')) : null);
}

/** The show: the newest entry counted slowly, the ones before it in full. */
export function showArea(ctx) {
  const v = ctx.S.view;
  const list = v.show || [];
  if (v.status === Status.HAND_OVER) return null;
  return h('section', { class: 'cb-show', 'data-testid': 'cb-show', 'aria-label': t('game.cribbage.theShow') },
    h('h2', null, t('game.cribbage.theShow')),
    list.length ? list.map((e, i) => entryView(ctx, e, i, { live: i === list.length - 1 })).reverse()
      : h('p', { class: 'hint' }, t('game.cribbage.counting')));
}

/** The hand's summary: every hand and the crib, in words, with their points. */
export function summary(ctx) {
  const v = ctx.S.view;
  return h('section', { class: 'cb-show cb-summary', 'data-testid': 'cb-summary', 'aria-label': t('game.cribbage.summary') },
    h('h2', null, t('game.cribbage.summary')),
    (v.show || []).map((e, i) => entryView(ctx, e, i, { live: false })));
}

/** Under muggins (C8.1): your claim of your hand's points, or Muggins! on another's. */
export function claimPanel(ctx) {
  const { S, act } = ctx;
  const v = S.view;
  const c = v.claim;
  if (!c) return null;
  const entry = (v.show || [])[v.show.length - 1];
  if (c.by === v.you && v.legal.includes(ActionType.CLAIM)) {
    const n = typeof S.cribClaim === 'number' ? S.cribClaim : 0;
    return h('section', { class: 'cb-claim', 'data-testid': 'cb-claim' },
      h('p', null, t('game.cribbage.claimAsk', { name: entryTitle(v, entry || { whose: c.whose }) })),
      h('div', { class: 'cb-stepper' },
        h('button', { type: 'button', class: 'btn small', 'data-testid': 'cb-claim-less', 'aria-label': t('game.cribbage.less'), disabled: n <= 0, onclick: () => act.claimSet(n - 1) }, '−'),
        h('output', { class: 'cb-claim-n', 'data-testid': 'cb-claim-n' }, num(n)),
        h('button', { type: 'button', class: 'btn small', 'data-testid': 'cb-claim-more', 'aria-label': t('game.cribbage.more'), disabled: n >= 29, onclick: () => act.claimSet(n + 1) }, '+'),
        h('button', { type: 'button', class: 'btn primary', 'data-testid': 'cb-claim-send', onclick: act.claimSend }, t('game.cribbage.claim'))));
  }
  if (v.legal.includes(ActionType.MUGGINS)) {
    return h('section', { class: 'cb-claim' },
      h('p', null, t('game.cribbage.mugginsAsk', { name: whoName(v, c.by), count: entry && entry.claimed != null ? entry.claimed : 0 })),
      h('button', { type: 'button', class: 'btn primary', 'data-testid': 'cb-muggins', onclick: act.muggins }, t('game.cribbage.muggins')));
  }
  return h('p', { class: 'hint cb-claim' }, t('game.cribbage.claimWait', { name: whoName(v, c.by) }));
}

/** The discard coach (C10.3): your choice and the best one, with their values. */
export function coachPanel(ctx) {
  const { S, act } = ctx;
  const v = S.view;
  const c = v.coach;
  if (!c) return null;
  const hidden = !!S.cribCoachOff;
  if (hidden) {
    return h('p', { class: 'cb-coach off' },
      h('button', { type: 'button', class: 'btn small', 'data-testid': 'cb-coach-toggle', onclick: act.toggleCoach }, t('game.cribbage.coachShow')));
  }
  const same = c.best && [...c.best.gave].sort().join() === [...c.gave].sort().join();
  const one = (x) => formatNumber(x, {});
  return h('section', { class: 'cb-coach', 'data-testid': 'cb-coach', 'aria-label': t('game.cribbage.coach') },
    h('h2', null, t('game.cribbage.coach')),
    h('p', null, t('game.cribbage.coachYours'), ' ', c.gave.map((x) => chip(x, 'small', { key: x })), ' ',
      h('b', null, t('game.cribbage.coachWorth', { n: one(c.expected) }))),
    same ? h('p', { class: 'cb-coach-best' }, t('game.cribbage.coachBestSame'))
      : h('p', { class: 'cb-coach-best' }, t('game.cribbage.coachBest'), ' ', c.best.gave.map((x) => chip(x, 'small', { key: x })), ' ',
        h('b', null, t('game.cribbage.coachWorth', { n: one(c.best.expected) }))),
    h('p', { class: 'hint' }, t('game.cribbage.coachHow')),
    h('button', { type: 'button', class: 'btn small', 'data-testid': 'cb-coach-toggle', onclick: act.toggleCoach }, t('game.cribbage.coachHide')));
}

