// The home screen: name, create a room, join one by code, and the games this
// server offers (GET /api/games: each one's name, players and what it is, in the
// page's language; the one chosen is the new room's). Arriving by a shared link
// (/r/{code}) fills the code, puts Join first and shows who is waiting.
// Also reads the form's two inputs for actions.js and routing.js.

import { h } from '../dom.js';
import { t, text, listOf, has } from '../i18n.js';
import { DEFAULT_GAME, Status } from '../protocol.js';
import { formatCode } from '../net/api.js';
import { gameName } from './parts.js';
import { gameId } from '../games.js';

/** The name input, or null when the home form is not on screen. */
export const nameField = () => document.querySelector('[data-testid="name-input"]');

/** What is typed in the room-code input ('' when it is not on screen). */
export function typedCode() {
  const el = document.querySelector('[data-testid="room-code-input"]');
  return el ? el.value : '';
}

export function home(ctx) {
  const { S, act } = ctx;
  const info = S.homeInfo;
  let infoLine = null;
  if (S.homeError) infoLine = h('p', { class: 'note warn', role: 'alert' }, text(S.homeError));
  else if (info) {
    const code = formatCode(info.code);
    let line = t('home.started', { code });
    if (info.status === Status.LOBBY) {
      line = info.locked ? t('home.locked', { code })
        : t('home.roomInfo', { code, count: info.players.length, names: listOf(info.players.map((p) => p.name)) });
    }
    // which game the room plays, once the server offers more than one
    const game = (S.games || []).length > 1
      ? h('p', { class: 'note', 'data-testid': 'room-game' }, t('lobby.game', { name: gameName(gameId(info)) })) : null;
    infoLine = [h('p', { class: 'note' }, line), game, watchOffer(ctx, info)];
  }
  return h('div', { class: 'home' },
    h('section', { class: 'hero' },
      h('h1', null, 'Crisp'),
      h('p', { class: 'tagline' }, t('app.tagline'))),
    S.lastRoom && S.lastRoom !== S.homeCode
      ? h('button', { type: 'button', class: 'btn wide', onclick: () => act.rejoin(S.lastRoom) }, t('home.back', { code: formatCode(S.lastRoom) }))
      : null,
    homeForm(ctx, infoLine),
    S.homeCode ? null : gamesPanel(ctx));
}

/** The games this server offers, once listed (below the form: nothing on the page
 * above this moves when it comes): each one's name, players and what it is; with
 * more than one, the one to create is chosen here. */
function gamesPanel(ctx) {
  const { S, act } = ctx;
  const games = S.games || [];
  if (!games.length) return null;
  if (games.length === 1) {
    return h('section', { class: 'panel games', 'aria-labelledby': 'games-title', 'data-testid': 'games' },
      h('h2', { id: 'games-title' }, t('home.gameHere')),
      h('div', { class: 'game-choice chosen', 'data-testid': `game-${games[0].id}` }, gameText(games[0])));
  }
  const chosen = S.homeGame && games.some((g) => g.id === S.homeGame) ? S.homeGame
    : (games.find((g) => g.id === DEFAULT_GAME) || games[0]).id;
  return h('section', { class: 'panel games', 'aria-labelledby': 'games-title', 'data-testid': 'games' },
    h('h2', { id: 'games-title' }, t('home.games')),
    h('div', { class: 'game-list', role: 'radiogroup', 'aria-labelledby': 'games-title' },
      games.map((g) => {
        return h('label', { key: g.id, class: `game-choice ${g.id === chosen ? 'chosen' : ''}` },
          h('input', {
            type: 'radio', name: 'game', value: g.id, checked: g.id === chosen, 'data-testid': `game-${g.id}`,
            onchange: () => act.chooseGame(g.id),
          }),
          gameText(g));
      })));
}

/** A game's name, players and one line of what it is (the name alone, its id,
 * for a game this page has no words for). */
function gameText(g) {
  const seats = g.seats || {};
  let players = null;
  if (Number.isInteger(seats.min) && seats.min === seats.max) players = t('home.seatsExact', { n: seats.min });
  else if (Number.isInteger(seats.min) && Number.isInteger(seats.max)) players = t('home.seats', { from: seats.min, to: seats.max });
  return h('span', { class: 'game-text' },
    h('span', { class: 'game-name' }, gameName(g.id)),
    players ? h('span', { class: 'game-seats' }, players) : null,
    has(`game.${g.id}.about`) ? h('span', { class: 'game-about' }, t(`game.${g.id}.about`)) : null);
}

/** R18.1: a room already playing, or full, may be watched (unless its host said no). */
function watchOffer(ctx, info) {
  const full = info.players.length >= 8;
  if ((info.status === Status.LOBBY && !full) || (info.options && info.options.watchers === false)) return null;
  return h('div', { class: 'watch-offer' },
    h('p', { class: 'note' }, t('home.watchNote')),
    h('button', {
      type: 'button', class: 'btn wide', 'data-testid': 'watch-room', onclick: () => ctx.act.watch(info.code),
    }, h('span', { 'aria-hidden': 'true' }, '◉ '), t('home.watch')));
}

function homeForm(ctx, infoLine) {
  const { S, act } = ctx;
  const invited = !!S.homeCode; // arrived by a shared link: joining comes first
  const create = h('button', {
    type: 'button', class: `btn wide ${invited ? '' : 'primary'}`, 'data-testid': 'create-room',
    disabled: S.busy, onclick: act.create,
  }, t('home.create'));
  const join = [
    h('label', { for: 'code' }, t('home.code')),
    h('div', { class: 'row' },
      h('input', {
        id: 'code', 'data-testid': 'room-code-input', type: 'text', maxlength: 12, class: 'code-input',
        autocapitalize: 'characters', autocomplete: 'off', spellcheck: 'false', initValue: S.homeCode,
        placeholder: 'K7QX-M3RT', dir: 'ltr', enterkeyhint: 'go', oninput: act.codeTyped,
      }),
      h('button', { type: 'submit', class: 'btn primary', 'data-testid': 'join-room', disabled: S.busy }, t('home.join'))),
    infoLine,
  ];
  return h('form', { class: 'panel form', onsubmit: (e) => { e.preventDefault(); act.submitHome(); }, novalidate: true },
    h('label', { for: 'name' }, t('home.name')),
    h('input', {
      id: 'name', 'data-testid': 'name-input', type: 'text', maxlength: 20, autocomplete: 'nickname',
      required: true, initValue: S.homeName, placeholder: t('home.namePlaceholder'), enterkeyhint: 'go',
    }),
    invited ? join : create,
    h('p', { class: 'or' }, h('span', null, invited ? t('home.orCreate') : t('home.or'))),
    invited ? create : join);
}
