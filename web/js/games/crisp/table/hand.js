// Your cards: three positions (left, middle, right), face down but while a peek
// shows one face up (R16.3: for a few seconds, in memory only), tapped to swap
// the drawn card in (R5.1) or to pick yours for a Queen (R8); with your name, the
// host's crown (R17.4), your tags and running total, and on a crowded table
// those flags on the box's edge instead.

import { h } from '../../../dom.js';
import { t } from '../../../i18n.js';
import { cardName } from '../../../cards.js';
import { ActionType, SLOTS } from '../protocol.js';
import { playerById } from '../../../state.js';
import { slotKey } from '../events.js';
import {
  pending, flash, nameEl, cardContent, cardClass, faceLabel, hostMark,
} from '../../../render/parts.js';
import { seatTags, markBadge } from '../parts.js';
import { tableTags, markProps, markSaid, seatTotal } from './seats.js';

export function mine(ctx, marks) {
  const { S, act, local } = ctx;
  const v = S.view;
  const me = playerById(v, v.you) || { name: '', total: 0 };
  const busy = pending(ctx);
  const swapOk = !busy && !S.queen && v.legal.includes(ActionType.SWAP);
  const choosing = !busy && !!S.queen;
  const myTurn = v.turn && v.turn.player === v.you;
  const host = v.host === v.you;
  return h('section', {
    class: `me ${myTurn ? 'seat-turn' : ''}`, 'aria-label': t('table.yourCards'), 'data-testid': 'me',
    'data-host': host ? 'true' : 'false',
  },
  h('div', { class: 'me-head' },
    host ? hostMark() : null,
    h('span', { class: 'seat-name' }, nameEl(me.name), ` (${t('lobby.you')})`),
    seatTags(tableTags(v, v.you)),
    seatTotal(me.total)),
  // on a crowded table the head is not drawn: the host's crown (and your call) sit on the box's edge
  meFlags(v, host),
  h('div', { class: 'cards mine', dir: 'ltr' }, SLOTS.map((slot) => {
    const peek = S.peeks[slot] && S.peeks[slot].until > local ? S.peeks[slot] : null;
    const picked = S.queen && S.queen.mine === slot;
    const mark = markProps(marks, v.you, slot);
    let label = t('my.cardLabel', { slot: t(`slot.${slot}`) });
    if (peek) label = faceLabel(peek.card, `${label} — ${cardName(peek.card)}`);
    label += markSaid(mark);
    if (swapOk) label += ` — ${t('my.tapSwap')}`;
    else if (choosing) label += ` — ${t('my.tapQueen')}`;
    return h('div', { key: slot, class: 'slotwrap' },
      h('button', {
        type: 'button',
        class: cardClass(peek ? peek.card : null,
          `big ${peek ? 'peeking' : ''} ${swapOk || choosing ? 'can' : ''} ${picked ? 'picked' : ''} ${flash(ctx, slotKey(v.you, slot))}`),
        'data-testid': `my-slot-${slot}`, 'data-card': peek ? peek.card : '', ...mark,
        'aria-label': label, 'aria-pressed': S.queen ? (picked ? 'true' : 'false') : null,
        disabled: !(swapOk || choosing), onclick: () => act.tapMySlot(slot),
      }, cardContent(peek ? peek.card : null),
      peek ? h('span', { class: 'peekbar', style: `animation-duration:${Math.max(0, peek.until - peek.from)}ms` }) : null,
      markBadge(mark['data-mark'])),
      h('span', { class: 'caption' }, t(`slot.${slot}Cap`)));
  })));
}

/** What the head of your cards' box says, on a crowded table where the head is not
 * drawn: the host's crown (R17.4) and your crisp call, on the box's top edge. */
function meFlags(v, host) {
  const called = !!v.crisp && v.crisp.caller === v.you;
  if (!host && !called) return null;
  return h('span', { class: 'me-flag' },
    host ? h('span', { class: 'flag flag-host', 'data-testid': 'host-mark', title: t('seat.hostLabel') },
      h('span', { 'aria-hidden': 'true' }, '♛ '), t('lobby.host')) : null,
    called ? h('span', { class: 'flag tag-crisp' }, t('seat.crisp')) : null);
}
