// Events (protocol.md, "Events") as short log lines and screen highlights.
// A log line never names a card only its drawer or peeker saw (R16.3): the
// stock card someone drew and the cards someone peeked stay out of the log.
// The log keeps each event's public part (`publicEvent`) and describes it when
// it is shown, so its lines follow a change of language.

import { t } from './i18n.js';
import { short } from './cards.js';

/** The fields a log line may use; anything else (hands, private cards) is dropped. */
const PUBLIC_FIELDS = [
  'kind', 'player', 'options', 'round', 'dealer', 'slot', 'final', 'source', 'discarded',
  'timeout', 'target', 'target_slot', 'extra_draws', 'count', 'level',
  'from', 'to', // played_for_you: this seat's total before and after (the client's own event)
];

/** The part of `ev` a log line or a banner may keep: a card only where it is
 * public (a discard, a draw from the discard pile; R16.3, R16.4). */
export function publicEvent(ev) {
  const out = {};
  for (const field of PUBLIC_FIELDS) if (field in ev) out[field] = ev[field];
  const publicCard = ev.kind === 'discarded' || (ev.kind === 'drew' && ev.source === 'discard');
  if (publicCard && 'card' in ev) out.card = ev.card;
  return out;
}

/** Highlight key for a card position. */
export const slotKey = (player, slot) => `slot:${player}:${slot}`;

function optionsText(o) {
  const parts = [];
  if (o.limit != null) parts.push(t('opt.limitValue', { count: o.limit }));
  if ('draw_seconds' in o) {
    parts.push(o.draw_seconds == null ? t('opt.noLimit') : t('opt.secondsValue', { count: o.draw_seconds }));
  }
  if ('discard_draw' in o) parts.push(o.discard_draw ? t('opt.discardOn') : t('opt.discardOff'));
  return parts.join(' · ');
}

/**
 * @param {object} ev the event
 * @param {{you: string, name: (id: string) => string}} ctx
 * @returns {{text: string|null, flash: string[]}}
 */
export function describe(ev, ctx) {
  const me = ev.player === ctx.you;
  const name = ev.player ? ctx.name(ev.player) : '';
  const slot = (s) => t(`slot.${s}`);
  const who = (key, params = {}) => t(me ? `ev.${key}.you` : `ev.${key}`, { name, ...params });
  switch (ev.kind) {
    case 'joined':
    case 'left':
    case 'connected':
    case 'disconnected':
      return { text: me ? null : t(`ev.${ev.kind}`, { name }), flash: [`seat:${ev.player}`] };
    case 'away':
    case 'back':
      return { text: me ? null : t(`ev.${ev.kind}`, { name }), flash: [`seat:${ev.player}`] };
    case 'host_changed':
      return { text: who('host_changed'), flash: [`seat:${ev.player}`] };
    case 'bot_added':
      return { text: t('ev.bot_added', { name, level: t(`level.${ev.level}`) }), flash: [`seat:${ev.player}`] };
    case 'took_over':
      return { text: t('ev.took_over', { name }), flash: [`seat:${ev.player}`] };
    case 'options':
      return { text: t('ev.options', { options: optionsText(ev.options || {}) }), flash: ['options'] };
    case 'round_started':
      return {
        text: t(ev.dealer === ctx.you ? 'ev.round_started.you' : 'ev.round_started', { round: ev.round, dealer: ctx.name(ev.dealer) }),
        flash: [],
      };
    case 'peek':
      return { text: t('ev.peek', { slot: slot(ev.slot) }), flash: [slotKey(ev.player, ev.slot)] };
    case 'turn_started':
      return { text: who(ev.final ? 'turn_final' : 'turn'), flash: [`seat:${ev.player}`] };
    case 'drew':
      if (ev.source === 'discard') {
        return { text: who('drew_discard', { card: short(ev.card) }), flash: ['discard', 'holding'] };
      }
      return { text: who('drew_stock'), flash: ['stock', 'holding'] };
    case 'swapped':
      return {
        text: who('swapped', { slot: slot(ev.slot), card: short(ev.discarded) }),
        flash: [slotKey(ev.player, ev.slot), 'discard'],
      };
    case 'discarded':
      return {
        text: ev.timeout ? who('discarded_timeout', { card: short(ev.card) })
          : who('discarded', { card: short(ev.card) }),
        flash: ['discard'],
      };
    case 'jack':
      return { text: who('jack'), flash: [slotKey(ev.player, 'middle'), 'discard'] };
    case 'queen': {
      const params = { slot: slot(ev.slot), target: ctx.name(ev.target), target_slot: slot(ev.target_slot) };
      let key = 'queen';
      if (me) key = 'queen.you';
      else if (ev.target === ctx.you) key = 'queen.onyou';
      return {
        text: t(`ev.${key}`, { name, ...params }),
        flash: [slotKey(ev.player, ev.slot), slotKey(ev.target, ev.target_slot), 'discard'],
      };
    }
    case 'king':
      return { text: who('king', { count: ev.extra_draws }), flash: ['discard'] };
    case 'stock_rebuilt':
      return { text: t('ev.stock_rebuilt', { count: ev.count }), flash: ['stock', 'discard'] };
    case 'crisp':
      return { text: who('crisp'), flash: [`seat:${ev.player}`, 'crisp'] };
    case 'timeout':
      return { text: who('timeout'), flash: [`seat:${ev.player}`] };
    case 'round_over':
      return { text: t('ev.round_over'), flash: [] };
    case 'game_over':
      return { text: t('ev.game_over'), flash: [] };
    case 'rematch': // the host sent everyone back to the lobby (R16.5)
      return { text: who('rematch'), flash: [] };
    case 'played_for_you': // the client's own event: this seat was played while away (R17.2)
      return { text: t('ev.played_for_you'), flash: [] };
    default:
      return { text: null, flash: [] };
  }
}

/** One move as a seat shows it (its line under the name): short, public only.
 * `next`: the move after it in the same turn, which may make this one go without saying. */
function movePhrase(ev, ctx, next) {
  const slot = (s) => t(`slot.${s}`);
  switch (ev.kind) {
    case 'drew':
      if (ev.source === 'discard') return t('move.took', { card: short(ev.card) });
      return next ? null : t('move.drew');
    case 'swapped':
      return t('move.swapped', { slot: slot(ev.slot), card: short(ev.discarded) });
    case 'discarded':
      return t(ev.timeout ? 'move.timeoutDiscard' : 'move.discarded', { card: short(ev.card) });
    case 'jack':
      return t('move.jack');
    case 'queen':
      if (ev.target === ctx.you) return t('move.queenYou', { slot: slot(ev.slot), target_slot: slot(ev.target_slot) });
      return t('move.queen', { slot: slot(ev.slot), target: ctx.name(ev.target), target_slot: slot(ev.target_slot) });
    case 'king':
      return t('move.king', { count: ev.extra_draws });
    case 'timeout':
      return next && next.kind === 'discarded' ? null : t('move.timeout');
    case 'crisp':
      return t('move.crisp');
    default:
      return null;
  }
}

/** What a player did in their current or last turn (state `moves`), for their
 * seat: the last two moves that say something, newest first, so that a line
 * cut short still shows the latest ("Queen: left ⇄ Ben's right · King: 2 extra draws").
 * `newest`: the newest one only; `skipCrisp`: leave a crisp call out (the seat's
 * tag says it). */
export function movesText(evs, ctx) {
  const parts = [];
  (evs || []).forEach((ev, i) => {
    if (ctx.skipCrisp && ev.kind === 'crisp') return;
    const text = movePhrase(ev, ctx, evs[i + 1]);
    if (text) parts.push(text);
  });
  return parts.slice(ctx.newest ? -1 : -2).reverse().join(' · ');
}

/** The card positions a player's moves changed, until that player's next turn:
 * `slotKey` -> 'swap' (a card swapped in) or 'queen' (a Queen exchanged it). */
export function changedSlots(moves) {
  const out = {};
  for (const [player, evs] of Object.entries(moves || {})) {
    for (const ev of evs) {
      if (ev.kind === 'swapped') out[slotKey(player, ev.slot)] = 'swap';
      if (ev.kind === 'queen') {
        out[slotKey(player, ev.slot)] = 'queen';
        out[slotKey(ev.target, ev.target_slot)] = 'queen';
      }
    }
  }
  return out;
}
