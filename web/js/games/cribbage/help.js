// Cribbage's "How to play": the rules in short (cribbage-rules.md C1-C10), in
// the page's language, with the seed's worked examples (the 20-point hand, the
// 29 hand, 4-5-6 in the play) and what the screen shows. The frame is the
// shell's (../../render/help.js).

import { h } from '../../dom.js';
import { t } from '../../i18n.js';
import { chip } from './parts.js';
import { sayCount } from './words.js';
import { CribItem } from './protocol.js';

const SECTIONS = [
  ['goal', 2], ['deal', 3], ['play', 4], ['show', 4], ['end', 3], ['screen', 3],
];

/** The worked examples: the hand, the starter and the items as the scorer gives them. */
export const EXAMPLES = [
  {
    id: 'twenty', cards: ['5H', '5C', 'JD', 'TS'], starter: '5S',
    items: [
      [CribItem.FIFTEEN, ['5H', 'JD']], [CribItem.FIFTEEN, ['5C', 'JD']], [CribItem.FIFTEEN, ['5S', 'JD']],
      [CribItem.FIFTEEN, ['5H', 'TS']], [CribItem.FIFTEEN, ['5C', 'TS']], [CribItem.FIFTEEN, ['5S', 'TS']],
      [CribItem.FIFTEEN, ['5H', '5C', '5S']], [CribItem.PAIR_ROYAL, ['5H', '5C', '5S']],
    ].map(([kind, cards]) => ({ kind, cards, points: kind === CribItem.PAIR_ROYAL ? 6 : 2 })),
  },
  {
    id: 'twentynine', cards: ['5H', '5C', '5S', 'JD'], starter: '5D',
    items: [
      ...[['5H', 'JD'], ['5C', 'JD'], ['5S', 'JD'], ['5D', 'JD'],
        ['5H', '5C', '5S'], ['5H', '5C', '5D'], ['5H', '5S', '5D'], ['5C', '5S', '5D']]
        .map((cards) => ({ kind: CribItem.FIFTEEN, cards, points: 2 })),
      { kind: CribItem.DOUBLE_PAIR_ROYAL, cards: ['5H', '5C', '5S', '5D'], points: 12 },
      { kind: CribItem.NOBS, cards: ['JD'], points: 1 },
    ],
  },
];

export function help() {
  return [
    ...SECTIONS.map(([id, n]) => h('section', { key: id, class: 'help-part' },
      h('h2', null, t(`game.cribbage.help.${id}.title`)),
      Array.from({ length: n }, (_, i) => h('p', { key: i }, t(`game.cribbage.help.${id}.${i + 1}`))))),
    h('section', { key: 'examples', class: 'help-part cb-examples' },
      h('h2', null, t('game.cribbage.help.examples.title')),
      EXAMPLES.map((ex) => h('div', { key: ex.id, class: 'cb-example', 'data-testid': `cb-example-${ex.id}` },
        h('p', null, h('b', null, t(`game.cribbage.help.examples.${ex.id}`))),
        h('div', { class: 'cb-entry-cards', dir: 'ltr' }, ex.cards.map((c) => chip(c, 'small', { key: c })),
          h('span', { class: 'cb-plus', 'aria-hidden': 'true' }, '+'), chip(ex.starter, 'small starter')),
        h('p', { class: 'cb-words' }, sayCount(ex.items, t)))),
      h('div', { class: 'cb-example', 'data-testid': 'cb-example-pegging' },
        h('p', null, h('b', null, t('game.cribbage.help.examples.pegging'))),
        h('div', { class: 'cb-entry-cards', dir: 'ltr' }, ['4C', '5D', '6H'].map((c) => chip(c, 'small', { key: c }))),
        h('p', null, t('game.cribbage.help.examples.peggingHow')))),
  ];
}
