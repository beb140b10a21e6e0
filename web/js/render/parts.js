// Pieces more than one screen uses: taps that wait, highlights, names, the seat
// order, the tags beside a name, card faces, the log. Every screen is a
// function of `ctx` = {S: the state, now: server clock (ms), local: Date.now(),
// act: the tap handlers (actions.js)}.

import { h } from '../dom.js';
import { t, formatNumber, has } from '../i18n.js';
import { rank, suitGlyph, isRed, short } from '../cards.js';
import { playerById } from '../state.js';
import { describe } from '../events.js';
import { BotLevel, ClientEvent } from '../protocol.js';
import { gameFailed, gameOf } from '../games.js';

/** A game's name in the page's language (`game.<id>.name`), else its id. */
export const gameName = (id) => (has(`game.${id}.name`) ? t(`game.${id}.name`) : id);

/** In place of a game's screen while its module loads: "Loading…"; when it could
 * not be loaded: that this client cannot show the game (its name, else its id). */
export function gameMissing(id) {
  if (!gameFailed(id)) return h('p', { class: 'center-msg', 'data-testid': 'game-loading' }, t('app.loading'));
  return h('p', { class: 'center-msg', role: 'status', 'data-testid': 'game-missing' },
    t('game.missing', { name: gameName(id) }));
}

/** Taps wait: for the answer to the last action, or for the connection to come back. */
export function pending(ctx) {
  return ctx.local < ctx.S.pending || ctx.S.conn !== 'open';
}

/** The class that highlights `key` (events.js) for a moment after an event. */
export function flash(ctx, key) {
  const until = ctx.S.flashes[key];
  return until && until > ctx.local ? 'flash' : '';
}

const DEFAULT_BOT_NAME = /^Computer (\d+)$/;

/** A player's name as shown: a computer player's default name ("Computer 2",
 * given by the server) in the page's language; any other name as it is. */
export function shownName(name, isBot) {
  const m = isBot && typeof name === 'string' ? DEFAULT_BOT_NAME.exec(name) : null;
  return m ? t('bot.name', { n: Number(m[1]) }) : (name ?? '?');
}

/** Whether a seat's name already says it is a computer player. */
export const namedAsBot = (p) => !!p.is_bot && DEFAULT_BOT_NAME.test(p.name);

export const playerName = (p) => shownName(p.name, p.is_bot);

export function nameOf(v, id) {
  const p = playerById(v, id);
  return p ? playerName(p) : '?';
}

/** A number shown on its own (a total, a sum, a bonus): formatted for the
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
  const name = (id) => (id === you ? t('you') : nameIn(S, id));
  return describe(ev, { you, name }, gameOf(S.view)).text || '';
}

/** A player's shown name from what the state remembers (also after they left). */
export function nameIn(S, id) {
  if (S.names && id in S.names) return shownName(S.names[id], !!(S.bots && S.bots[id]));
  return (S.view && nameOf(S.view, id)) || '?';
}

/** A notice's text (update.js `notices`): the new host, your seat played while
 * you were away, or the game's own words (its `noticeText`), else its log line. */
export function noticeText(S, notice) {
  const ev = notice.ev;
  const game = gameOf(S.view);
  const own = game && game.noticeText ? game.noticeText(S, notice, (id) => nameIn(S, id)) : null;
  if (own) return own;
  if (ev.kind === ClientEvent.PLAYED_FOR_YOU) {
    const base = t('notice.playedForYou');
    return ev.from !== ev.to ? `${base} ${t('notice.totalNow', { from: ev.from, to: ev.to })}` : base;
  }
  return eventText(S, ev);
}

/** The players in seat order, which is the order of play (R2.1, R3.1: clockwise).
 * With `after` (a player id): everyone else, starting with the seat after that one's. */
export function seatOrder(v, after = null) {
  const seated = [...v.players].sort((a, b) => a.seat - b.seat);
  if (after == null) return seated;
  const i = seated.findIndex((p) => p.id === after);
  return [...seated.slice(i + 1), ...seated.slice(0, Math.max(i, 0))];
}

/** The host's mark (R17.4): a crown and, for screen readers, the word. Shown on
 * the host's seat at the table at all times, and in the lobby as a tag. */
export function hostMark(extra = {}) {
  return h('span', { class: 'host-mark', 'data-testid': 'host-mark', title: t('seat.hostLabel'), ...extra },
    h('span', { 'aria-hidden': 'true' }, '♛'), h('span', { class: 'sr-only' }, t('lobby.host')));
}

const TAGS = {
  host: () => h('span', { class: 'tag tag-host' }, h('span', { 'aria-hidden': 'true' }, '♛ '), t('lobby.host')),
  you: () => h('span', { class: 'tag' }, t('lobby.you')),
  // a computer player (R17.1, R17.5), with its level (the lobby)
  bot: (level) => h('span', {
    class: 'tag tag-bot', 'data-testid': 'bot-badge', title: t('bot.tagLabel', { level: t(`level.${level}`) }),
  }, t('bot.tag', { level: t(`level.${level}`) })),
  // at the table: a computer player whose name does not say so already
  botChip: (level) => h('span', {
    class: 'tag tag-bot', 'data-testid': 'bot-badge', title: t('bot.tagLabel', { level: t(`level.${level}`) }),
  }, t('bot.chip')),
  // an away seat the computer plays until its player is back (R17.2): not a computer player
  away: () => h('span', { class: 'tag tag-away', 'data-testid': 'away-badge', title: t('seat.awayLabel') },
    t('seat.away')),
  dealer: () => h('span', { class: 'tag', title: t('seat.dealer') }, t('seat.dealerShort')),
  game: (tags) => tags, // the game's own tags (its table's), in the order it gives them
  // a human whose connection is gone, not yet away (R17.3): the computer steps in soon (R17.2)
  offline: () => h('span', { class: 'tag tag-off', 'data-testid': 'offline-badge', title: t('seat.offlineLabel') },
    `⚠ ${t('lobby.offline')}`),
  ready: () => h('span', { class: 'tag tag-ready' }, `✓ ${t('seat.ready')}`),
  readyMark: () => h('span', { class: 'tag tag-ready', title: t('seat.ready') }, '✓'),
};

/** The tags beside a player's name, always in the same order; `on` says which
 * apply, e.g. `seatTags({dealer: true, offline: !p.connected})` (`bot` holds the
 * level; `game`: the game's own tags, already drawn). */
export function seatTags(on) {
  return Object.keys(TAGS).filter((kind) => on[kind]).map((kind) => TAGS[kind](on[kind]));
}

/** The presence tags of a seat: a computer player, an away seat (the computer
 * plays it), or a human who is offline and not yet away (R17.1-R17.3). */
export function presenceTags(p) {
  return {
    bot: p.is_bot ? p.bot_level || BotLevel.NORMAL : null,
    away: !p.is_bot && !!p.away,
    offline: !p.is_bot && !p.connected && !p.away,
  };
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

/** Whether the phone says it has no network at all. */
export const phoneOffline = () => typeof navigator !== 'undefined' && navigator.onLine === false;

/** Shown while a room's connection is being (re-)established: the seat is kept;
 * offline, the table shown is the one last seen (storage.js), and it says so. */
export function offlineStrip(S) {
  if (S.screen !== 'room' || !S.view || (S.conn !== 'reconnecting' && S.conn !== 'connecting')) return null;
  let key = 'conn.reconnectingLong';
  if (phoneOffline()) key = 'conn.offlineLong';
  else if (S.stale) key = 'conn.connectingLong';
  return h('p', {
    class: 'offline-strip', role: 'status', 'data-testid': 'reconnecting', 'data-offline': phoneOffline() ? 'true' : 'false',
  }, t(key));
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
