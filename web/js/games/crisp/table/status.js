// The table's top line (sticky): whose turn it is, and on a line of its own a
// final turn (R11.1), the extra draws a King gave (R9.2) and, after a call, the
// final turns left (R11.1); the move log's button, the count of watchers (R18.1)
// and the draw timer's ring (R14: the draw time the options promise, without the
// 2 s before the next player may start, R10.4; in the peek phase the time left
// to look, R16.2).

import { h } from '../../../dom.js';
import { t } from '../../../i18n.js';
import { Status } from '../protocol.js';
import { Highlight } from '../events.js';
import { flash, nameOf } from '../../../render/parts.js';
import { watchersChip } from '../../../render/watch.js';

export function statusBar(ctx) {
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
