// The lobby, the same for every game: the room code with its link and QR code,
// the players with their presence (the host can remove them, computer players
// too), whether the room is locked (a removal locks it; only the host opens it
// again), computer players to add (the host), the game's options as GET
// /api/games lists them (the host sets them), Start, and Leave.

import { h } from '../dom.js';
import { t, has } from '../i18n.js';
import { playerById } from '../state.js';
import { gameId, gameModule } from '../games.js';
import { qrModule } from '../lazy.js';
import { codeGroups, formatCode } from '../net/api.js';
import { BotLevel } from '../protocol.js';
import { Highlight, seatKey } from '../events.js';
import { pending, flash, seatTags, nameEl, playerName, nameOf, presenceTags, gameName } from './parts.js';
import { watchBar, watchersChip } from './watch.js';

/** The computer players' levels the host may pick (R17.1; "hard": protocol v1.2). */
const BOT_LEVELS = Object.values(BotLevel);

export function lobby(ctx) {
  const { S, act } = ctx;
  const v = S.view;
  const isHost = v.host === v.you;
  const link = `${publicBase()}/r/${v.code}`;
  const canShare = typeof navigator.share === 'function';
  const hostName = playerById(v, v.host) ? nameOf(v, v.host) : '';
  const seats = seatRule(S);
  return h('div', { class: 'lobby' },
    v.watching ? watchBar(ctx) : null, // R18.1
    // a rematch brought everyone back here (R16.5): said on the page itself, covering nothing
    S.rematchBy ? h('p', { class: 'panel rematch-note', role: 'status', 'data-testid': 'rematch-note' },
      S.rematchBy === v.you ? t('ev.rematch.you') : t('ev.rematch', { name: nameOf(v, S.rematchBy) })) : null,
    h('section', { class: 'panel room' },
      h('div', { class: 'room-info' },
        // the panel's heading: "Room code" and the code itself, which is what it is about
        h('h2', { class: 'room-heading' },
          h('span', { class: 'label' }, t('lobby.code')),
          h('span', { class: 'code', 'data-testid': 'room-code', dir: 'ltr' },
            codeGroups(v.code).map((g, i) => h('span', { key: i, class: 'code-group' }, g)))),
        h('p', { class: 'link', dir: 'ltr' }, link.replace(/^https?:\/\//, '')),
        // which game, once the server offers more than one
        (S.games || []).length > 1
          ? h('p', { class: 'note', 'data-testid': 'room-game' }, t('lobby.game', { name: gameName(gameId(v)) })) : null,
        h('button', {
          type: 'button', class: 'btn wide', 'data-testid': 'share-link', onclick: () => act.share(link),
        }, canShare ? t('lobby.share') : t('lobby.copy'))),
      h('div', { class: 'qr', 'data-testid': 'qr' }, qrCode(link, t('lobby.qr', { code: formatCode(v.code) }))),
      localWarning()),
    lockPanel(ctx, isHost),
    h('section', { class: 'panel' },
      h('div', { class: 'players-head' }, h('h2', null, t('lobby.playersOf', { count: v.players.length, n: seats.max })),
        watchersChip(v)), // R18.1: how many watch
      h('ul', { class: 'players', 'data-testid': 'player-list' },
        v.players.map((p) => h('li', {
          key: p.id, class: `player ${p.connected || p.is_bot ? 'on' : 'off'} ${flash(ctx, seatKey(p.id))}`,
          'data-testid': `player-${p.id}`, 'data-connected': p.connected ? 'true' : 'false',
          'data-bot': p.is_bot ? 'true' : 'false',
        },
        h('span', { class: 'dot', 'aria-hidden': 'true' }, p.is_bot ? '◆' : p.connected ? '●' : '○'),
        h('span', { class: 'pname' }, nameEl(playerName(p))),
        seatTags({ host: p.id === v.host, you: p.id === v.you, bot: presenceTags(p).bot }),
        p.is_bot ? null : h('span', { class: 'presence' }, p.connected ? t('lobby.online') : t('lobby.offline')),
        isHost && p.id !== v.you ? h('button', {
          type: 'button', class: 'btn small', 'data-testid': `kick-${p.id}`,
          'aria-label': t('lobby.kickLabel', { name: playerName(p) }), onclick: () => act.kick(p.id),
        }, t('lobby.kick')) : null)))),
    isHost ? botsPanel(ctx) : null,
    optionsPanel(ctx, isHost),
    isHost
      ? h('button', {
        type: 'button', class: 'btn primary wide big', 'data-testid': 'start-game',
        disabled: v.players.length < seats.min || pending(ctx), onclick: act.start,
      }, v.players.length < seats.min ? t('lobby.needTwo') : t('lobby.start'))
      : h('p', { class: 'note center' }, t('lobby.waitHost', { name: hostName })),
    v.watching ? h('p', { class: 'note' }, t('watch.note')) : h('button', {
      type: 'button', class: 'btn wide leave', 'data-testid': 'leave-room', onclick: act.askLeave,
    }, t('leave.button')));
}

/** The room's game as GET /api/games lists it (null before the list came). */
export function gameInfo(S, id) {
  return (S.games || []).find((g) => g.id === id) || null;
}

/** The game's seat range (GET /api/games), else 2 to 8. */
function seatRule(S) {
  const seats = (gameInfo(S, gameId(S.view)) || {}).seats || {};
  return { min: Number.isInteger(seats.min) ? seats.min : 2, max: Number.isInteger(seats.max) ? seats.max : 8 };
}

/** The host adds computer players (R17.1) up to the game's seats, at a level. */
function botsPanel(ctx) {
  const { S, act } = ctx;
  const full = S.view.players.length >= seatRule(S).max;
  return h('section', { class: 'panel bots', 'aria-label': t('lobby.addBot') },
    h('label', { class: 'field' },
      h('span', null, t('lobby.botLevel')),
      h('select', {
        'data-testid': 'bot-level', value: S.botLevel,
        onchange: (e) => act.setBotLevel(e.target.value),
      }, BOT_LEVELS.map((level) => h('option', { key: level, value: level, selected: level === S.botLevel }, t(`level.${level}`))))),
    h('button', {
      type: 'button', class: 'btn wide', 'data-testid': 'add-bot',
      disabled: full || pending(ctx), onclick: act.addBot,
    }, h('span', { 'aria-hidden': 'true' }, '🤖 '), t('lobby.addBot')),
    h('p', { class: 'note' }, t('lobby.botsNote')));
}

/** Where phones reach this server: the server's CRISP_PUBLIC_URL (a meta tag of
 * the page, crisp/server/shell.py), else the address this page was opened at. */
export function publicBase() {
  const meta = document.querySelector('meta[name="crisp-public-url"]');
  const url = meta && meta.getAttribute('content');
  return url ? url.replace(/\/+$/, '') : location.origin;
}

const LOOPBACK = /^(localhost|127(\.\d+){3}|\[::1\])$/i;

/** A link to this computer's own loopback address reaches no phone: say so, and how to fix it. */
function localWarning() {
  if (document.querySelector('meta[name="crisp-public-url"]') || !LOOPBACK.test(location.hostname)) return null;
  return h('div', { class: 'localwarn', role: 'note', 'data-testid': 'public-url-warning' },
    h('p', null, h('strong', null, t('lobby.localTitle', { host: location.hostname }))),
    h('p', null, t('lobby.localFix', { setting: 'CRISP_PUBLIC_URL' })));
}

/** The QR code of the link, once its module is loaded (routing.js loads it for
 * the lobby); until then its square stays empty. */
function qrCode(link, label) {
  const qr = qrModule();
  return qr ? qr.qrSvg(link, label) : null;
}

/** Locked (docs/protocol-additions.md, "Locked rooms"): no one new may join. A
 * removal locks the room; the host opens it again, or locks it at any time. */
function lockPanel(ctx, isHost) {
  const { S, act } = ctx;
  const locked = !!S.view.locked;
  if (!locked && !isHost) return null;
  return h('section', { class: `panel lock ${locked ? 'locked' : ''}`, 'data-testid': 'lock-panel', 'data-locked': locked ? 'true' : 'false' },
    locked ? h('p', { class: 'note', role: 'status' }, `🔒 ${t('lobby.locked')}`) : null,
    isHost ? h('button', {
      type: 'button', class: 'btn small', 'data-testid': locked ? 'unlock-room' : 'lock-room',
      disabled: pending(ctx) || S.conn !== 'open', onclick: () => act.lock(!locked),
    }, locked ? t('lobby.unlock') : t('lobby.lock')) : null);
}

/** The room's options: the game's own as GET /api/games lists them (each with
 * its choices), else as the game's module knows them, else the view's own; the
 * host sets them in the lobby (R16.1). A yes/no option is a check box, any other
 * a list. Names and values are the game's words (its module's `optionLabel`,
 * `optionValue`), else the strings `opt.<name>` / `opt.<name>.<value>`, else
 * the option's name and value themselves: an option nobody translated still
 * shows, and never breaks the page. */
function optionsPanel(ctx, isHost) {
  const { S, act } = ctx;
  const o = { ...S.view.options, ...(S.optionsDraft || {}) };
  const dis = !isHost || S.conn !== 'open';
  const specs = optionSpecs(S);
  return h('section', { class: `panel options ${flash(ctx, Highlight.OPTIONS)}`, 'aria-label': t('lobby.options') },
    h('h2', null, t('lobby.options')),
    Object.entries(specs).map(([name, spec]) => optionField(name, spec, o[name], dis, act, gameModule(gameId(S.view)))),
    isHost ? null : h('p', { class: 'note' }, t('lobby.hostSets')));
}

/** name -> {default, choices}: the listed options in the game module's order. */
function optionSpecs(S) {
  const id = gameId(S.view);
  const game = gameModule(id);
  const listed = (gameInfo(S, id) || {}).options;
  const known = (game && game.options) || {};
  const specs = {};
  for (const name of Object.keys(known)) if (!listed || name in listed) specs[name] = known[name];
  for (const [name, spec] of Object.entries(listed || {})) specs[name] = spec;
  for (const [name, value] of Object.entries(S.view.options || {})) {
    if (!(name in specs)) specs[name] = { default: value, choices: typeof value === 'boolean' ? [true, false] : [value] };
  }
  return specs;
}

const choiceKey = (value) => (value === null ? 'none' : String(value));

function optionLabel(game, name) {
  const own = game && game.optionLabel ? game.optionLabel(name) : null;
  if (own) return own;
  return has(`opt.${name}`) ? t(`opt.${name}`) : name;
}

function optionValue(game, name, value) {
  const own = game && game.optionValue ? game.optionValue(name, value) : null;
  if (own) return own;
  const key = `opt.${name}.${choiceKey(value)}`;
  return has(key) ? t(key) : value === null ? '—' : String(value);
}

function optionField(name, spec, current, disabled, act, game) {
  const choices = Array.isArray(spec.choices) ? spec.choices : [];
  const testid = `option-${name.replace(/_/g, '-')}`;
  const value = current === undefined ? spec.default : current;
  if (choices.length && choices.every((c) => typeof c === 'boolean')) {
    return h('label', { key: name, class: 'check' },
      h('input', {
        type: 'checkbox', 'data-testid': testid, disabled, checked: !!value,
        onchange: (e) => act.setOption({ [name]: e.target.checked }),
      }),
      optionLabel(game, name));
  }
  const list = choices.some((c) => choiceKey(c) === choiceKey(value)) ? choices : [value, ...choices];
  return h('label', { key: name, class: 'field' },
    h('span', null, optionLabel(game, name)),
    h('select', {
      'data-testid': testid, disabled, value: choiceKey(value),
      onchange: (e) => {
        const chosen = list.find((c) => choiceKey(c) === e.target.value);
        if (chosen !== undefined) act.setOption({ [name]: chosen });
      },
    }, list.map((c) => h('option', { key: choiceKey(c), value: choiceKey(c), selected: choiceKey(c) === choiceKey(value) },
      optionValue(game, name, c)))));
}
