// Cribbage's events as log lines (the shell's log and notices; events.js).

import { t } from '../../i18n.js';
import { short } from '../../cards.js';
import { CribEvent as EventKind, CRIB } from './protocol.js';
import { sayCount } from './words.js';

export const PUBLIC_FIELDS = ['cuts', 'card', 'count', 'items', 'dealer', 'hand_no', 'points', 'whose', 'scores', 'winners', 'game_points'];

export function describe(ev, ctx) {
  const name = ev.player ? ctx.name(ev.player) : '';
  const pts = (items) => (items || []).reduce((a, i) => a + i.points, 0);
  switch (ev.kind) {
    case EventKind.CUT:
      return {
        text: t('game.cribbage.ev.cut', {
          names: Object.entries(ev.cuts || {}).map(([id, card]) => `${ctx.name(id)} ${short(card)}`).join(t('game.cribbage.say.comma')),
          name: ctx.name(ev.dealer),
        }),
        flash: [],
      };
    case EventKind.HAND_STARTED:
      return { text: t('game.cribbage.ev.hand', { n: ev.hand_no, name: ctx.name(ev.dealer) }), flash: [] };
    case EventKind.GAVE:
      return { text: t('game.cribbage.ev.gave', { name, count: ev.count }), flash: [] };
    case EventKind.STARTER:
      return { text: t('game.cribbage.ev.starter', { card: short(ev.card) }) + (pts(ev.items) ? ` ${t('game.cribbage.ev.heels')}` : ''), flash: [] };
    case EventKind.LAID: {
      const base = t('game.cribbage.ev.laid', { name, card: short(ev.card), count: ev.count });
      return { text: pts(ev.items) ? `${base} — ${sayCount(ev.items, t)}` : base, flash: [] };
    }
    case EventKind.GO:
      return { text: t('game.cribbage.ev.go', { name }), flash: [] };
    case EventKind.SERIES_OVER:
      return { text: pts(ev.items) ? t('game.cribbage.ev.lastCard', { name }) : t('game.cribbage.ev.reset'), flash: [] };
    case EventKind.SHOWN:
      return {
        text: `${ev.whose === CRIB ? t('game.cribbage.crib') : ctx.name(ev.whose)}: ${sayCount(ev.items, t)}`,
        flash: [],
      };
    case EventKind.CLAIMED:
      return { text: t('game.cribbage.ev.claimed', { name, count: ev.points }), flash: [] };
    case EventKind.MUGGINS:
      return { text: t('game.cribbage.ev.muggins', { name, count: ev.points }), flash: [] };
    case EventKind.HAND_OVER:
      return { text: t('game.cribbage.ev.handOver'), flash: [] };
    case EventKind.GAME_OVER:
      return { text: t('game.cribbage.ev.gameOver'), flash: [] };
    default:
      return null;
  }
}
