// The middle row: the stock (R4), the discard pile with its top card face up
// (R4, R5.2), the Kings played this turn beside them while their extra draws are
// made (R9.3), and the drawn card: yours face up, another player's face down
// unless it came from the discard pile (R16.4: that one is public; a stock card
// only its drawer sees, R16.3).

import { h } from '../../../dom.js';
import { t } from '../../../i18n.js';
import { cardName } from '../../../cards.js';
import { Source } from '../protocol.js';
import { canDraw, canDrawDiscard } from '../rules.js';
import { Highlight } from '../events.js';
import {
  pending, flash, nameOf, cardContent, cardClass, faceLabel, countBadge,
} from '../../../render/parts.js';
import { kingStack, KINGS_SHOWN } from '../parts.js';

export function center(ctx) {
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
