// The other players' seats, in clockwise order after yours: each with its name
// (the host's crown, R17.4), running total, tags (the dealer, R2.6; crisp and
// the final turns to come, R11.1; away and computer players, R17.2), its last
// move (R16.4: all of it is public) and three face-down cards, the Queen's
// targets (R8). A card is never face up here (R16.3). The marks a move left on a
// card (events.js changedSlots) and the seat's tags and total are drawn the same
// way on your own cards (hand.js).

import { h } from '../../../dom.js';
import { t } from '../../../i18n.js';
import { SLOTS, Status } from '../protocol.js';
import { seatKey, slotKey, movesText } from '../events.js';
import {
  pending, flash, nameOf, num, presenceTags, cardContent, cardClass, playerName, namedAsBot, hostMark,
} from '../../../render/parts.js';
import { seatTags, markBadge } from '../parts.js';

/** The tags of a seat at the table: the dealer while the cards are dealt and
 * looked at (the player after them starts, R2.6), and the player who called crisp. */
export function tableTags(v, id) {
  const c = v.crisp;
  return {
    dealer: v.dealer === id && v.status === Status.PEEK,
    crisp: !!c && c.caller === id,
    final: !!c && !!c.caller && (c.final_turns_left || []).includes(id),
  };
}

/** The mark on a card position that the last move of a player changed (events.js changedSlots). */
export function markProps(marks, player, slot) {
  const kind = marks[slotKey(player, slot)];
  return kind ? { 'data-mark': kind } : {};
}

/** What a card's spoken label adds for its mark (markProps): " — swapped", or nothing. */
export function markSaid(mark) {
  return mark['data-mark'] ? ` — ${t(`mark.${mark['data-mark']}`)}` : '';
}

/** Another player: name (with the host's crown), total, tags, the last move and
 * three face-down cards (Queen targets). The name has its line to itself (with
 * the total), so that every seat can be told apart; the tags and the last move
 * share the second line. */
export function seat(ctx, p, marks, crowded) {
  const { S, act } = ctx;
  const v = S.view;
  const turn = v.turn && v.turn.player === p.id;
  const choosing = !!S.queen && !pending(ctx);
  const presence = presenceTags(p);
  const name = playerName(p);
  const tags = seatTags({
    botChip: presence.bot && !namedAsBot(p) ? presence.bot : null,
    away: presence.away,
    ...tableTags(v, p.id), ready: v.status === Status.PEEK && p.ready,
    ...(turn ? { final: false } : {}), // its final turn is now: the turn line says so
  });
  return h('div', {
    key: p.id, class: `seat ${turn ? 'seat-turn' : ''} ${presence.offline || presence.away ? 'seat-off' : ''} ${flash(ctx, seatKey(p.id))}`,
    'data-testid': `seat-${p.id}`, 'data-connected': p.connected ? 'true' : 'false',
    'data-bot': p.is_bot ? 'true' : 'false', 'data-away': p.away ? 'true' : 'false',
    'data-host': v.host === p.id ? 'true' : 'false',
  },
  h('div', { class: 'seat-head' },
    h('div', { class: 'seat-line' },
      turn ? h('span', { class: 'turn-mark', title: t('seat.turn') },
        h('span', { 'aria-hidden': 'true' }, '▶'), h('span', { class: 'sr-only' }, t('seat.turn'))) : null,
      v.host === p.id ? hostMark() : null,
      // the name's own direction (dir=auto): a long one is cut at its end, its start shows
      h('span', { class: 'seat-name', dir: 'auto', 'data-testid': `seat-${p.id}-name`, title: name }, name),
      seatTotal(p.total)),
    h('div', { class: 'seat-info' },
      tags.length ? h('span', { class: 'tags' }, tags) : null,
      moveLine(ctx, p, crowded))),
  h('div', { class: 'cards small', dir: 'ltr' }, SLOTS.map((slot) => {
    const picked = S.queen && S.queen.target && S.queen.target.player === p.id && S.queen.target.slot === slot;
    const mark = markProps(marks, p.id, slot);
    const label = t('seat.cardLabel', { name, slot: t(`slot.${slot}`) }) + markSaid(mark);
    return h('button', {
      key: slot, type: 'button',
      class: cardClass(null, `${picked ? 'picked' : ''} ${choosing ? 'choosable' : ''} ${flash(ctx, slotKey(p.id, slot))}`),
      'data-testid': `seat-${p.id}-slot-${slot}`, ...mark,
      'aria-label': label,
      'aria-pressed': S.queen ? (picked ? 'true' : 'false') : null,
      disabled: !choosing,
      onclick: () => act.tapSeatSlot(p.id, slot),
    }, cardContent(null), markBadge(mark['data-mark']));
  })));
}

/** A seat's last move, until that player's next turn (R16.4: all of it is
 * public); on a crowded table the newest one only (the seat's "crisp" tag says a
 * call). A human offline and not yet away is told apart: the computer will play
 * for them if they stay away (R17.2). */
function moveLine(ctx, p, crowded) {
  const { S } = ctx;
  const v = S.view;
  const name = (pid) => (pid === v.you ? t('you') : nameOf(v, pid));
  const presence = presenceTags(p);
  const moves = movesText(S.moves[p.id], { you: v.you, name, newest: crowded, skipCrisp: crowded });
  if (presence.offline) {
    // offline, not yet away: said in words on the seat's line, with what comes next
    const soon = t('seat.offlineSoon');
    const line = moves && !crowded ? `${soon} · ${moves}` : soon;
    return h('p', {
      class: 'move move-warn', 'data-testid': `seat-${p.id}-move`, title: t('seat.offlineLabel'),
    }, h('span', { 'data-testid': 'offline-badge' }, `⚠ ${line}`));
  }
  return h('p', { class: 'move', 'data-testid': `seat-${p.id}-move`, title: moves || null }, moves || ' ');
}

/** A running total beside a name: the number as it shows, and as a screen reader
 * says it ("Total: 12"), in real text (an aria-label on a span may not be read). */
export function seatTotal(total) {
  return h('span', { class: 'seat-total' },
    h('span', { class: 'sr-only' }, t('seat.totalLabel', { total })),
    num(total, { 'aria-hidden': 'true' }));
}
