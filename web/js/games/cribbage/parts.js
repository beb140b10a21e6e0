// What the table's parts share: a card as a small face, names, sides.

import { h } from '../../dom.js';
import { t } from '../../i18n.js';
import { playerName } from '../../render/parts.js';
import { cardName, rank, suitGlyph, isRed } from '../../cards.js';
import { CRIB } from './protocol.js';

/** A card as a small face: rank and suit, red or black. */
export function chip(card, extra = '', props = {}) {
  if (!card) return h('span', { class: `cb-chip down ${extra}`, 'aria-hidden': 'true', ...props });
  return h('span', {
    class: `cb-chip ${isRed(card) ? 'red' : 'black'} ${extra}`, role: 'img', 'aria-label': cardName(card), dir: 'ltr', ...props,
  }, h('span', { class: 'r' }, rank(card)), h('span', { class: 's' }, suitGlyph(card)));
}

export const whoName = (v, id) => {
  if (id === CRIB) return t('game.cribbage.crib');
  const p = v.players.find((q) => q.id === id);
  return p ? playerName(p) : '?';
};

/** Partners with 4 players: the other seat of the same team. */
export const partnerOf = (v, p) => (p.team == null ? null : v.players.find((q) => q.team === p.team && q.id !== p.id) || null);

export const sideOf = (v, p) => (p.team != null ? p.team : p.seat);
