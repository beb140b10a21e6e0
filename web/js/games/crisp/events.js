// Crisp's events (protocol.md, "Events") as short log lines, screen highlights
// and the marks on the cards a move changed; the table's events are the shell's
// (../../events.js).
// A log line never names a card only its drawer or peeker saw (R16.3): the
// stock card someone drew and the cards someone peeked stay out of the log.
// The log keeps each event's public part (`publicEvent`) and describes it when
// it is shown, so its lines follow a change of language.

import { t } from '../../i18n.js';
import { short } from '../../cards.js';
import { seatKey, publicEvent as tablePublicEvent } from '../../events.js';
import { ActionType, EventKind, Slot, Source } from './protocol.js';

/** The fields of a Crisp event a log line may use besides the table's; anything
 * else (hands, private cards) is dropped. */
export const PUBLIC_FIELDS = [
  'round', 'dealer', 'slot', 'final', 'source', 'discarded', 'timeout', 'target', 'target_slot',
  'extra_draws', 'count',
];

/** A card is public only in a discard and a draw from the discard pile (R16.3, R16.4). */
export const publicCard = (ev) => ev.kind === EventKind.DISCARDED || (ev.kind === EventKind.DREW && ev.source === Source.DISCARD);

/** The part of a Crisp event a log line, a seat's last move or a banner may keep. */
export const publicEvent = (ev) => tablePublicEvent(ev, { publicFields: PUBLIC_FIELDS, publicCard });

/** What an event lights up for a moment (state `flashes`, parts.js `flash`): the
 * piles, the drawn card, the crisp line, the lobby's options; and a seat or a card
 * position (`seatKey`, `slotKey`). */
export const Highlight = Object.freeze({
  STOCK: 'pile:stock',
  DISCARD: 'pile:discard',
  HOLDING: 'holding',
  CRISP: 'crisp-info',
});

export { seatKey };

/** Highlight key for a card position. */
export const slotKey = (player, slot) => `slot:${player}:${slot}`;

/** What changed a card position, as its mark says (`data-mark`, `mark.<kind>` in
 * i18n): a card swapped in, a Queen's exchange, and in a replay a look. */
export const Mark = Object.freeze({
  SWAP: ActionType.SWAP,
  QUEEN: ActionType.QUEEN,
  LOOK: 'look',
});

/** The options as the log says them (R13-R15). */
export function optionsText(o) {
  const parts = [];
  if (o.limit != null) parts.push(t('opt.limitValue', { count: o.limit }));
  if ('draw_seconds' in o) {
    parts.push(o.draw_seconds == null ? t('opt.noLimit') : t('opt.secondsValue', { count: o.draw_seconds }));
  }
  if ('discard_draw' in o) parts.push(o.discard_draw ? t('opt.discardOn') : t('opt.discardOff'));
  return parts.join(' · ');
}

/**
 * A Crisp event's log line and highlights (the table's events: ../../events.js).
 * @param {object} ev the event
 * @param {{you: string, name: (id: string) => string}} ctx
 * @returns {{text: string|null, flash: string[]}|null}
 */
export function describe(ev, ctx) {
  const me = ev.player === ctx.you;
  const name = ev.player ? ctx.name(ev.player) : '';
  const slot = (s) => t(`slot.${s}`);
  const who = (key, params = {}) => t(me ? `ev.${key}.you` : `ev.${key}`, { name, ...params });
  switch (ev.kind) {
    case EventKind.ROUND_STARTED:
      return {
        text: t(ev.dealer === ctx.you ? 'ev.round_started.you' : 'ev.round_started', { round: ev.round, dealer: ctx.name(ev.dealer) }),
        flash: [],
      };
    case EventKind.PEEK:
      return { text: t('ev.peek', { slot: slot(ev.slot) }), flash: [slotKey(ev.player, ev.slot)] };
    case EventKind.TURN_STARTED:
      return { text: who(ev.final ? 'turn_final' : 'turn'), flash: [seatKey(ev.player)] };
    case EventKind.DREW:
      if (ev.source === Source.DISCARD) {
        return { text: who('drew_discard', { card: short(ev.card) }), flash: [Highlight.DISCARD, Highlight.HOLDING] };
      }
      return { text: who('drew_stock'), flash: [Highlight.STOCK, Highlight.HOLDING] };
    case EventKind.SWAPPED:
      return {
        text: who(ev.kind, { slot: slot(ev.slot), card: short(ev.discarded) }),
        flash: [slotKey(ev.player, ev.slot), Highlight.DISCARD],
      };
    case EventKind.DISCARDED:
      return {
        text: who(ev.timeout ? 'discarded_timeout' : ev.kind, { card: short(ev.card) }),
        flash: [Highlight.DISCARD],
      };
    case EventKind.JACK:
      return { text: who(ev.kind), flash: [slotKey(ev.player, Slot.MIDDLE), Highlight.DISCARD] };
    case EventKind.QUEEN: {
      const params = { slot: slot(ev.slot), target: ctx.name(ev.target), target_slot: slot(ev.target_slot) };
      let key = `ev.${ev.kind}`;
      if (me) key += '.you';
      else if (ev.target === ctx.you) key += '.onyou';
      return {
        text: t(key, { name, ...params }),
        flash: [slotKey(ev.player, ev.slot), slotKey(ev.target, ev.target_slot), Highlight.DISCARD],
      };
    }
    case EventKind.KING:
      return { text: who(ev.kind, { count: ev.extra_draws }), flash: [Highlight.DISCARD] };
    case EventKind.STOCK_REBUILT:
      return { text: t('ev.stock_rebuilt', { count: ev.count }), flash: [Highlight.STOCK, Highlight.DISCARD] };
    case EventKind.CRISP:
      return { text: who(ev.kind), flash: [seatKey(ev.player), Highlight.CRISP] };
    case EventKind.TIMEOUT:
      return { text: who(ev.kind), flash: [seatKey(ev.player)] };
    case EventKind.ROUND_OVER:
      return { text: t('ev.round_over'), flash: [] };
    case EventKind.GAME_OVER:
      return { text: t('ev.game_over'), flash: [] };
    default:
      return null;
  }
}

/** One move as a seat shows it (its line under the name): short, public only.
 * `next`: the move after it in the same turn, which may make this one go without saying. */
function movePhrase(ev, ctx, next) {
  const slot = (s) => t(`slot.${s}`);
  switch (ev.kind) {
    case EventKind.DREW:
      if (ev.source === Source.DISCARD) return t('move.took', { card: short(ev.card) });
      return next ? null : t('move.drew');
    case EventKind.SWAPPED:
      return t('move.swapped', { slot: slot(ev.slot), card: short(ev.discarded) });
    case EventKind.DISCARDED:
      return t(ev.timeout ? 'move.timeoutDiscard' : 'move.discarded', { card: short(ev.card) });
    case EventKind.JACK:
      return t('move.jack');
    case EventKind.QUEEN:
      if (ev.target === ctx.you) return t('move.queenYou', { slot: slot(ev.slot), target_slot: slot(ev.target_slot) });
      return t('move.queen', { slot: slot(ev.slot), target: ctx.name(ev.target), target_slot: slot(ev.target_slot) });
    case EventKind.KING:
      return t('move.king', { count: ev.extra_draws });
    case EventKind.TIMEOUT:
      return next && next.kind === EventKind.DISCARDED ? null : t('move.timeout');
    case EventKind.CRISP:
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
    if (ctx.skipCrisp && ev.kind === EventKind.CRISP) return;
    const text = movePhrase(ev, ctx, evs[i + 1]);
    if (text) parts.push(text);
  });
  return parts.slice(ctx.newest ? -1 : -2).reverse().join(' · ');
}

/** The card positions a player's moves changed, until that player's next turn:
 * `slotKey` -> `Mark.SWAP` (a card swapped in) or `Mark.QUEEN` (a Queen exchanged it). */
export function changedSlots(moves) {
  const out = {};
  for (const [player, evs] of Object.entries(moves || {})) {
    for (const ev of evs) {
      if (ev.kind === EventKind.SWAPPED) out[slotKey(player, ev.slot)] = Mark.SWAP;
      if (ev.kind === EventKind.QUEEN) {
        out[slotKey(player, ev.slot)] = Mark.QUEEN;
        out[slotKey(ev.target, ev.target_slot)] = Mark.QUEEN;
      }
    }
  }
  return out;
}
