// Crapette's table (crapette-rules.md K1-K9, protocol.md "Crapette"), one phone
// screen in portrait at 360 px: the status line (whose turn, the move timer),
// the other player's crapette, stock, waste (and turned card while they move)
// on top; four rows in the middle, each a tableau pile on the left (0-3), two
// foundations, and a tableau pile on the right (4-7), fanned sideways so every
// card of a pile shows its corner; yours at the bottom; then the dock: End
// turn for the mover, the big "Crapette!" for the other player (K6), the last
// call's outcome (both players see it; a right call's missed move lit).
// Moves: tap a card, then a lit pile (only the view's `moves` light up), or drag
// it there (drag.js). The board is drawn left to right in every language (a
// card table has no reading direction); the words around it follow the page.

import { h } from '../../dom.js';
import { t, text, formatNumber } from '../../i18n.js';
import { short, cardName } from '../../cards.js';
import { cardContent, cardClass, nameEl, playerName, offlineStrip, pending, logList } from '../../render/parts.js';
import { moving, sides, sideOf, sources, targets, pileCards, showsSequence, tablePile, callVersion, Status } from './moves.js';
import { startDrag } from './drag.js';
import { CrapAction, CrapPile, GAME_ID } from './protocol.js';
import { watchBar } from '../../render/watch.js';

/** The words of a table pile ("your crapette", "foundation 3", "pile 5"). */
export function pileLabel(v, pile) {
  const [kind, rest] = pile.split(':');
  if (kind === CrapPile.TABLEAU) return t('game.crapette.pile.tableau', { n: Number(rest) + 1 });
  if (kind === CrapPile.FOUNDATION) return t('game.crapette.pile.foundation', { n: Number(rest) + 1 });
  return t(`game.crapette.pile.${kind === 'me' ? 'your' : 'their'}.${rest}`);
}

/** A wire move of `mover` in words: "7♦ from Ben's crapette to foundation 4". */
export function moveWords(v, move, mover) {
  const from = tablePile(v, move.from, mover);
  const to = tablePile(v, move.to, mover);
  return t('game.crapette.moveWords', { from: pileLabel(v, from), to: pileLabel(v, to) });
}

function cardFace(card, extra = '', key) {
  return h('span', { key, class: cardClass(card, `cr-card ${extra}`), 'aria-hidden': 'true' }, cardContent(card));
}

/** One pile as a button: its cards (fanned for a tableau pile), lit as a source
 * or a target, or marked as the missed move's ends. */
function pile(ctx, pileName, { cards = [], count = null, down = false, fan = false, testid, extraClass = '' }) {
  const { S, act } = ctx;
  const v = S.view;
  const src = sources(v).includes(pileName);
  const picked = S.crPick === pileName;
  const lit = S.crPick && targets(v, S.crPick).includes(pileName);
  const missed = S.crMissed && (S.crMissed.from === pileName || S.crMissed.to === pileName);
  const shown = (S.crShow || []).some(([a, b]) => a === pileName || b === pileName) || S.crShowFrom === pileName;
  const cls = ['cr-pile', fan ? 'fan' : '', src ? 'src' : '', picked ? 'picked' : '', lit ? 'target' : '',
    missed ? 'missed' : '', shown ? 'shown' : '', extraClass].filter(Boolean).join(' ');
  const top = cards.length ? cards[cards.length - 1] : null;
  // the name starts with what the pile shows (its cards' corners; WCAG 2.5.3), then says it
  const words = [];
  if (fan && cards.length) words.push(cards.map(short).join(' '));
  else if (top && !down) words.push(short(top));
  words.push(pileLabel(v, pileName));
  if (top && !down && !fan) words.push(cardName(top));
  if (count != null) words.push(t('game.crapette.cards', { count }));
  if (lit) words.push(t('game.crapette.putHere'));
  const n = cards.length;
  const faces = down
    ? (count ? [h('span', { key: 'b', class: 'card down cr-card', 'aria-hidden': 'true' }, cardContent(null))] : [])
    : cards.map((c, i) => cardFace(c, i === n - 1 ? 'top' : '', `${i}:${c}`));
  const tappable = src || lit || picked || (S.crCalling && v.turn && !moving(v));
  return h('button', {
    key: pileName,
    type: 'button',
    class: cls,
    'data-pile': pileName,
    'data-testid': testid || `pile-${pileName.replace(':', '-')}`,
    'data-n': String(n),
    'aria-disabled': tappable ? null : 'true',
    'aria-pressed': picked ? 'true' : null,
    'aria-label': words.join(' — '),
    onclick: () => act.crTap(pileName),
    onpointerdown: src ? (e) => startDrag(e, pileName, ctx) : null,
  },
  faces.length ? faces : h('span', { class: 'card empty cr-card', 'aria-hidden': 'true' }),
  count != null ? h('span', { class: 'cr-count', 'aria-hidden': 'true', dir: 'ltr', 'data-n': formatNumber(count) }) : null);
}

/** A player's row: crapette, stock, waste, and the turned card while they move. */
function seatRow(ctx, side, p) {
  const v = ctx.S.view;
  const mover = v.turn && v.turn.player === p.id;
  const turned = mover && v.turn.turned;
  return h('section', {
    class: `cr-seat cr-${side} ${mover ? 'cr-moving' : ''}`, 'data-testid': `seat-${side}`, 'aria-label': playerName(p),
  },
  h('div', { class: 'cr-who' },
    h('span', { class: 'cr-name' }, nameEl(playerName(p))),
    h('span', { class: 'cr-left', 'data-testid': `left-${side}` }, t('game.crapette.left', { count: p.left }))),
  h('div', { class: 'cr-piles', dir: 'ltr' },
    pile(ctx, `${side}:crapette`, { cards: pileCards(v, `${side}:crapette`), count: p.crapette.count, extraClass: 'crap' }),
    pile(ctx, `${side}:stock`, { down: true, count: p.stock.count }),
    pile(ctx, `${side}:waste`, { cards: pileCards(v, `${side}:waste`), count: p.waste.count }),
    mover ? pile(ctx, `${side}:turned`, { cards: turned ? [turned] : [], extraClass: 'turned', testid: 'turned' }) : null));
}

/** The middle: four rows of tableau, foundation, foundation, tableau. */
function board(ctx) {
  const v = ctx.S.view;
  const rows = [0, 1, 2, 3].map((i) => h('div', { key: i, class: 'cr-row' },
    pile(ctx, `tableau:${i}`, { cards: v.tableau[i], fan: true, extraClass: 'left' }),
    pile(ctx, `foundation:${2 * i}`, { cards: pileCards(v, `foundation:${2 * i}`), extraClass: 'found' }),
    pile(ctx, `foundation:${2 * i + 1}`, { cards: pileCards(v, `foundation:${2 * i + 1}`), extraClass: 'found' }),
    pile(ctx, `tableau:${4 + i}`, { cards: v.tableau[4 + i], fan: true, extraClass: 'right' })));
  return h('section', { class: 'cr-board', dir: 'ltr', 'aria-label': t('game.crapette.board') }, rows);
}

function clock(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return formatNumber(s);
}

/** Whose turn, the move timer (K7.1), and the idle turns toward a blocked game (K5.2). */
function statusLine(ctx) {
  const { S, now } = ctx;
  const v = S.view;
  if (v.status !== Status.PLAYING || !v.turn) return null;
  const mine = moving(v);
  const mover = v.players.find((p) => p.id === v.turn.player);
  const deadline = v.turn.deadline;
  return h('div', { class: `cr-status ${mine ? 'mine' : ''}`, 'data-testid': 'turn-line', role: 'status' },
    h('span', { class: 'cr-turn' }, mine ? t('game.crapette.yourTurn') : t('game.crapette.theirTurn', { name: playerName(mover) })),
    deadline ? h('span', { class: 'cr-timer', 'data-testid': 'move-timer', 'aria-label': t('game.crapette.timer', { count: Math.max(0, Math.ceil((deadline - now) / 1000)) }) },
      h('span', { class: 'cr-clock', 'aria-hidden': 'true' }), h('b', { dir: 'ltr' }, clock(deadline - now))) : null,
    h('button', { type: 'button', class: 'btn small cr-logbtn', 'data-testid': 'log-button', 'aria-expanded': S.logOpen ? 'true' : 'false', onclick: ctx.act.toggleLog }, '☰'));
}

/** The last call's outcome, for both players (K6.5); a right call's missed move in words. */
function callLine(ctx) {
  const { S } = ctx;
  const v = S.view;
  const c = S.crLastCall;
  if (!c) return null;
  const you = c.player === v.you;
  const name = playerName(v.players.find((p) => p.id === c.player) || { name: c.player });
  const moverP = v.players.find((p) => p.id === c.mover) || { name: c.mover };
  let text;
  if (c.right) {
    text = you ? t('game.crapette.call.rightYou', { name: playerName(moverP) })
      : c.mover === v.you ? t('game.crapette.call.rightOnYou', { name }) : t('game.crapette.call.right', { name, target: playerName(moverP) });
  } else {
    text = you ? t('game.crapette.call.wrongYou') : t('game.crapette.call.wrong', { name });
  }
  return h('div', { class: `cr-call ${c.right ? 'right' : 'wrong'}`, 'data-testid': 'call-outcome', role: 'status' },
    h('b', null, text),
    c.right && c.missed ? h('span', { class: 'cr-missed', 'data-testid': 'missed-move' },
      `${t('game.crapette.call.missed')} ${moveWords(v, c.missed, c.mover)}`,
      c.fault ? ` (${t(`game.crapette.fault.${c.fault}`)})` : '') : null);
}

/** The dock: End turn for the mover; "Crapette!" for the other player while a call
 * is open (under combination / strict: tap the moves to show, then Call). */
function dock(ctx) {
  const { S, act } = ctx;
  const v = S.view;
  if (v.watching) return watchBar(ctx); // R18.1: nobody's seat, nothing to tap
  if (v.status !== Status.PLAYING) return null;
  // an error (a refused move, no connection) in the hint's place: the table shows no toasts
  const toast = (S.toasts || []).filter((x) => x.until > (ctx.local || 0)).pop();
  const said = toast ? h('p', { class: 'cr-hint cr-toast', role: 'alert', 'data-testid': 'toast' }, text(toast.msg)) : null;
  if (moving(v)) {
    return h('div', { class: 'cr-dock mover' },
      said || h('p', { class: 'cr-hint' }, S.crPick ? t('game.crapette.hintTarget') : t('game.crapette.hintPick')),
      h('button', {
        type: 'button', class: 'btn', 'data-testid': 'end-turn', disabled: !v.legal.includes(CrapAction.END) || pending(ctx), onclick: act.crEnd,
      }, t('game.crapette.end')));
  }
  const open = !!(v.turn && v.turn.can_call) && callVersion(S) != null;
  const seq = showsSequence(v);
  return h('div', { class: 'cr-dock' },
    said,
    seq && S.crCalling ? h('p', { class: 'cr-hint' }, t('game.crapette.showHint', { count: (S.crShow || []).length })) : null,
    seq && S.crCalling ? h('button', { type: 'button', class: 'btn small', 'data-testid': 'call-cancel', onclick: act.crCancelCall }, t('game.crapette.cancel')) : null,
    h('button', {
      type: 'button',
      class: 'btn primary big cr-callbtn',
      'data-testid': 'crapette-button',
      disabled: !open || pending(ctx),
      onclick: act.crCall,
    }, seq && S.crCalling ? t('game.crapette.callShown') : t('game.crapette.call.button')));
}

/** The end of the game (K5): who won, or a blocked game (a draw), and the cards left. */
function over(ctx) {
  const { S, act } = ctx;
  const v = S.view;
  if (v.status !== Status.GAME_OVER) return null;
  const won = v.why !== 'blocked' && v.winners && v.winners.length ? v.players.find((p) => p.id === v.winners[0]) : null;
  const title = !won ? t('game.crapette.blocked') : won.id === v.you ? t('game.youWin') : t('game.winner', { name: playerName(won) });
  return h('section', { class: 'cr-over panel', 'data-testid': 'game-over', role: 'status' },
    h('h2', null, title),
    h('p', null, v.players.map((p) => t('game.crapette.leftOf', { name: playerName(p), count: p.left })).join(' · ')),
    v.watching ? null : h('button', { type: 'button', class: 'btn primary', 'data-testid': 'rematch', disabled: pending(ctx) || v.host !== v.you, onclick: act.rematch }, t('game.rematch')),
    v.host !== v.you && !v.watching ? h('p', { class: 'note' }, t('game.waitHost', { name: playerName(v.players.find((p) => p.id === v.host) || { name: '' }) })) : null);
}

function logSheet(ctx) {
  const { S, act } = ctx;
  return h('section', { id: 'movelog', class: 'logsheet', hidden: !S.logOpen, 'aria-label': t('log.title'), 'data-testid': 'log-sheet' },
    h('div', { class: 'logsheet-head' },
      h('h2', null, t('log.title')),
      h('button', { type: 'button', class: 'btn small', 'data-testid': 'log-close', onclick: act.toggleLog }, t('settings.close'))),
    logList(S));
}

export function table(ctx) {
  const { S } = ctx;
  const v = S.view;
  const { me, op } = sides(v);
  return h('div', { class: `table cr-table ${S.crDragging ? 'dragging' : ''}`, 'data-game': GAME_ID },
    h('div', { class: 'sticky-top' }, offlineStrip(S), statusLine(ctx)),
    seatRow(ctx, 'op', op),
    board(ctx),
    seatRow(ctx, 'me', me),
    callLine(ctx),
    over(ctx),
    dock(ctx),
    logSheet(ctx));
}

export { sideOf };
