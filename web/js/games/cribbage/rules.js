// What a Cribbage view allows (pure, tested): which of your cards a tap may
// give or lay, and why a card is not enabled.

import { CribStatus as Status, CribAction as ActionType } from './protocol.js';

/** The number of cards each player gives to the crib: 2 with 2 players, else 1. */
export const giveCount = (v) => (v.players.length === 2 ? 2 : 1);

/** The value of a card in the count (A 1, 2-9, T J Q K 10). */
export function cardValue(card) {
  const r = card[0];
  if (r === 'A') return 1;
  if ('TJQK'.includes(r)) return 10;
  return Number(r);
}

/** Whether it is your turn to lay. */
export const myTurn = (v) => !!v && v.status === Status.PLAY && !!v.turn && v.turn.player === v.you;

/** Whether you still have to give. */
export const mustGive = (v) => !!v && v.status === Status.GIVE && !!v.hand && (v.gave || []).length === 0
  && v.legal.includes(ActionType.GIVE);

/** For each of your cards: {card, enabled, reason} (reason an i18n key under
 * game.cribbage.why, or null). Giving: every card while you have to give (at
 * most the give count chosen); laying: `playable` on your turn. */
export function cardStates(v, picked = []) {
  if (!v || !v.hand) return [];
  const n = giveCount(v);
  return v.hand.map((card) => {
    if (v.status === Status.GIVE) {
      if (!mustGive(v)) return { card, enabled: false, reason: 'given' };
      if (picked.length >= n && !picked.includes(card)) return { card, enabled: false, reason: 'enough' };
      return { card, enabled: true, reason: null };
    }
    if (v.status === Status.PLAY) {
      if (!myTurn(v)) return { card, enabled: false, reason: 'notYourTurn' };
      if ((v.playable || []).includes(card)) return { card, enabled: true, reason: null };
      return { card, enabled: false, reason: 'over31' };
    }
    return { card, enabled: false, reason: null };
  });
}
