// The end of a round or of the game: every revealed card, the sums, the
// caller's -5/+5 and why (R12.2, R12.3), the round scores and the totals; the
// game's rounds so far (`history`, protocol v1.1); at game over the ranking and
// the winners (R12.6). Next round / Rematch for the host, "ready for the next
// round" for the others (R16.5).

import { h } from '../../dom.js';
import { t, listOf } from '../../i18n.js';
import { short, cardName, isRed } from '../../cards.js';
import { Status } from './protocol.js';
import { pending, nameOf, nameEl, num, seatOrder, logPanel, playerName } from '../../render/parts.js';
import { seatTags, isReady } from './parts.js';
import { memoryPanel } from './memory.js';
import { watchBar } from '../../render/watch.js';

export function results(ctx) {
  const { S, act } = ctx;
  const v = S.view;
  const lr = v.last_round || {};
  const isHost = v.host === v.you;
  const playing = !v.watching; // a watcher (R18.1) confirms nothing
  const over = v.status === Status.GAME_OVER;
  const winners = v.winners || [];
  let title = t('round.over', { round: lr.round ?? v.round });
  let winLine = null;
  if (over) {
    title = t('game.over');
    const names = winners.map((id) => nameOf(v, id));
    // the headline of the results, in a live region so that it is announced
    winLine = h('div', { role: 'status' }, h('h3', { class: 'winners', 'data-testid': 'winners' },
      h('span', { 'aria-hidden': 'true' }, '★ '),
      names.length > 1 ? t('game.shared', { names: listOf(names) })
        : winners[0] === v.you ? t('game.youWin') : t('game.winner', { name: names[0] || '?' })));
  }
  return h('div', { class: 'results' },
    v.watching ? watchBar(ctx) : null,
    h('h2', null, title),
    winLine,
    lr.caller ? callerReason(v, lr) : null,
    lr.caller ? h('p', { class: 'note', 'data-testid': 'caller-note' }, t(lr.caller === v.you ? 'round.callerYou' : 'round.caller', {
      name: nameOf(v, lr.caller), minus: t('round.bonusMinus', { n: 5 }), plus: t('round.bonusPlus', { n: 5 }),
    })) : null,
    h('div', { class: 'tablewrap' },
      h('table', { class: 'scores', 'data-testid': 'scoreboard' },
        h('thead', null, h('tr', null,
          h('th', { scope: 'col' }, t('score.player')),
          h('th', { scope: 'col' }, t('score.sum')),
          h('th', { scope: 'col' }, t('score.bonus')),
          h('th', { scope: 'col' }, t('score.round')),
          h('th', { scope: 'col' }, t('score.total')))),
        h('tbody', null, seatOrder(v).map((p) => {
          const hand = (lr.hands && lr.hands[p.id]) || p.cards || [];
          const sum = lr.sums ? lr.sums[p.id] : null;
          const score = lr.scores ? lr.scores[p.id] : null;
          const bonus = sum != null && score != null ? score - sum : 0;
          const win = winners.includes(p.id);
          return h('tr', { key: p.id, class: `${p.id === v.you ? 'you' : ''} ${win ? 'win' : ''}`, 'data-player': p.id },
            h('th', { scope: 'row' },
              h('span', { class: 'rowname' }, win ? '★ ' : '', nameEl(playerName(p)),
                seatTags({ crisp: lr.caller === p.id, readyMark: !over && p.ready })),
              h('span', { class: 'minicards', dir: 'ltr' }, hand.map((c, i) => c
                ? h('span', { key: i, class: `mini ${isRed(c) ? 'red' : ''}`, title: cardName(c), 'data-card': c }, short(c))
                : h('span', { key: i, class: 'mini' }, '?')))),
            h('td', { class: 'num', 'data-testid': `sum-${p.id}` }, sum != null ? num(sum) : ''),
            h('td', { class: 'num', 'data-testid': `bonus-${p.id}` }, bonus ? num(bonus, { signed: true }) : ''),
            h('td', { class: 'num', 'data-testid': `round-${p.id}` }, score != null ? num(score) : ''),
            h('td', { class: 'num total', 'data-testid': `total-${p.id}` }, num(p.total)));
        })))),
    h('p', { class: 'note' }, t('score.limit', { n: v.options.limit })),
    memoryPanel(ctx), // R18.3: what you remembered
    replayButtons(ctx, lr.round ?? v.round), // R18.2
    historyTable(v, over),
    isHost && over
      ? h('button', { type: 'button', class: 'btn primary wide big', 'data-testid': 'rematch', disabled: pending(ctx), onclick: act.rematch }, t('game.rematch'))
      : null,
    isHost && !over
      ? h('button', { type: 'button', class: 'btn primary wide big', 'data-testid': 'next-round', disabled: pending(ctx), onclick: act.nextRound }, t('round.next'))
      : null,
    // R16.5: the next round also starts when every player is ready
    !isHost && !over && playing
      ? h('button', {
        type: 'button', class: 'btn primary wide big', 'data-testid': 'ready-button',
        disabled: isReady(S, v) || pending(ctx), onclick: act.ready,
      }, isReady(S, v) ? t('round.readyDone') : t('round.ready'))
      : null,
    !isHost && playing ? h('p', { class: 'note center' }, over ? t('game.waitHost', { name: nameOf(v, v.host) }) : t('round.waitHost', { name: nameOf(v, v.host) })) : null,
    logPanel(ctx));
}

/** R18.2: the round just ended, replayed; and any earlier round of the game. */
function replayButtons(ctx, round) {
  const rounds = (ctx.S.view.history || []).map((r) => r.round).filter((n) => n !== round);
  return h('section', { class: 'replays', 'aria-label': t('replay.rounds') },
    h('button', {
      type: 'button', class: 'btn wide', 'data-testid': 'replay-open', onclick: () => ctx.act.openReplay(round),
    }, h('span', { 'aria-hidden': 'true' }, '▶ '), t('replay.openRound', { round })),
    rounds.length ? h('div', { class: 'replay-rounds' }, rounds.map((n) => h('button', {
      key: n, type: 'button', class: 'btn small', 'data-testid': `replay-round-${n}`,
      onclick: () => ctx.act.openReplay(n),
    }, t('replay.roundButton', { round: n })))) : null);
}

/** Why the caller got -5 or +5 (R12.2, R12.3): their sum against the others'. */
function callerReason(v, lr) {
  const sums = lr.sums || {};
  const mine = sums[lr.caller];
  if (mine == null) return null;
  const others = Object.keys(sums).filter((id) => id !== lr.caller);
  const low = Math.min(...others.map((id) => sums[id]));
  const who = (ids) => listOf(ids.map((id) => (id === v.you ? t('you.inText') : nameOf(v, id))));
  const name = nameOf(v, lr.caller);
  const you = lr.caller === v.you ? 'You' : '';
  let key = 'round.reasonLow';
  let names = '';
  if (mine === low) {
    key = 'round.reasonTie';
    names = who(others.filter((id) => sums[id] === mine));
  } else if (mine > low) {
    key = 'round.reasonHigh';
    names = who(others.filter((id) => sums[id] < mine));
  }
  // R12.2 / R12.3, in words where a sign would read backwards (Arabic)
  const bonus = mine < low ? t('round.bonusMinus', { n: 5 }) : t('round.bonusPlus', { n: 5 });
  return h('p', { class: 'reason', 'data-testid': 'caller-reason', 'data-bonus': mine < low ? '-5' : '+5' },
    t(`${key}${you}`, { name, sum: mine, names, bonus }));
}

/** The game's rounds (view `history`, protocol v1.1): a row per player with
 * each round's score and the total; at game over in ranking order, with ranks
 * (players tied share a rank, R12.6). */
function historyTable(v, over) {
  const rounds = v.history || [];
  if (!rounds.length) return null;
  let players = seatOrder(v);
  if (over) players = [...players].sort((a, b) => a.total - b.total);
  const rank = (p) => 1 + players.filter((q) => q.total < p.total).length;
  return h('section', { class: 'history', 'aria-labelledby': 'history-title' },
    h('h3', { id: 'history-title' }, over ? t('history.ranking') : t('history.title')),
    h('div', { class: 'tablewrap' },
      h('table', { class: 'scores hist', 'data-testid': 'history' },
        h('thead', null, h('tr', null,
          over ? h('th', { scope: 'col' }, t('history.rank')) : null,
          h('th', { scope: 'col' }, t('score.player')),
          rounds.map((r) => h('th', { key: r.round, scope: 'col', class: 'num' }, t('history.round', { round: r.round }))),
          h('th', { scope: 'col', class: 'num' }, t('score.total')))),
        h('tbody', null, players.map((p) => h('tr', {
          key: p.id, class: p.id === v.you ? 'you' : '', 'data-testid': `history-${p.id}`,
          'data-rank': over ? rank(p) : null,
        },
        over ? h('td', { class: 'num rank' }, num(rank(p))) : null,
        h('th', { scope: 'row' }, nameEl(playerName(p))),
        rounds.map((r) => {
          const called = r.caller === p.id;
          const score = r.scores ? r.scores[p.id] : null;
          return h('td', { key: r.round, class: `num ${called ? 'called' : ''}`, title: called ? t('seat.crisp') : null },
            score != null ? num(score) : '', called ? h('span', { class: 'sr-only' }, ` (${t('seat.crisp')})`) : null);
        }),
        h('td', { class: 'num total' }, num(p.total))))))));
}
