// A round's replay (R18.2): every move in order with every card face up, step by
// step, playing by itself at a readable pace (replay/playing.js) or moved by hand. The
// table as the live one draws it: each seat with its three cards (the move's
// seat and the positions it touched marked as on the live table: a look, a swap,
// a Queen's exchange), the stock (its top card face up), the pile, the card drawn
// and the Kings beside the piles; the move in words; the controls.

import { h } from '../../dom.js';
import { t, text } from '../../i18n.js';
import { short, cardName } from '../../cards.js';
import { describe } from './events.js';
import { EventKind, SLOTS, Source } from './protocol.js';
import { markKey } from './steps.js';
import { cardClass, cardContent, countBadge, nameOf, seatOrder } from '../../render/parts.js';
import { kingStack, markBadge } from './parts.js';

/** A card in a sentence: left to right whatever the page's direction ("9♥" has no
 * letter to set its own, and an Arabic sentence would show it "♥9"). */
const card = (c) => `\u2066${short(c)}\u2069`;

export function replayScreen(ctx) {
  const { S, act } = ctx;
  const r = S.replay;
  const head = h('div', { class: 'replay-head' },
    h('h2', { id: 'replay-title' }, t('replay.title', { round: r.round })),
    h('button', { type: 'button', class: 'btn small', 'data-testid': 'replay-close', onclick: act.closeReplay },
      t('replay.close')));
  if (!r.steps) {
    const note = r.error ? text(r.error) : t('replay.loading');
    return h('section', { class: 'replay', 'aria-labelledby': 'replay-title', 'data-testid': 'replay' }, head,
      h('p', { class: `note ${r.error ? 'warn' : ''}`, role: 'status' }, note));
  }
  const v = S.view;
  const s = r.steps[r.step];
  const mover = s.move && s.move.player;
  const ids = order(v, Object.keys(s.hands));
  return h('section', {
    class: 'replay table', 'aria-labelledby': 'replay-title', 'data-testid': 'replay',
    'data-step': r.step, 'data-steps': r.steps.length, 'data-playing': r.playing ? 'true' : 'false',
  },
  head,
  h('p', { class: 'replay-caption', role: 'status', 'aria-live': 'polite', 'data-testid': 'replay-caption',
    'data-kind': s.move ? s.move.kind : 'deal' }, caption(v, r, s)),
  h('div', { class: 'opponents replay-seats' }, ids.map((id) => seat(v, s, id, id === mover))),
  piles(s),
  controls(ctx, r));
}

/** The players in seat order (the view's), any the view lacks after them. */
function order(v, ids) {
  const seated = seatOrder(v).map((p) => p.id).filter((id) => ids.includes(id));
  return [...seated, ...ids.filter((id) => !seated.includes(id))];
}

function seat(v, s, id, moving) {
  const name = nameOf(v, id);
  return h('div', {
    key: id, class: `seat ${moving ? 'seat-turn' : ''}`, 'data-testid': `replay-seat-${id}`,
    'data-moving': moving ? 'true' : 'false',
  },
  h('div', { class: 'seat-head' },
    h('div', { class: 'seat-line' },
      moving ? h('span', { class: 'turn-mark', 'aria-hidden': 'true' }, '▶') : null,
      h('span', { class: 'seat-name', dir: 'auto', title: name }, name))),
  h('div', { class: 'cards small', dir: 'ltr' }, SLOTS.map((slot, k) => {
    const c = (s.hands[id] || [])[k];
    const mark = s.marks[markKey(id, slot)];
    return h('span', {
      key: slot, class: cardClass(c, mark ? 'marked' : ''), role: 'img',
      'data-testid': `replay-${id}-${slot}`, 'data-card': c || '', 'data-mark': mark || null,
      'aria-label': `${t(`slot.${slot}`)}: ${c ? cardName(c) : '?'}`,
    }, cardContent(c), markBadge(mark));
  })));
}

function piles(s) {
  const top = s.stock[0] || null;
  const pile = s.pile.length ? s.pile[s.pile.length - 1] : null;
  const held = s.held ? s.held.card : null;
  const face = (c, { class: extra, label, testid, count = null }) => h('div', { class: 'pile' },
    h('span', {
      class: c ? cardClass(c, `big ${extra}`) : `card big empty ${extra}`, role: 'img',
      'data-testid': testid, 'data-card': c || '', 'aria-label': c ? `${label}: ${cardName(c)}` : label,
    }, c ? cardContent(c) : null, count ? countBadge(count) : null),
    h('span', { class: 'caption' }, label));
  return h('section', { class: 'piles', 'aria-label': t('table.center') },
    face(top, { class: 'stock', label: t('stock.title'), testid: 'replay-stock', count: s.stock.length }),
    face(pile, { class: 'discard', label: t('discard.title'), testid: 'replay-discard', count: s.pile.length }),
    s.kings.length ? h('div', { class: 'pile kings', 'data-testid': 'replay-kings' }, kingStack(s.kings)) : null,
    face(held, { class: 'holding', label: t('holding.title'), testid: 'replay-held' }));
}

/** The move in words, every card named (all of them are face up in a replay). */
function caption(v, r, s) {
  const m = s.move;
  if (!m) return t('replay.deal', { dealer: nameOf(v, r.data.dealer) });
  const name = nameOf(v, m.player);
  const slot = (x) => t(`slot.${x}`);
  switch (m.kind) {
    case EventKind.PEEK: return t('replay.peek', { name, slot: slot(m.slot), card: card(m.card) });
    case EventKind.READY: return t('replay.ready', { name });
    case EventKind.TURN_STARTED: return t(m.final ? 'replay.turnFinal' : 'replay.turn', { name });
    case EventKind.DREW:
      return t(m.source === Source.DISCARD ? 'replay.drewDiscard' : 'replay.drewStock', { name, card: card(m.card) });
    case EventKind.SWAPPED: {
      const into = s.hands[m.player][SLOTS.indexOf(m.slot)];
      return t('replay.swapped', { name, card: card(into), slot: slot(m.slot), old: card(m.discarded) });
    }
    case EventKind.DISCARDED:
      return t(m.timeout ? 'replay.discardedTimeout' : 'replay.discarded', { name, card: card(m.card) });
    case EventKind.JACK: return t('replay.jack', { name });
    case EventKind.QUEEN:
      return t('replay.queen', {
        name, card: card(m.own_card), slot: slot(m.slot), target: nameOf(v, m.target),
        target_card: card(m.target_card), target_slot: slot(m.target_slot),
      });
    default: // a King, a call, a timeout, the stock rebuilt, the reveal: as the log says them
      return describe(m, { you: null, name: (id) => nameOf(v, id) }).text || '';
  }
}

function controls(ctx, r) {
  const { act } = ctx;
  const last = r.steps.length - 1;
  const btn = (testid, label, icon, onclick, disabled = false) => h('button', {
    type: 'button', class: 'btn small replay-btn', 'data-testid': testid, 'aria-label': label, title: label,
    disabled, onclick,
  }, h('span', { 'aria-hidden': 'true' }, icon));
  return h('div', { class: 'replay-controls' },
    h('div', { class: 'replay-buttons', dir: 'ltr' },
      btn('replay-first', t('replay.first'), '⇤', () => act.replayTo(0), r.step === 0),
      btn('replay-back', t('replay.back'), '←', () => act.replayTo(r.step - 1), r.step === 0),
      btn('replay-play', r.playing ? t('replay.pause') : t('replay.play'), r.playing ? '▮▮' : '▶', act.replayPlay),
      btn('replay-next', t('replay.next'), '→', () => act.replayTo(r.step + 1), r.step === last),
      btn('replay-last', t('replay.last'), '⇥', () => act.replayTo(last), r.step === last)),
    h('p', { class: 'replay-count', 'data-testid': 'replay-count' }, t('replay.step', { step: r.step, steps: last })));
}
