// The show's words (pure, tested): each scoring item said as players count
// aloud, with the running total ("fifteen two, fifteen four, and a pair is
// six"), and the pegging's items. `t` is passed in so that node tests can give
// their own.

import { CribItem as ItemKind } from './protocol.js';

/** The key and params of one item said with the running total `total`. */
export function itemSaying(item, total) {
  const n = item.cards ? item.cards.length : 0;
  switch (item.kind) {
    case ItemKind.FIFTEEN: return ['game.cribbage.say.fifteen', { total }];
    case ItemKind.PAIR: return ['game.cribbage.say.pair', { total }];
    case ItemKind.PAIR_ROYAL: return ['game.cribbage.say.pairRoyal', { total }];
    case ItemKind.DOUBLE_PAIR_ROYAL: return ['game.cribbage.say.doublePairRoyal', { total }];
    case ItemKind.RUN: return ['game.cribbage.say.run', { total, n }];
    case ItemKind.FLUSH: return ['game.cribbage.say.flush', { total, n }];
    case ItemKind.NOBS: return ['game.cribbage.say.nobs', { total }];
    case ItemKind.HEELS: return ['game.cribbage.say.heels', { total }];
    case ItemKind.THIRTY_ONE: return ['game.cribbage.say.thirtyOne', { total }];
    case ItemKind.GO: return ['game.cribbage.say.go', { total }];
    default: return ['game.cribbage.say.plain', { total }];
  }
}

/** The phrases of a show entry's items, the running total in each: an array
 * of strings; the last one joined with "and". */
export function phrases(items, t) {
  let total = 0;
  return (items || []).map((item) => {
    total += item.points;
    const [key, params] = itemSaying(item, total);
    return t(key, params);
  });
}

/** The whole count of a hand in words: "fifteen 2, fifteen 4, and a pair is 6";
 * "nineteen" (no points) when nothing counts. `upTo` says only the first items. */
export function sayCount(items, t, upTo = Infinity) {
  const all = phrases(items, t);
  if (!all.length) return t('game.cribbage.say.nothing');
  const said = all.slice(0, upTo);
  if (said.length < 2) return said[0];
  const done = said.length === all.length;
  const head = said.slice(0, -1).join(t('game.cribbage.say.comma'));
  const last = said[said.length - 1];
  return `${head}${t('game.cribbage.say.comma')}${done ? t('game.cribbage.say.andWord') : ''}${last}`;
}
