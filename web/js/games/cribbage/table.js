// Cribbage's table, top to bottom: the hand's line (hand number, dealer, what
// to do), the board (table/board: both pegs of every side, the score as a
// number, the skunk lines), the other players (their laid cards, go, who has
// given), the middle (the crib and whose it is, the starter, the running count
// and the series), your hand as a fan of buttons (give, lay; the reason when a
// card is not enabled), and in the show the count hand by hand, each item lit
// on the cards and said in words; at hand_over the summary and the coach; at
// game_over the game points and the match tally.

import { h } from '../../dom.js';
import { ActionType as TableAction } from '../../protocol.js';
import { t, listOf } from '../../i18n.js';
import { nameEl, num, playerName, seatOrder, offlineStrip, hostMark, logList, eventText } from '../../render/parts.js';
import { cardName, rank, suitGlyph, isRed } from '../../cards.js';
import { CribStatus as Status, CribAction as ActionType } from './protocol.js';
import { cardStates, giveCount, myTurn, mustGive } from './rules.js';
import { board, sides } from './board_view.js';
import { chip, whoName, partnerOf, sideOf } from './parts.js';
import { showArea, summary, coachPanel, claimPanel } from './show_view.js';

function headLine(ctx) {
  const v = ctx.S.view;
  const dealer = whoName(v, v.dealer);
  const you = v.you;
  let todo = '';
  if (v.status === Status.GIVE) {
    const n = giveCount(v);
    if (v.watching) todo = t('game.cribbage.todo.giving');
    else if (mustGive(v)) todo = v.dealer === you ? t('game.cribbage.todo.giveYours', { count: n }) : t('game.cribbage.todo.give', { count: n, name: dealer });
    else todo = t('game.cribbage.todo.waitGive');
  } else if (v.status === Status.PLAY) {
    if (myTurn(v)) todo = (v.playable || []).length ? t('game.cribbage.todo.lay') : t('game.cribbage.todo.go');
    else todo = v.turn ? t('game.cribbage.todo.turnOf', { name: whoName(v, v.turn.player) }) : '';
  } else if (v.status === Status.SHOW) todo = t('game.cribbage.todo.show');
  else if (v.status === Status.HAND_OVER && !v.hand_no) todo = t('game.cribbage.todo.cut');
  else if (v.status === Status.HAND_OVER) todo = t('game.cribbage.todo.handOver');
  else if (v.status === Status.GAME_OVER) todo = t('game.cribbage.todo.gameOver');
  return h('div', { class: 'cb-head', 'data-testid': 'cb-head' },
    h('div', { class: 'cb-hand-no' },
      t('game.cribbage.handNo', { n: v.hand_no || 1 }), ' · ',
      v.dealer === you ? t('game.cribbage.youDeal') : t('game.cribbage.deals', { name: dealer })),
    h('div', { class: `cb-todo ${myTurn(v) || mustGive(v) ? 'mine' : ''}`, 'data-testid': 'cb-todo', role: 'status' }, todo),
    clock(ctx),
    lastLine(ctx));
}

/** The time left to give, to lay (option turn_seconds, C8.3) or to claim (C8.1). */
function clock(ctx) {
  const v = ctx.S.view;
  const deadline = v.status === Status.GIVE ? v.give_deadline
    : (v.status === Status.PLAY && v.turn ? v.turn.deadline
      : (v.claim ? (v.claim.muggins_until || v.claim.deadline) : null));
  if (!deadline) return null;
  const left = Math.max(0, Math.ceil((deadline - ctx.now) / 1000));
  return h('div', { class: 'cb-clock', 'data-testid': 'cb-clock' }, '⏱ ', t('opt.secondsValue', { count: left }));
}

/** What just happened (the newest line of the log: a card laid and what it pegged). */
function lastLine(ctx) {
  const { S } = ctx;
  const v = S.view;
  if ((v.status === Status.HAND_OVER && v.hand_no) || v.status === Status.GAME_OVER) return null; // the line above says it
  const last = S.log && S.log.length ? S.log[S.log.length - 1] : null;
  const text = last ? eventText(S, last.ev) : '';
  return h('div', { class: 'cb-last', 'data-testid': 'cb-last', 'aria-live': 'polite' }, text || '\u00a0');
}

/** One other player: name, partner, dealer, cards held, given, laid, go. */
function seatRow(ctx, p) {
  const v = ctx.S.view;
  const turn = v.turn && v.turn.player === p.id;
  const partner = p.team != null && v.you && partnerOf(v, v.players.find((q) => q.id === v.you) || p);
  const isPartner = partner && partner.id === p.id;
  const tags = [];
  if (v.dealer === p.id) tags.push(h('span', { class: 'tag cb-dealer' }, t('game.cribbage.dealer')));
  if (isPartner) tags.push(h('span', { class: 'tag cb-partner', 'data-testid': 'cb-partner' }, t('game.cribbage.partner')));
  else if (p.team != null) tags.push(h('span', { class: 'tag cb-team' }, t('game.cribbage.team', { n: p.team + 1 })));
  if (v.status === Status.GIVE) tags.push(h('span', { class: 'tag' }, p.gave ? t('game.cribbage.hasGiven') : t('game.cribbage.giving')));
  if (p.go) tags.push(h('span', { class: 'tag cb-go' }, t('game.cribbage.goTag')));
  if (!p.connected || p.away) tags.push(h('span', { class: 'tag' }, t('seat.away')));
  return h('div', {
    key: p.id, class: `seat cb-seat side-${sideOf(v, p)} ${turn ? 'turn' : ''}`, 'data-testid': `seat-${p.id}`,
  },
  h('div', { class: 'cb-seat-top' },
    h('span', { class: 'seat-name' }, nameEl(playerName(p))),
    p.id === v.host ? hostMark() : null,
    h('span', { class: 'cb-tags' }, tags)),
  h('div', { class: 'cb-seat-cards' },
    h('span', { class: 'cb-held', role: 'img', 'aria-label': t('game.cribbage.held', { count: p.held }) },
      [Status.GIVE, Status.PLAY].includes(v.status) ? Array.from({ length: p.held }, (_, i) => chip(null, 'tiny', { key: i })) : null),
    h('span', { class: 'cb-laid', role: 'group', 'aria-label': t('game.cribbage.laid') }, (p.laid || []).map((c) => chip(c, 'mini', { key: c })))));
}


function middle(ctx) {
  const v = ctx.S.view;
  const crib = v.crib || { owner: v.dealer, count: 0, cards: null };
  const cribWhose = crib.owner === v.you ? t('game.cribbage.cribYours') : t('game.cribbage.cribOf', { name: whoName(v, crib.owner) });
  const series = (v.play && v.play.series) || [];
  return h('section', { class: 'cb-middle', 'aria-label': t('game.cribbage.middle') },
    h('div', { class: 'cb-pile', 'data-testid': 'cb-crib' },
      h('div', { class: 'cb-pile-cards' }, crib.cards ? crib.cards.map((c) => chip(c, 'small', { key: c }))
        : Array.from({ length: crib.count }, (_, i) => chip(null, 'small', { key: i }))),
      h('div', { class: 'cb-label' }, cribWhose)),
    h('div', { class: 'cb-pile', 'data-testid': 'cb-starter' },
      h('div', { class: 'cb-pile-cards' }, chip(v.starter, 'small')),
      h('div', { class: 'cb-label' }, t('game.cribbage.starter'))),
    v.status === Status.PLAY ? h('div', { class: 'cb-count', 'data-testid': 'cb-count' },
      h('div', { class: 'cb-count-n' }, num(v.play.count)),
      h('div', { class: 'cb-label' }, t('game.cribbage.count'))) : null,
    v.status === Status.PLAY ? h('div', { class: 'cb-series', role: 'group', 'data-testid': 'cb-series', 'aria-label': t('game.cribbage.series') },
      series.length ? series.map((s, i) => h('span', { key: `${i}${s.card}`, class: `cb-laid-one side-${sideOf(v, v.players.find((q) => q.id === s.player) || { seat: 0 })}` }, chip(s.card, 'small')))
        : h('span', { class: 'cb-label' }, t('game.cribbage.newSeries'))) : null);
}

/** Your hand as a fan: each card a button; the reason shown when a tap does nothing. */
function fan(ctx) {
  const { S, act } = ctx;
  const v = S.view;
  if (!v.hand) return null;
  const picked = (S.cribPick || []).filter((c) => v.hand.includes(c));
  const states = cardStates(v, picked);
  const reasons = [...new Set(states.filter((s) => !s.enabled && s.reason).map((s) => s.reason))];
  const n = giveCount(v);
  const giving = mustGive(v);
  const mid = (states.length - 1) / 2;
  return h('section', { class: 'cb-me', 'data-testid': 'me', 'aria-label': t('game.cribbage.yourHand') },
    h('div', { class: 'cb-fan', dir: 'ltr', 'data-n': states.length },
      states.map((s, i) => h('button', {
        key: s.card,
        type: 'button',
        class: `cb-card ${isRed(s.card) ? 'red' : 'black'} ${picked.includes(s.card) ? 'picked' : ''} ${s.enabled ? 'on' : 'off'}`,
        'data-testid': `cb-card-${i}`,
        'data-card': s.card,
        'aria-disabled': s.enabled ? 'false' : 'true',
        'aria-pressed': giving ? String(picked.includes(s.card)) : null,
        'aria-label': `${rank(s.card)}${suitGlyph(s.card)} — ${cardName(s.card)}${s.reason ? ` (${t(`game.cribbage.why.${s.reason}`)})` : ''}`,
        style: `--tilt: ${(i - mid) * 4}deg; --lift: ${Math.abs(i - mid) * 3}px`,
        onclick: () => (s.enabled ? act.tapCard(s.card) : act.cardWhy(s.reason)),
      }, h('span', { class: 'r', 'aria-hidden': 'true' }, rank(s.card)), h('span', { class: 's', 'aria-hidden': 'true' }, suitGlyph(s.card))))),
    giving ? h('div', { class: 'cb-actions' },
      h('button', {
        type: 'button', class: 'btn primary', 'data-testid': 'cb-give', disabled: picked.length !== n, onclick: act.give,
      }, t('game.cribbage.giveButton', { count: n, name: v.dealer === v.you ? t('game.cribbage.yourCrib') : whoName(v, v.dealer) }))) : null,
    v.status === Status.PLAY && mineLaid(v).length ? h('div', { class: 'cb-gave', 'data-testid': 'cb-my-laid' },
      t('game.cribbage.youLaid'), ' ', mineLaid(v).map((c) => chip(c, 'mini', { key: c }))) : null,
    v.status === Status.GIVE && !giving && v.gave && v.gave.length ? h('div', { class: 'cb-gave' },
      t('game.cribbage.youGave'), ' ', v.gave.map((c) => chip(c, 'small', { key: c }))) : null,
    reasons.length && (v.status === Status.PLAY || giving) ? h('p', { class: 'hint cb-why', 'data-testid': 'cb-why' },
      reasons.map((r) => t(`game.cribbage.whyLong.${r}`, { count: v.play ? v.play.count : 0 })).join(' ')) : null);
}

const mineLaid = (v) => ((v.players.find((p) => p.id === v.you) || {}).laid || []);

function readyBar(ctx) {
  const { S, act } = ctx;
  const v = S.view;
  if (v.status === Status.HAND_OVER && v.legal.includes(ActionType.READY)) {
    return h('div', { class: 'cb-actions' },
      h('button', { type: 'button', class: 'btn primary', 'data-testid': 'cb-ready', onclick: act.cribReady }, t('game.cribbage.nextHand')));
  }
  if (v.status === Status.HAND_OVER) {
    const waiting = v.players.filter((p) => !p.ready && !p.is_bot).map((p) => playerName(p));
    return waiting.length ? h('p', { class: 'hint' }, t('game.cribbage.waitReady', { names: listOf(waiting) })) : null;
  }
  return null;
}

function gameOver(ctx) {
  const { S, act } = ctx;
  const v = S.view;
  const gp = v.game_points;
  const winners = gp ? gp.winner_side : v.winners;
  const youWon = winners.includes(v.you);
  return h('section', { class: 'cb-over', 'data-testid': 'cb-game-over' },
    h('h2', null, youWon ? t(v.players.length === 4 ? 'game.cribbage.yourTeamWins' : 'game.cribbage.youWin') : t('game.cribbage.wins', { names: listOf(winners.map((id) => whoName(v, id))) })),
    gp ? h('p', { class: 'cb-gp', 'data-testid': 'cb-game-points' },
      t('game.cribbage.gamePoints', { count: gp.points }),
      gp.skunk !== 'none' ? [' — ', h('b', null, t(`game.cribbage.skunk.${gp.skunk}`))] : null) : null,
    h('table', { class: 'cb-match', 'data-testid': 'cb-match' },
      h('caption', null, t('game.cribbage.match')),
      h('tbody', null, sides(v).map((s) => h('tr', { key: s.side, class: s.players.some((p) => p.id === v.you) ? 'you' : '' },
        h('th', { scope: 'row' }, s.players.map((p, i) => [i ? ' & ' : null, nameEl(playerName(p))])),
        h('td', null, num(s.score)),
        h('td', null, t('game.cribbage.matchWins', { count: Math.max(...s.players.map((p) => (v.match || {})[p.id] || 0)) })))))),
    v.legal.includes(TableAction.REMATCH) ? h('div', { class: 'cb-actions' },
      h('button', { type: 'button', class: 'btn primary', 'data-testid': 'rematch', onclick: act.rematch }, t('game.cribbage.rematch'))) : null);
}

export function table(ctx) {
  const { S } = ctx;
  const v = S.view;
  const others = v.watching ? seatOrder(v) : seatOrder(v, v.you);
  const showing = v.status === Status.SHOW || v.status === Status.HAND_OVER;
  return h('div', { class: `cb-table n${v.players.length}`, 'data-seats': v.players.length, 'data-status': v.status },
    offlineStrip(S),
    headLine(ctx),
    board(ctx),
    h('section', { class: 'opponents cb-seats', 'aria-label': t('table.opponents') }, others.map((p) => seatRow(ctx, p))),
    v.status === Status.GAME_OVER ? gameOver(ctx) : null,
    showing ? claimPanel(ctx) : null,
    showing ? showArea(ctx) : middle(ctx),
    v.status === Status.HAND_OVER ? summary(ctx) : null,
    v.status === Status.HAND_OVER || v.status === Status.GAME_OVER ? coachPanel(ctx) : null,
    v.status === Status.GIVE || v.status === Status.PLAY ? fan(ctx) : null,
    readyBar(ctx),
    h('details', { class: 'cb-log' }, h('summary', null, t('log.title')), logList(S)),
  );
}

