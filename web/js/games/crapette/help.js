// Crapette's "How to play": our own words for crapette-rules.md (K1-K9) and
// what the screen shows, in the page's language (keys game.crapette.help.*).

import { h } from '../../dom.js';
import { t } from '../../i18n.js';

const SECTIONS = [
  ['goal', 2], // K1, K5
  ['deal', 2], // K2, K3
  ['turn', 3], // K4: the turned card, one move at a time, the waste and stock
  ['piles', 3], // K4: foundations, tableau, the crapette's duty, loading the other
  ['call', 3], // K6: "Crapette!" and its modes
  ['screen', 2], // tap-tap, drag, the timer, the call's outcome
];

export function help() {
  return SECTIONS.map(([id, n]) => h('section', { key: id, class: 'help-part' },
    h('h2', null, t(`game.crapette.help.${id}.title`)),
    Array.from({ length: n }, (_, i) => h('p', { key: i }, t(`game.crapette.help.${id}.${i + 1}`)))));
}
