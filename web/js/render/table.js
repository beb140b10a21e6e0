// The table, top to bottom: whose turn it is and the draw timer (sticky), the
// other players in clockwise order, the piles and the drawn card, the hint line,
// your cards, the action dock (sticky: Discard, Jack, Queen, King, crisp; Ready
// in the peek phase), the running totals and the log. Only what the view shows
// is drawn: a card is face up only when this player may know it (R16.3).

import { h } from '../dom.js';
import { t, formatNumber, formatSeconds } from '../i18n.js';
import { SLOTS, short, cardName, isRed } from '../cards.js';
import { Status } from '../protocol.js';
import { canDraw, canDrawDiscard, canCrisp, playerById } from '../state.js';
import { slotKey } from '../events.js';
import {
  pending, flash, nameOf, nameEl, num, seatOrder, seatTags, presenceTags, isReady, cardContent, cardClass, offlineStrip, logPanel,
  eventText, faceLabel, countBadge,
} from './parts.js';

export function table(ctx) {
  const { S } = ctx;
  const v = S.view;
  const peekPhase = v.status === Status.PEEK;
  return h('div', { class: 'table' },
    h('div', { class: 'sticky-top' }, offlineStrip(S), statusBar(ctx), crispInfo(ctx)),
    h('section', { class: 'opponents', 'aria-label': t('table.opponents') }, seatOrder(v, v.you).map((p) => seat(ctx, p))),
    center(ctx),
    hintLine(ctx),
    mine(ctx),
    h('div', { class: 'dock' },
      peekPhase ? readyBar(ctx) : actionBar(ctx),
      peekPhase ? null : crispButton(ctx)),
    scoreStrip(ctx),
    logPanel(ctx));
}

function statusBar(ctx) {
  const { S, now } = ctx;
  const v = S.view;
  const turn = v.turn;
  let text;
  let mine = false;
  if (v.status === Status.PEEK) text = t('turn.peek');
  else if (turn) {
    mine = turn.player === v.you;
    text = mine ? t('turn.you') : t('turn.someone', { name: nameOf(v, turn.player) });
    if (turn.final) text += ` · ${t('turn.final')}`;
    if (turn.extra_draws > 0) text += ` · ${t('turn.extra', { count: turn.extra_draws })}`;
  } else text = '';
  return h('section', { class: 'statusbar' },
    h('p', { class: `turn ${mine ? 'turn-mine' : ''}`, 'data-testid': 'turn-indicator', 'aria-live': 'polite',
      'data-player': turn ? turn.player : '' },
    h('span', { class: 'turn-icon', 'aria-hidden': 'true' }, mine ? '★' : '▶'), text),
    drawTimer(v, now));
}

function clockText(ms) {
  const secs = Math.ceil(Math.max(0, ms) / 1000);
  return { secs, text: `${Math.floor(secs / 60)}:${String(secs % 60).padStart(2, '0')}` };
}

function drawTimer(v, now) {
  const turn = v.turn;
  let text = '–';
  let label = t('timer.label');
  let low = false;
  if (turn && turn.draw_deadline) {
    const c = clockText(turn.draw_deadline - now);
    text = c.text;
    label = t('timer.left', { count: c.secs });
    low = c.secs <= 10;
  } else if (turn) {
    text = '∞';
    label = t('timer.none');
  } else if (v.status === Status.PEEK && v.peek_ends_at) {
    // protocol addition: when the peek phase ends (R16.2)
    const c = clockText(v.peek_ends_at - now);
    text = c.text;
    label = t('timer.peek', { count: c.secs });
  }
  return h('div', { class: `timer ${low ? 'low' : ''}`, 'data-testid': 'draw-timer', role: 'timer', 'aria-label': label, title: label },
    h('span', { class: 'timer-text' }, text));
}

function crispInfo(ctx) {
  const v = ctx.S.view;
  const c = v.crisp;
  if (!c || !c.caller) return null;
  const left = (c.final_turns_left || []).length;
  return h('p', { class: `crispinfo ${flash(ctx, 'crisp')}`, 'data-testid': 'crisp-info', role: 'status' },
    h('strong', null, c.caller === v.you ? t('crisp.calledYou') : t('crisp.called', { name: nameOf(v, c.caller) })),
    ' · ',
    t('crisp.finals', { count: left }));
}

/** The tags of a seat at the table: the dealer while the cards are dealt and
 * looked at (the player after them starts, R2.6), and the player who called crisp. */
function tableTags(v, id) {
  return { dealer: v.dealer === id && v.status === Status.PEEK, crisp: !!v.crisp && v.crisp.caller === id };
}

/** Another player: name, total, tags and three face-down cards (Queen targets). */
function seat(ctx, p) {
  const { S, act } = ctx;
  const v = S.view;
  const turn = v.turn && v.turn.player === p.id;
  const choosing = !!S.queen && !pending(ctx);
  const presence = presenceTags(p);
  const tags = seatTags({
    ...presence, ...tableTags(v, p.id), ready: v.status === Status.PEEK && p.ready,
  });
  return h('div', {
    key: p.id, class: `seat ${turn ? 'seat-turn' : ''} ${presence.offline ? 'seat-off' : ''} ${flash(ctx, `seat:${p.id}`)}`,
    'data-testid': `seat-${p.id}`, 'data-connected': p.connected ? 'true' : 'false',
    'data-bot': p.is_bot ? 'true' : 'false', 'data-away': p.away ? 'true' : 'false',
  },
  h('div', { class: 'seat-head' },
    h('div', { class: 'seat-line' },
      turn ? h('span', { class: 'turn-mark', title: t('seat.turn') },
        h('span', { 'aria-hidden': 'true' }, '▶'), h('span', { class: 'sr-only' }, t('seat.turn'))) : null,
      h('span', { class: 'seat-name' }, nameEl(p.name)),
      seatTotal(p.total)),
    tags.length ? h('div', { class: 'tags' }, tags) : null),
  h('div', { class: 'cards small', dir: 'ltr' }, SLOTS.map((slot) => {
    const picked = S.queen && S.queen.target && S.queen.target.player === p.id && S.queen.target.slot === slot;
    return h('button', {
      key: slot, type: 'button',
      class: cardClass(null, `${picked ? 'picked' : ''} ${choosing ? 'choosable' : ''} ${flash(ctx, slotKey(p.id, slot))}`),
      'data-testid': `seat-${p.id}-slot-${slot}`,
      'aria-label': t('seat.cardLabel', { name: p.name, slot: t(`slot.${slot}`) }),
      'aria-pressed': S.queen ? (picked ? 'true' : 'false') : null,
      disabled: !choosing,
      onclick: () => act.tapSeatSlot(p.id, slot),
    }, cardContent(null));
  })));
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
      class: cardClass(v.holding, `big holding ${flash(ctx, 'holding')}`), 'data-testid': 'holding',
      'data-card': v.holding, role: 'img',
      'aria-label': t('holding.yours', { card: cardName(v.holding) }),
    }, cardContent(v.holding));
  } else if (turn && turn.drawn_from && turn.player !== v.you) {
    // A card taken from the discard pile is public (R16.4); one from the stock is not.
    const seen = turn.drawn_from === 'discard' && S.publicHolding && S.publicHolding.player === turn.player
      ? S.publicHolding.card : null;
    holding = h('div', {
      class: cardClass(seen, `big holding ${flash(ctx, 'holding')}`), 'data-testid': 'holding', role: 'img',
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
        type: 'button', class: cardClass(null, `big stock ${drawOk ? 'can' : ''} ${flash(ctx, 'stock')}`),
        'data-testid': 'stock', 'data-count': v.stock_count, disabled: !drawOk, onclick: act.drawStock,
        'aria-label': t('stock.label', { count: v.stock_count }) + (drawOk ? ` — ${t('stock.tap')}` : ''),
      }, cardContent(null), countBadge(v.stock_count)),
      h('span', { class: 'caption' }, t('stock.title'))),
    h('div', { class: 'pile' },
      h('button', {
        type: 'button',
        class: v.discard_top ? cardClass(v.discard_top, `big discard ${discardOk ? 'can' : ''} ${flash(ctx, 'discard')}`)
          : `card big empty discard ${flash(ctx, 'discard')}`,
        'data-testid': 'discard-pile', 'data-card': v.discard_top || '', 'data-count': v.discard_count,
        disabled: !discardOk, onclick: act.drawDiscard,
        'aria-label': v.discard_top
          ? faceLabel(v.discard_top, `${t('discard.label', { card: cardName(v.discard_top) })} — ${
            t('discard.count', { count: v.discard_count })}${discardOk ? ` — ${t('discard.tap')}` : ''}`)
          : t('discard.empty'),
      }, v.discard_top ? cardContent(v.discard_top) : null,
      v.discard_count ? countBadge(v.discard_count) : null),
      h('span', { class: 'caption' }, t('discard.title'))),
    h('div', { class: 'pile' }, holding, h('span', { class: 'caption' }, holdCaption)));
}

function hintText(ctx) {
  const { S, now } = ctx;
  const v = S.view;
  const turn = v.turn;
  const legal = v.legal;
  if (v.status === Status.PEEK) return isReady(S, v) ? t('hint.waitReady') : t('hint.peek');
  if (S.queen) return S.queen.mine ? t('hint.queenTarget') : t('hint.queenMine');
  if (canCrisp(v, now)) return t('hint.crisp');
  if (v.holding) {
    if (legal.includes('king')) return t('hint.king');
    if (legal.includes('jack') || legal.includes('queen')) return t('hint.special');
    if (legal.includes('discard')) return t('hint.swapOrDiscard');
    if (legal.includes('swap')) return t('hint.swapOnly');
  }
  if (turn && turn.player === v.you) {
    if (canDraw(v, now)) return canDrawDiscard(v, now) ? t('hint.drawEither') : t('hint.draw');
    return t('hint.getReady');
  }
  return null;
}

function hintLine(ctx) {
  const { S, act, local } = ctx;
  const peeks = SLOTS.filter((s) => S.peeks[s] && S.peeks[s].until > local);
  if (peeks.length) {
    // What a peek showed, in words too (the card faces show it on the slots).
    return h('div', { class: 'hintline peekline', role: 'status', 'aria-live': 'assertive', 'data-testid': 'peek' },
      h('p', { class: 'hint hint-peek' }, peeks.map((slot, i) => [
        i ? ' · ' : '',
        t('peek.line', { slot: t(`slot.${slot}`) }), ' ',
        h('strong', { class: isRed(S.peeks[slot].card) ? 'red' : '', dir: 'ltr', title: cardName(S.peeks[slot].card) },
          short(S.peeks[slot].card)),
      ])),
      h('button', { type: 'button', class: 'btn small', 'data-testid': 'peek-hide', onclick: act.hidePeeks }, t('peek.hide')));
  }
  const hint = hintText(ctx);
  const last = S.log.length ? eventText(S, S.log[S.log.length - 1].ev) : '';
  return h('div', { class: 'hintline' },
    h('p', { class: `hint ${hint ? 'hint-action' : ''}`, 'data-testid': 'hint', 'aria-live': 'polite' }, hint || last || ' '),
    S.queen ? h('button', { type: 'button', class: 'btn small', 'data-testid': 'action-cancel', onclick: act.cancelQueen }, t('action.cancel')) : null);
}

function mine(ctx) {
  const { S, act, local } = ctx;
  const v = S.view;
  const me = playerById(v, v.you) || { name: '', total: 0 };
  const busy = pending(ctx);
  const swapOk = !busy && !S.queen && v.legal.includes('swap');
  const choosing = !busy && !!S.queen;
  const myTurn = v.turn && v.turn.player === v.you;
  return h('section', { class: `me ${myTurn ? 'seat-turn' : ''}`, 'aria-label': t('table.yourCards') },
    h('div', { class: 'me-head' },
      h('span', { class: 'seat-name' }, nameEl(me.name), ` (${t('lobby.you')})`),
      seatTags(tableTags(v, v.you)),
      seatTotal(me.total)),
    h('div', { class: 'cards mine', dir: 'ltr' }, SLOTS.map((slot) => {
      const peek = S.peeks[slot] && S.peeks[slot].until > local ? S.peeks[slot] : null;
      const picked = S.queen && S.queen.mine === slot;
      let label = t('my.cardLabel', { slot: t(`slot.${slot}`) });
      if (peek) label = faceLabel(peek.card, `${label} — ${cardName(peek.card)}`);
      if (swapOk) label += ` — ${t('my.tapSwap')}`;
      else if (choosing) label += ` — ${t('my.tapQueen')}`;
      return h('div', { key: slot, class: 'slotwrap' },
        h('button', {
          type: 'button',
          class: cardClass(peek ? peek.card : null,
            `big ${peek ? 'peeking' : ''} ${swapOk || choosing ? 'can' : ''} ${picked ? 'picked' : ''} ${flash(ctx, slotKey(v.you, slot))}`),
          'data-testid': `my-slot-${slot}`, 'data-card': peek ? peek.card : '',
          'aria-label': label, 'aria-pressed': S.queen ? (picked ? 'true' : 'false') : null,
          disabled: !(swapOk || choosing), onclick: () => act.tapMySlot(slot),
        }, cardContent(peek ? peek.card : null),
        peek ? h('span', { class: 'peekbar', style: `animation-duration:${Math.max(0, peek.until - peek.from)}ms` }) : null),
        h('span', { class: 'caption' }, t(`slot.${slot}Cap`)));
    })));
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
    type: 'button', class: `btn action ${ok(type) ? 'can' : ''} ${S.queen && type === 'queen' ? 'picked' : ''}`,
    'data-testid': `action-${type}`, disabled: !ok(type), onclick,
    'aria-label': t(`action.${type}Label`),
  }, h('span', { class: 'action-icon', 'aria-hidden': 'true', 'data-icon': icon }), h('span', { class: 'action-text' }, t(`action.${type}`)));
  return h('section', { class: 'actions', 'aria-label': t('table.actions') },
    btn('discard', '⤓', act.discard),
    btn('jack', 'J', act.jack),
    btn('queen', 'Q', act.queen),
    btn('king', 'K', act.king));
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
    left = Math.max(0, w.closes_at - now);
    bar = h('span', { class: 'crispbar', 'aria-hidden': 'true', style: `transform:scaleX(${total ? Math.min(1, left / total) : 0})` });
  }
  return h('button', {
    type: 'button', class: `btn crisp ${ok ? 'can' : ''}`, 'data-testid': 'crisp-button',
    disabled: !ok, onclick: act.crisp,
    'aria-label': left != null ? t('crisp.labelOpen', { count: Math.ceil(left / 1000) }) : t('crisp.label'),
  }, bar, h('span', { class: 'crisp-text' }, t('crisp.button')),
  left != null ? h('span', { class: 'crisp-secs', 'aria-hidden': 'true', 'data-secs': formatSeconds(left / 1000) }) : null);
}

function scoreStrip(ctx) {
  const v = ctx.S.view;
  return h('section', { class: 'scorestrip', 'data-testid': 'scoreboard', 'aria-label': t('score.title') },
    h('span', { class: 'limit' }, t('score.limit', { n: v.options.limit })),
    seatOrder(v).map((p) => h('span', { key: p.id, class: `score ${p.id === v.you ? 'you' : ''}`, 'data-player': p.id },
      h('span', { class: 'sname' }, nameEl(p.name)), ' ', h('b', { dir: 'ltr' }, formatNumber(p.total)))));
}
