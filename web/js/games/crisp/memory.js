// "What you remembered" (R18.3): on a player's own round results, for each of their
// three cards, what they were last shown there and what it was at the reveal, and,
// when the two differ, who changed it and when ("Budi's Queen, turn 9"). From the
// round's replay (`state.review`, replay/playing.js); never for a watcher.

import { h } from '../../dom.js';
import { t } from '../../i18n.js';
import { short, cardName, isRed } from '../../cards.js';
import { EventKind } from './protocol.js';
import { moveAt, turnOf } from './steps.js';
import { nameOf } from '../../render/parts.js';

/** A card in a sentence: left to right whatever the page's direction ("9♥" has no
 * letter to set its own, and an Arabic sentence would show it "♥9"). */
const ltr = (card) => `\u2066${short(card)}\u2069`;

export function memoryPanel(ctx) {
  const { S } = ctx;
  const v = S.view;
  const review = S.review;
  if (S.watching || !v.you || !v.last_round || !review || review.round !== v.last_round.round) return null;
  let body;
  if (review.loading) body = h('p', { class: 'note' }, t('memory.loading'));
  else if (review.error || !review.data) body = h('p', { class: 'note' }, t('memory.none'));
  else {
    const entries = (review.data.memory || {})[v.you] || [];
    body = h('ul', { class: 'memory-list' }, entries.map((e) => memoryRow(v, review.data, e)));
  }
  return h('section', { class: 'panel memory', 'data-testid': 'memory', 'aria-labelledby': 'memory-title' },
    h('h3', { id: 'memory-title' }, t('memory.title')),
    body);
}

function cardEl(card) {
  return h('strong', { class: `memcard ${isRed(card) ? 'red' : ''}`, dir: 'ltr', title: cardName(card) }, short(card));
}

/** One position: the slot, the card seen (or none), the card there, who changed it. */
function memoryRow(v, data, e) {
  let line;
  let kind = 'same';
  if (e.seen == null) {
    kind = 'never';
    line = t('memory.never', { actual: ltr(e.actual) });
  } else if (e.seen === e.actual) {
    line = t('memory.same', { seen: ltr(e.seen) });
  } else {
    kind = 'changed';
    line = t('memory.changed', { seen: ltr(e.seen), actual: ltr(e.actual) });
    if (e.changed_by != null) line = `${line} — ${changedBy(v, data, e.changed_by)}`;
  }
  return h('li', {
    key: e.slot, class: `memory-row memory-${kind}`, 'data-testid': `memory-${e.slot}`,
    'data-seen': e.seen || '', 'data-actual': e.actual || '', 'data-changed': e.changed_by ?? '',
  },
  h('span', { class: 'memory-slot' }, t(`slot.${e.slot}Cap`)),
  h('span', { class: 'memory-cards', dir: 'ltr', 'aria-hidden': 'true' },
    e.seen ? cardEl(e.seen) : h('span', { class: 'memcard' }, '?'), ' → ', cardEl(e.actual)),
  h('span', { class: 'memory-text' }, line));
}

/** Who changed a card, and in which turn of the round: "Budi's Queen, turn 9". */
export function changedBy(v, data, i) {
  const move = moveAt(data, i);
  const turn = turnOf(data, i);
  if (!move) return t('memory.byTurn', { turn });
  if (move.kind === EventKind.QUEEN) {
    return move.player === v.you ? t('memory.byYourQueen', { turn })
      : t('memory.byQueen', { name: nameOf(v, move.player), turn });
  }
  return move.player === v.you ? t('memory.byYou', { turn })
    : t('memory.byName', { name: nameOf(v, move.player), turn });
}
