// Card strings (protocol.md): rank "A23456789TJQK" then suit "SHDC".

import { t } from './i18n.js';

const SUITS = { S: '♠', H: '♥', D: '♦', C: '♣' };

export function rank(card) {
  return card[0] === 'T' ? '10' : card[0];
}
export function suitGlyph(card) {
  return SUITS[card[1]] || '?';
}
export function isRed(card) {
  return card[1] === 'H' || card[1] === 'D';
}
/** Short form for text: "10♦", "Q♠". */
export function short(card) {
  return card ? `${rank(card)}${suitGlyph(card)}` : '';
}
/** Full name for screen readers: "Ace of spades". */
export function cardName(card) {
  return t('card.name', { rank: t(`rank.${card[0]}`), suit: t(`suit.${card[1]}`) });
}
