// The table, top to bottom: whose turn it is (and, on a line of its own, a
// final turn, the extra draws and the final turns left after a call), the move
// log's button and the draw timer's ring (sticky), the other players in
// clockwise order (each with name, host mark, tags, last move and the cards it
// changed), the notice line (what to do, or what just happened: a reserved place
// that never covers the table), the piles, the drawn card and the Kings played
// (R9.3), your cards, the action dock (sticky: Discard, Jack, Queen, King, crisp;
// Ready in the peek phase; the Queen's confirmation), the running totals. From 4
// players on (`crowded`) the piles and your cards share one row, so that 8 seats
// fit a 360x640 screen. Only what the view shows is drawn: a card is face up only
// when this player may know it (R16.3).

import { h } from '../dom.js';
import { t, text, formatNumber, formatSeconds } from '../i18n.js';
import { short, cardName, isRed } from '../cards.js';
import { ActionType, ClientEvent, EventKind, SLOTS, Source, Status } from '../protocol.js';
import { canDraw, canDrawDiscard, canCrisp, crispEnd, playerById } from '../state.js';
import { Highlight, seatKey, slotKey, movesText, changedSlots } from '../events.js';
import { currentNotice } from '../update.js';
import {
  pending, flash, nameOf, nameEl, num, seatOrder, seatTags, presenceTags, isReady, cardContent, cardClass, offlineStrip,
  eventText, faceLabel, countBadge, noticeText, logList, playerName, namedAsBot, hostMark, markBadge, kingStack, KINGS_SHOWN,
} from './parts.js';
import { watchBar, watchersChip } from './watch.js';

/** The events the notice line may fall back on (the last move, never "X's turn":
 * the turn line says whose turn it is). */
const SAID_KINDS = new Set([
  EventKind.DREW, EventKind.SWAPPED, EventKind.DISCARDED, EventKind.JACK, EventKind.QUEEN, EventKind.KING,
  EventKind.CRISP, EventKind.TIMEOUT, EventKind.STOCK_REBUILT, EventKind.ROUND_STARTED, EventKind.AWAY,
  EventKind.BACK, EventKind.TOOK_OVER, EventKind.HOST_CHANGED, ClientEvent.PLAYED_FOR_YOU,
]);

/** From this many players on, the seats are compact and the piles share a row
 * with your cards: the whole table fits a 360x640 screen. */
const CROWDED = 4;

export function table(ctx) {
  const { S } = ctx;
  const v = S.view;
  const peekPhase = v.status === Status.PEEK;
  const crowded = v.players.length >= CROWDED;
  const marks = changedSlots(S.moves);
  const confirming = !!S.queen && !!S.queen.mine && !!S.queen.target;
  let dock = actionBar(ctx);
  if (v.watching) dock = watchBar(ctx); // R18.1: nobody's seat, nothing to tap
  else if (peekPhase) dock = readyBar(ctx);
  else if (confirming) dock = queenConfirm(ctx);
  return h('div', { class: `table ${crowded ? 'crowded' : ''}`, 'data-seats': v.players.length },
    h('div', { class: 'sticky-top' }, offlineStrip(S), statusBar(ctx)),
    h('section', { class: 'opponents', 'aria-label': t('table.opponents') },
      seatOrder(v, v.you).map((p) => seat(ctx, p, marks, crowded))),
    noticeLine(ctx),
    h('div', { class: 'midrow' }, center(ctx), v.watching ? null : mine(ctx, marks)),
    h('div', { class: 'dock' }, dock),
    scoreStrip(ctx),
    logSheet(ctx));
}

function statusBar(ctx) {
  const { S, now } = ctx;
  const v = S.view;
  const turn = v.turn;
  let text;
  let mine = false;
  const sub = [];
  if (v.status === Status.PEEK) text = t('turn.peek');
  else if (turn) {
    mine = turn.player === v.you;
    text = mine ? t('turn.you') : t('turn.someone', { name: nameOf(v, turn.player) });
    if (turn.extra_draws > 0) sub.push(h('span', { key: 'extra', 'data-testid': 'turn-extra' }, t('turn.extra', { count: turn.extra_draws })));
    // after a call every turn is a final one: the final turns left say it
    const called = !!(v.crisp && v.crisp.caller);
    if (turn.final && !called) sub.push(h('span', { key: 'final', 'data-testid': 'turn-final' }, t('turn.final')));
  } else text = '';
  const finals = crispInfo(ctx);
  if (finals) sub.push(finals);
  return h('section', { class: 'statusbar' },
    h('div', {
      class: `turn ${mine ? 'turn-mine' : ''} ${sub.length ? 'turn-two' : ''}`, 'data-testid': 'turn-indicator',
      'data-player': turn ? turn.player : '',
    },
    h('p', { class: 'turn-main', 'aria-live': 'polite' },
      h('span', { class: 'turn-icon', 'aria-hidden': 'true' }, mine ? '★' : '▶'), text),
    // a final turn, the extra draws, the final turns left: a line of their own, never cut off
    sub.length ? h('p', { class: 'turn-sub' }, sub.map((x, i) => [i ? ' · ' : '', x])) : null),
    h('button', {
      type: 'button', class: 'icon-btn log-button', 'data-testid': 'log-button', 'aria-label': t('log.title'),
      'aria-expanded': S.logOpen ? 'true' : 'false', 'aria-controls': 'movelog', onclick: ctx.act.toggleLog,
    }, h('span', { 'aria-hidden': 'true' }, '☰')),
    watchersChip(v), // R18.1: how many watch
    drawTimer(S, now));
}

function clockText(ms) {
  const secs = Math.ceil(Math.max(0, ms) / 1000);
  return { secs, text: `${Math.floor(secs / 60)}:${String(secs % 60).padStart(2, '0')}` };
}

/** The draw timer (R14): a ring that empties and the time left, the draw time the
 * options promise (the 2 s before the next player may start are not counted, R10.4). */
function drawTimer(S, now) {
  const v = S.view;
  const turn = v.turn;
  let text = '–';
  let label = t('timer.label');
  let low = false;
  let left = 1;
  if (turn && turn.draw_deadline) {
    const ms = turn.draw_deadline - Math.max(now, turn.may_start_at || 0);
    const c = clockText(ms);
    text = c.text;
    label = t('timer.left', { count: c.secs });
    low = c.secs <= 10;
    left = S.drawClock ? Math.min(1, Math.max(0, ms / S.drawClock.total)) : 1;
  } else if (turn) {
    text = '∞';
    label = t('timer.none');
  } else if (v.status === Status.PEEK && v.peek_ends_at) {
    // protocol addition: when the peek phase ends (R16.2)
    const c = clockText(v.peek_ends_at - now);
    text = c.text;
    label = t('timer.peek', { count: c.secs });
  }
  return h('div', {
    class: `timer ${low ? 'low' : ''}`, 'data-testid': 'draw-timer', role: 'timer', 'aria-label': label, title: label,
    style: `--left:${left.toFixed(3)}`,
  }, h('span', { class: 'timer-text' }, text));
}

/** After a call (R11.1): how many final turns are left, in the turn line's second
 * line (who called is on the caller's seat, "crisp", and was said when it
 * happened; whose final turns are to come is on their seats). */
function crispInfo(ctx) {
  const v = ctx.S.view;
  const c = v.crisp;
  if (!c || !c.caller) return null;
  const finals = c.final_turns_left || [];
  const caller = c.caller === v.you ? t('crisp.calledYou') : t('crisp.called', { name: nameOf(v, c.caller) });
  return h('span', {
    key: 'crisp-info', class: `crispinfo ${flash(ctx, Highlight.CRISP)}`, 'data-testid': 'crisp-info', title: caller,
    'data-caller': c.caller, 'data-left': finals.length,
  }, h('span', { class: 'sr-only' }, `${caller}: `), t('crisp.finals', { count: finals.length }));
}

/** The tags of a seat at the table: the dealer while the cards are dealt and
 * looked at (the player after them starts, R2.6), and the player who called crisp. */
function tableTags(v, id) {
  const c = v.crisp;
  return {
    dealer: v.dealer === id && v.status === Status.PEEK,
    crisp: !!c && c.caller === id,
    final: !!c && !!c.caller && (c.final_turns_left || []).includes(id),
  };
}

/** The mark on a card position that the last move of a player changed (events.js changedSlots). */
function markProps(marks, player, slot) {
  const kind = marks[slotKey(player, slot)];
  return kind ? { 'data-mark': kind } : {};
}

/** Another player: name (with the host's crown), total, tags, the last move and
 * three face-down cards (Queen targets). The name has its line to itself (with
 * the total), so that every seat can be told apart; the tags and the last move
 * share the second line. */
function seat(ctx, p, marks, crowded) {
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
    let label = t('seat.cardLabel', { name, slot: t(`slot.${slot}`) });
    if (mark['data-mark']) label += ` — ${t(`mark.${mark['data-mark']}`)}`;
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
function seatTotal(total) {
  return h('span', { class: 'seat-total' },
    h('span', { class: 'sr-only' }, t('seat.totalLabel', { total })),
    num(total, { 'aria-hidden': 'true' }));
}

function center(ctx) {
  const { S, now, act } = ctx;
  const v = S.view;
  const busy = pending(ctx) || !!S.queen;
  const drawOk = !busy && canDraw(v, now);
  const discardOk = !busy && canDrawDiscard(v, now);
  const turn = v.turn;
  let holding;
  if (v.holding) {
    holding = h('div', {
      class: cardClass(v.holding, `big holding ${flash(ctx, Highlight.HOLDING)}`), 'data-testid': 'holding',
      'data-card': v.holding, role: 'img',
      'aria-label': t('holding.yours', { card: cardName(v.holding) }),
    }, cardContent(v.holding));
  } else if (turn && turn.drawn_from && turn.player !== v.you) {
    // A card taken from the discard pile is public (R16.4); one from the stock is not.
    const seen = turn.drawn_from === Source.DISCARD && S.publicHolding && S.publicHolding.player === turn.player
      ? S.publicHolding.card : null;
    holding = h('div', {
      class: cardClass(seen, `big holding ${flash(ctx, Highlight.HOLDING)}`), 'data-testid': 'holding', role: 'img',
      'data-card': seen || '',
      'aria-label': t('holding.someone', { name: nameOf(v, turn.player) }) + (seen ? `: ${cardName(seen)}` : ''),
    }, cardContent(seen));
  } else {
    holding = h('div', { class: 'card big empty holding', 'data-testid': 'holding', role: 'img', 'aria-label': t('holding.none') });
  }
  let holdCaption = t('holding.title');
  if (v.holding) holdCaption = t('holding.yourCaption');
  else if (turn && turn.drawn_from && turn.player !== v.you) holdCaption = t('holding.otherCaption', { name: nameOf(v, turn.player) });
  return h('section', { class: 'piles', 'aria-label': t('table.center') },
    h('div', { class: 'pile' },
      h('button', {
        type: 'button', class: cardClass(null, `big stock ${drawOk ? 'can' : ''} ${flash(ctx, Highlight.STOCK)}`),
        'data-testid': 'stock', 'data-source': Source.STOCK, 'data-count': v.stock_count, disabled: !drawOk, onclick: act.drawStock,
        'aria-label': t('stock.label', { count: v.stock_count }) + (drawOk ? ` — ${t('stock.tap')}` : ''),
      }, cardContent(null), countBadge(v.stock_count)),
      h('span', { class: 'caption' }, t('stock.title'))),
    h('div', { class: 'pile' },
      h('button', {
        type: 'button',
        class: v.discard_top ? cardClass(v.discard_top, `big discard ${discardOk ? 'can' : ''} ${flash(ctx, Highlight.DISCARD)}`)
          : `card big empty discard ${flash(ctx, Highlight.DISCARD)}`,
        'data-testid': 'discard-pile', 'data-source': Source.DISCARD, 'data-card': v.discard_top || '', 'data-count': v.discard_count,
        disabled: !discardOk, onclick: act.drawDiscard,
        'aria-label': v.discard_top
          ? faceLabel(v.discard_top, `${t('discard.label', { card: cardName(v.discard_top) })} — ${
            t('discard.count', { count: v.discard_count })}${discardOk ? ` — ${t('discard.tap')}` : ''}`)
          : t('discard.empty'),
      }, v.discard_top ? cardContent(v.discard_top) : null,
      v.discard_count ? countBadge(v.discard_count) : null),
      h('span', { class: 'caption' }, t('discard.title'))),
    kingsBeside(ctx),
    h('div', { class: 'pile' }, holding, h('span', { class: 'caption' }, holdCaption)));
}

/** R9.3: the Kings played this turn lie face up beside the piles while their extra draws are made. */
function kingsBeside(ctx) {
  const v = ctx.S.view;
  const kings = (v.turn && v.turn.kings) || [];
  if (!kings.length) return null;
  const extra = v.turn.extra_draws || 0;
  // on a crowded table they lie tucked under the drawn card, their corners showing (app.css)
  return h('div', {
    class: 'pile kings', 'data-testid': 'kings', 'data-count': kings.length, role: 'img',
    style: `--kings:${Math.min(kings.length, KINGS_SHOWN)}`,
    'aria-label': `${t('kings.label', { count: kings.length })} — ${t('turn.extra', { count: extra })}`,
  },
  kingStack(kings),
  h('span', { class: 'caption', 'aria-hidden': 'true' }, t('kings.caption', { count: extra })));
}

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
function noticeLine(ctx) {
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

function mine(ctx, marks) {
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
    if (mark['data-mark']) label += ` — ${t(`mark.${mark['data-mark']}`)}`;
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

function readyBar(ctx) {
  const { S, act } = ctx;
  const v = S.view;
  const done = isReady(S, v);
  return h('section', { class: 'actions ready' },
    h('button', {
      type: 'button', class: 'btn primary wide big', 'data-testid': 'ready-button',
      disabled: done || pending(ctx), onclick: act.ready,
    }, done ? t('peek.waiting') : t('peek.ready')));
}

function actionBar(ctx) {
  const { S, act } = ctx;
  const v = S.view;
  const busy = pending(ctx) || !!S.queen;
  const ok = (type) => !busy && v.legal.includes(type);
  const btn = (type, icon, onclick) => h('button', {
    type: 'button', class: `btn action ${ok(type) ? 'can' : ''} ${S.queen && type === ActionType.QUEEN ? 'picked' : ''}`,
    'data-testid': `action-${type}`, disabled: !ok(type), onclick,
    'aria-label': t(`action.${type}Label`),
  }, h('span', { class: 'action-icon', 'aria-hidden': 'true', 'data-icon': icon }), h('span', { class: 'action-text' }, t(`action.${type}`)));
  return h('section', { class: 'actions', 'aria-label': t('table.actions') },
    btn(ActionType.DISCARD, '⤓', act.discard),
    btn(ActionType.JACK, 'J', act.jack),
    btn(ActionType.QUEEN, 'Q', act.queen),
    btn(ActionType.KING, 'K', act.king),
    crispButton(ctx));
}

/** R8: your card and theirs are chosen; nothing is sent before Confirm. */
function queenConfirm(ctx) {
  const { S, act } = ctx;
  const v = S.view;
  const q = S.queen;
  const target = nameOf(v, q.target.player);
  return h('section', { class: 'actions confirm-queen', 'aria-label': t('action.queen'), 'data-testid': 'queen-confirm-bar' },
    h('p', { class: 'confirm-text' }, t('queen.confirmText', {
      slot: t(`slot.${q.mine}`), target, target_slot: t(`slot.${q.target.slot}`),
    })),
    h('button', { type: 'button', class: 'btn', 'data-testid': 'queen-cancel', onclick: act.cancelQueen }, t('action.cancel')),
    h('button', {
      type: 'button', class: 'btn primary', 'data-testid': 'queen-confirm', disabled: pending(ctx), onclick: act.confirmQueen,
    }, t('queen.confirm')));
}

function crispButton(ctx) {
  const { S, now, act } = ctx;
  const v = S.view;
  const ok = canCrisp(v, now) && !pending(ctx);
  const w = v.crisp && v.crisp.window;
  let bar = null;
  let left = null;
  if (ok && w && w.player === v.you) {
    const total = S.crispWindow && S.crispWindow.closes_at === w.closes_at ? S.crispWindow.total : 3000;
    left = Math.max(0, crispEnd(v, w) - now); // R18.4: ends early by the delay
    bar = h('span', { class: 'crispbar', 'aria-hidden': 'true', style: `transform:scaleX(${total ? Math.min(1, left / total) : 0})` });
  }
  return h('button', {
    type: 'button', class: `btn crisp ${ok ? 'can' : ''} ${bar ? 'has-bar' : ''}`, 'data-testid': 'crisp-button',
    disabled: !ok, onclick: act.crisp,
    'aria-label': left != null ? t('crisp.labelOpen', { count: Math.ceil(left / 1000) }) : t('crisp.label'),
  }, bar, h('span', { class: 'crisp-text' }, t('crisp.button')),
  left != null ? h('span', { class: 'crisp-secs', 'aria-hidden': 'true', 'data-secs': formatSeconds(left / 1000) }) : null);
}

/** The round's moves, newest first, one tap away (the ☰ button in the status bar). */
function logSheet(ctx) {
  const { S, act } = ctx;
  return h('section', {
    id: 'movelog', class: 'logsheet', hidden: !S.logOpen, 'aria-label': t('log.title'), 'data-testid': 'log-sheet',
  },
  h('div', { class: 'logsheet-head' },
    h('h2', null, t('log.title')),
    h('button', { type: 'button', class: 'btn small', 'data-testid': 'log-close', onclick: act.toggleLog }, t('settings.close'))),
  logList(S));
}

function scoreStrip(ctx) {
  const v = ctx.S.view;
  return h('section', { class: 'scorestrip', 'data-testid': 'scoreboard', 'aria-label': t('score.title') },
    h('span', { class: 'limit' }, t('score.limit', { n: v.options.limit })),
    seatOrder(v).map((p) => h('span', { key: p.id, class: `score ${p.id === v.you ? 'you' : ''}`, 'data-player': p.id },
      h('span', { class: 'sname' }, nameEl(playerName(p))), ' ', h('b', { dir: 'ltr' }, formatNumber(p.total)))));
}
