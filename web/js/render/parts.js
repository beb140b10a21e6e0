// Pieces more than one screen uses: taps that wait, highlights, names, the seat
// order, the tags beside a name, card faces, the log. Every screen is a
// function of `ctx` = {S: the state, now: server clock (ms), local: Date.now(),
// act: the tap handlers (actions.js)}.

import { h } from '../dom.js';
import { t, formatNumber } from '../i18n.js';
import { rank, suitGlyph, isRed, short } from '../cards.js';
import { playerById } from '../state.js';
import { describe } from '../events.js';

/** Taps wait: for the answer to the last action, or for the connection to come back. */
export function pending(ctx) {
  return ctx.local < ctx.S.pending || ctx.S.conn !== 'open';
}

/** The class that highlights `key` (events.js) for a moment after an event. */
export function flash(ctx, key) {
  const until = ctx.S.flashes[key];
  return until && until > ctx.local ? 'flash' : '';
}

export function nameOf(v, id) {
  const p = playerById(v, id);
  return p ? p.name : '?';
}

/** A number shown on its own (a total, a sum, a crisp bonus): formatted for the
 * language and isolated left to right, so "−5" never shows as "5−" on a
 * right-to-left page. `signed`: "+5" for a positive number. */
export function num(n, { signed = false, ...props } = {}) {
  return h('bdi', { dir: 'ltr', ...props }, formatNumber(n, { signed }));
}

/** A player's name on its own: its direction is its own (dir="auto" isolates it). */
export function nameEl(name, props = {}) {
  return h('bdi', props, name);
}

/** The log line of a stored event (events.js), in the language of this moment. */
export function eventText(S, ev) {
  const you = S.view ? S.view.you : null;
  const name = (id) => (id === you ? t('you') : S.names[id] || (S.view && nameOf(S.view, id)) || '?');
  return describe(ev, { you, name }).text || '';
}

/** The banner's text: a crisp call, or another player's Queen on your card. */
export function bannerText(S, banner) {
  const ev = banner.ev;
  if (ev.kind !== 'crisp') return eventText(S, ev);
  if (S.view && ev.player === S.view.you) return t('crisp.bannerYou');
  return t('crisp.banner', { name: S.names[ev.player] || '?' });
}

/** The players in seat order, which is the order of play (R2.1, R3.1: clockwise).
 * With `after` (a player id): everyone else, starting with the seat after that one's. */
export function seatOrder(v, after = null) {
  const seated = [...v.players].sort((a, b) => a.seat - b.seat);
  if (after == null) return seated;
  const i = seated.findIndex((p) => p.id === after);
  return [...seated.slice(i + 1), ...seated.slice(0, Math.max(i, 0))];
}

const TAGS = {
  host: () => h('span', { class: 'tag' }, t('lobby.host')),
  you: () => h('span', { class: 'tag' }, t('lobby.you')),
  // a computer player (R17.1, R17.5), with its level
  bot: (level) => h('span', {
    class: 'tag tag-bot', 'data-testid': 'bot-badge', title: t('bot.tagLabel', { level: t(`level.${level}`) }),
  }, h('span', { 'aria-hidden': 'true' }, '🤖 '), t('bot.tag', { level: t(`level.${level}`) })),
  // an away seat the computer plays until its player is back (R17.2)
  away: () => h('span', { class: 'tag tag-away', 'data-testid': 'away-badge', title: t('seat.awayLabel') },
    h('span', { 'aria-hidden': 'true' }, '🤖 '), t('seat.away')),
  dealer: () => h('span', { class: 'tag', title: t('seat.dealer') }, t('seat.dealerShort')),
  crisp: () => h('span', { class: 'tag tag-crisp' }, t('seat.crisp')),
  final: () => h('span', { class: 'tag tag-final', 'data-testid': 'tag-final' }, t('seat.finalToCome')),
  offline: () => h('span', { class: 'tag tag-off' }, `⚠ ${t('lobby.offline')}`),
  ready: () => h('span', { class: 'tag tag-ready' }, `✓ ${t('seat.ready')}`),
  readyMark: () => h('span', { class: 'tag tag-ready', title: t('seat.ready') }, '✓'),
};

/** The tags beside a player's name, always in the same order; `on` says which
 * apply, e.g. `seatTags({dealer: true, offline: !p.connected})` (`bot` holds the level). */
export function seatTags(on) {
  return Object.keys(TAGS).filter((kind) => on[kind]).map((kind) => TAGS[kind](on[kind]));
}

/** The presence tags of a seat: a computer player, an away seat (the computer
 * plays it), or a human who is offline (R17.1-R17.3). */
export function presenceTags(p) {
  return { bot: p.is_bot ? p.bot_level || 'normal' : null, away: !p.is_bot && !!p.away, offline: !p.is_bot && !p.connected };
}

/** This player has confirmed (players[].ready is a protocol addition; the local flag covers the wait for the answer). */
export function isReady(S, v) {
  const me = playerById(v, v.you);
  return S.readyRound === v.round || !!(me && me.ready);
}

/** A card's face, or its back when `card` is null (not known). The face: rank
 * and suit in the top corner (the text: "10♦"), the suit large in the middle and
 * the corner again upside down, those two drawn by CSS from data-* (the text a
 * control shows stays what its name starts with, faceLabel). */
export function cardContent(card) {
  if (!card) return [h('span', { class: 'back', 'aria-hidden': 'true' })];
  const corner = `${rank(card)}${suitGlyph(card)}`;
  return [
    h('span', { class: 'corner', 'aria-hidden': 'true' },
      h('span', { class: 'rank' }, rank(card)), h('span', { class: 'suit' }, suitGlyph(card))),
    h('span', { class: 'pip', 'aria-hidden': 'true', 'data-s': suitGlyph(card) }),
    h('span', { class: 'corner-end', 'aria-hidden': 'true', 'data-c': corner }),
  ];
}

/** The accessible name of a control that shows a card face: it starts with what
 * the face shows ("A♠ — …"), so the name holds the visible label (WCAG 2.5.3). */
export function faceLabel(card, label) {
  return `${short(card)} — ${label}`;
}

/** A count on a pile: drawn by CSS from data-n (the pile's name says the count),
 * so the control's visible text stays what its name holds. */
export function countBadge(n) {
  return h('span', { class: 'count', 'aria-hidden': 'true', 'data-n': formatNumber(n) });
}

export function cardClass(card, extra = '') {
  return `card ${card ? `up ${isRed(card) ? 'red' : 'black'}` : 'down'} ${extra}`;
}

/** Shown while a room's connection is being re-established (the seat is kept). */
export function offlineStrip(S) {
  if (S.screen !== 'room' || !S.view || (S.conn !== 'reconnecting' && S.conn !== 'connecting')) return null;
  return h('p', { class: 'offline-strip', role: 'status', 'data-testid': 'reconnecting' }, t('conn.reconnectingLong'));
}

/** The event log's lines, newest first. */
export function logList(S) {
  return h('ol', { class: 'loglines', 'data-testid': 'log' },
    S.log.slice(-60).reverse().map((l) => h('li', { key: l.id }, eventText(S, l.ev))));
}

/** The event log under the results. */
export function logPanel(ctx) {
  return h('details', { class: 'log' }, h('summary', null, t('log.title')), logList(ctx.S));
}
