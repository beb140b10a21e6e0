// The notice line between the seats and the piles, a reserved place that never
// covers the table: an error, a notice that matters (update.js), what a peek
// showed in words (R16.3: only in memory, for a few seconds), a passing notice,
// what you can do now (what a special card does when you hold it: R6-R9, R13.3)
// or the last move; and the Hide (a peek) and Cancel (the Queen's choice, R8)
// buttons.

import { h } from '../../../dom.js';
import { t, text } from '../../../i18n.js';
import { short, cardName, isRed } from '../../../cards.js';
import { ActionType, ClientEvent, EventKind, SLOTS, Source, Status } from '../protocol.js';
import { canDraw, canDrawDiscard, canCrisp } from '../rules.js';
import { currentNotice } from '../../../update.js';
import { eventText, noticeText } from '../../../render/parts.js';
import { isReady } from '../parts.js';

/** The events the notice line may fall back on (the last move, never "X's turn":
 * the turn line says whose turn it is). */
const SAID_KINDS = new Set([
  EventKind.DREW, EventKind.SWAPPED, EventKind.DISCARDED, EventKind.JACK, EventKind.QUEEN, EventKind.KING,
  EventKind.CRISP, EventKind.TIMEOUT, EventKind.STOCK_REBUILT, EventKind.ROUND_STARTED, EventKind.AWAY,
  EventKind.BACK, EventKind.TOOK_OVER, EventKind.HOST_CHANGED, ClientEvent.PLAYED_FOR_YOU,
]);

function hintText(ctx) {
  const { S, now } = ctx;
  const v = S.view;
  const turn = v.turn;
  const legal = v.legal;
  if (S.conn !== 'open' || v.watching) return null; // nothing to do (now, or ever: a watcher)
  if (v.status === Status.PEEK) return isReady(S, v) ? t('hint.waitReady') : t('hint.peek');
  if (S.queen) {
    if (S.queen.mine && S.queen.target) return t('hint.queenConfirm');
    if (S.queen.target) return t('hint.queenMineAfter');
    return S.queen.mine ? t('hint.queenTarget') : t('hint.queenMine');
  }
  if (canCrisp(v, now)) return t('hint.crisp');
  if (v.holding) {
    // What a special card does, said when you hold it (R6, R7, R8, R9, R13.3).
    if (legal.includes(ActionType.KING)) return t('hint.king');
    if (legal.includes(ActionType.JACK)) return t('hint.jack');
    if (legal.includes(ActionType.QUEEN)) return t('hint.queen');
    if ('JQK'.includes(v.holding[0]) && v.turn && v.turn.drawn_from === Source.DISCARD) return t('hint.faceFromPile');
    if (legal.includes(ActionType.DISCARD)) return t('hint.swapOrDiscard');
    if (legal.includes(ActionType.SWAP)) return t('hint.swapOnly');
  }
  if (turn && turn.player === v.you) {
    if (canDraw(v, now)) return canDrawDiscard(v, now) ? t('hint.drawEither') : t('hint.draw');
    return t('hint.getReady');
  }
  return null;
}

/** The notice line: a place of its own between the seats and the piles, so
 * that nothing ever covers the table. In this order: an error (a toast, the
 * answer to a tap), a notice that matters (update.js: each waits its turn and
 * stays 4 s on screen), a peek in words (the card shows face up on its slot
 * meanwhile), a passing notice (a crisp call, another's timeout), what you can
 * do now, the last move. While a peek lasts its Hide button stays. */
export function noticeLine(ctx) {
  const { S, act, local } = ctx;
  const peeks = SLOTS.filter((s) => S.peeks[s] && S.peeks[s].until > local);
  const toast = S.toasts.filter((x) => x.until > local).pop();
  const notice = currentNotice(S, local);
  const hide = peeks.length
    ? h('button', { type: 'button', class: 'btn small', 'data-testid': 'peek-hide', onclick: act.hidePeeks }, t('peek.hide'))
    : null;
  let line;
  let wrap = { class: 'hintline', 'data-testid': 'notice' };
  if (toast) line = h('p', { class: 'hint hint-toast', role: 'alert', 'data-testid': 'toast' }, text(toast.msg));
  else if (notice && notice.matters) line = noticeEl(S, notice);
  else if (peeks.length) {
    // What a peek showed, in words too (the card faces show it on the slots).
    wrap = { class: 'hintline peekline', role: 'status', 'aria-live': 'assertive', 'data-testid': 'peek' };
    line = h('p', { class: 'hint hint-peek' }, peeks.map((slot, i) => [
      i ? ' · ' : '',
      t('peek.line', { slot: t(`slot.${slot}`) }), ' ',
      h('strong', {
        class: isRed(S.peeks[slot].card) ? 'red' : '', dir: 'ltr', title: cardName(S.peeks[slot].card),
        'data-card': S.peeks[slot].card,
      },
      short(S.peeks[slot].card)),
    ]));
  } else if (notice) line = noticeEl(S, notice);
  else {
    const hint = hintText(ctx);
    const said = [...S.log].reverse().find((l) => SAID_KINDS.has(l.ev.kind));
    const last = said ? eventText(S, said.ev) : '';
    line = h('p', { class: `hint ${hint ? 'hint-action' : ''}`, 'data-testid': 'hint', 'aria-live': 'polite' }, hint || last || ' ');
  }
  return h('div', wrap, line, hide,
    S.queen ? h('button', { type: 'button', class: 'btn small', 'data-testid': 'action-cancel', onclick: act.cancelQueen }, t('action.cancel')) : null);
}

/** A notice in the notice line (its id tells update.js it was seen). */
function noticeEl(S, notice) {
  return h('p', {
    class: `hint hint-notice notice-${notice.ev.kind} ${notice.matters ? 'notice-matters' : ''}`, role: 'status',
    'data-testid': 'banner', 'data-notice': notice.id, 'data-kind': notice.ev.kind,
  }, noticeText(S, notice));
}
