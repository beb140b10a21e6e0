// Events (protocol.md, "Events") as short log lines and screen highlights: the
// table's own events here (seats, presence, the host, options, computer
// players), a game's through its module (games.js: `describe`, `publicFields`,
// `publicCard`). The log keeps each event's public part (`publicEvent`) and
// describes it when it is shown, so its lines follow a change of language.

import { t } from './i18n.js';
import { ClientEvent, EventKind } from './protocol.js';

/** The fields of a table's event a log line may use; a game adds its own. */
const PUBLIC_FIELDS = [
  'kind', 'player', 'options', 'level',
  'from', 'to', // played_for_you: this seat's total before and after (the client's own event)
];

/** The part of `ev` a log line or a banner may keep: the table's fields and those
 * the game (`game`, a module of games.js, or null) names public. */
export function publicEvent(ev, game = null) {
  const out = {};
  const fields = game && game.publicFields ? [...PUBLIC_FIELDS, ...game.publicFields] : PUBLIC_FIELDS;
  for (const field of fields) if (field in ev) out[field] = ev[field];
  if (game && game.publicCard && game.publicCard(ev) && 'card' in ev) out.card = ev.card;
  return out;
}

/** What an event of the table lights up for a moment (state `flashes`, parts.js
 * `flash`): the lobby's options, a seat (`seatKey`). */
export const Highlight = Object.freeze({
  OPTIONS: 'lobby-options',
});

/** Highlight key for a seat. */
export const seatKey = (player) => `seat:${player}`;

/** The options as a log line says them: the game's words, else `name: value`. */
function optionsText(o, game) {
  if (game && game.optionsText) return game.optionsText(o);
  return Object.entries(o).map(([name, value]) => `${name}: ${value}`).join(' · ');
}

/**
 * @param {object} ev the event
 * @param {{you: string, name: (id: string) => string}} ctx
 * @param {object|null} game the room's game module (games.js), which describes its own events
 * @returns {{text: string|null, flash: string[]}}
 */
export function describe(ev, ctx, game = null) {
  const me = ev.player === ctx.you;
  const name = ev.player ? ctx.name(ev.player) : '';
  const who = (key, params = {}) => t(me ? `ev.${key}.you` : `ev.${key}`, { name, ...params });
  switch (ev.kind) {
    case EventKind.JOINED:
    case EventKind.LEFT:
    case EventKind.CONNECTED:
    case EventKind.DISCONNECTED:
    case EventKind.AWAY:
    case EventKind.BACK:
      return { text: me ? null : t(`ev.${ev.kind}`, { name }), flash: [seatKey(ev.player)] };
    case EventKind.HOST_CHANGED:
      return { text: who(ev.kind), flash: [seatKey(ev.player)] };
    case EventKind.BOT_ADDED:
      return { text: t('ev.bot_added', { name, level: t(`level.${ev.level}`) }), flash: [seatKey(ev.player)] };
    case EventKind.TOOK_OVER:
      return { text: t('ev.took_over', { name }), flash: [seatKey(ev.player)] };
    case EventKind.OPTIONS:
      return { text: t('ev.options', { options: optionsText(ev.options || {}, game) }), flash: [Highlight.OPTIONS] };
    case EventKind.REMATCH: // the host sent everyone back to the lobby (R16.5)
      return { text: who(ev.kind), flash: [] };
    case ClientEvent.PLAYED_FOR_YOU: // this seat was played while away (R17.2)
      return { text: t('ev.played_for_you'), flash: [] };
    default:
      return (game && game.describe && game.describe(ev, ctx)) || { text: null, flash: [] };
  }
}
