// The action dock (sticky): Discard (R5.2), Jack (R7), Queen (R8), King (R9) and
// crisp (R10, with the time left of your crisp window, which this phone ends
// early by the measured delay, R18.4); in the peek phase Ready (R16.2); the
// Queen's confirmation once both cards are chosen (R8: nothing is sent before
// Confirm); a watcher's bar (R18.1: nobody's seat, nothing to tap).

import { h } from '../../../dom.js';
import { t, formatSeconds } from '../../../i18n.js';
import { ActionType, Status } from '../protocol.js';
import { canCrisp, crispEnd } from '../rules.js';
import { pending, nameOf } from '../../../render/parts.js';
import { isReady } from '../parts.js';
import { watchBar } from '../../../render/watch.js';

/** The dock's content: the watcher's bar, Ready, the Queen's confirmation or the actions. */
export function dock(ctx) {
  const { S } = ctx;
  const v = S.view;
  if (v.watching) return watchBar(ctx); // R18.1: nobody's seat, nothing to tap
  if (v.status === Status.PEEK) return readyBar(ctx);
  if (S.queen && S.queen.mine && S.queen.target) return queenConfirm(ctx);
  return actionBar(ctx);
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
