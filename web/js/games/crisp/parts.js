// Pieces several of Crisp's screens use (the table, the results, the replay):
// the marks on the card positions a move changed, the Kings beside the piles,
// the tags that are Crisp's (a crisp call, a final turn to come), and whether
// this seat said it is ready. The table's own pieces are ../../render/parts.js.

import { h } from '../../dom.js';
import { t } from '../../i18n.js';
import { playerById } from '../../state.js';
import { cardClass, cardContent, seatTags as tableSeatTags } from '../../render/parts.js';
import { Mark } from './events.js';

/** The tags of Crisp beside a name, after the dealer's. */
const TAGS = {
  crisp: () => h('span', { class: 'tag tag-crisp' }, t('seat.crisp')),
  final: () => h('span', { class: 'tag tag-final', 'data-testid': 'tag-final', title: t('seat.finalLabel') }, t('seat.finalToCome')),
};

/** The tags beside a player's name (../../render/parts.js `seatTags`) with Crisp's:
 * `crisp` (this seat called), `final` (its final turn is to come). */
export function seatTags(on) {
  const own = Object.keys(TAGS).filter((kind) => on[kind]).map((kind) => TAGS[kind]());
  return tableSeatTags({ ...on, game: own.length ? own : null });
}

/** This player has confirmed (players[].ready is a protocol addition; the local flag covers the wait for the answer). */
export function isReady(S, v) {
  const me = playerById(v, v.you);
  return S.readyRound === v.round || !!(me && me.ready);
}

const MARK_ICONS = { [Mark.QUEEN]: '⇄', [Mark.LOOK]: '◉', [Mark.SWAP]: '↻' };

/** The mark on a card position a move changed (events.js `Mark`), the table's and
 * the replay's; null for none. */
export function markBadge(kind) {
  return kind ? h('span', { class: 'mark', 'aria-hidden': 'true', 'data-icon': MARK_ICONS[kind] || MARK_ICONS[Mark.SWAP] }) : null;
}

/** How many of the Kings played this turn show beside the piles (R9.3): the last ones. */
export const KINGS_SHOWN = 2;

/** The Kings played this turn, face up, the last `KINGS_SHOWN` of them (on a crowded
 * table tucked under the drawn card, their corners showing: app.css). */
export function kingStack(kings) {
  return h('span', { class: 'kingstack', 'aria-hidden': 'true' }, kings.slice(-KINGS_SHOWN).map((k, i) => h('span', {
    key: i, class: cardClass(k, 'king-card'), 'data-card': k,
  }, cardContent(k))));
}

