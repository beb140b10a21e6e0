// "How to play": the frame (title, Back) around the rules of a game, in the
// page's language: the room's game, or on the home screen the game chosen there
// (its module's `help`, games.js, loaded when How to play opens). Opened by the
// "?" button of the header, from the home screen and from the table alike; the
// game goes on meanwhile, and Back (or Escape) returns to it.

import { h } from '../dom.js';
import { t } from '../i18n.js';
import { gameModule } from '../games.js';
import { helpGame } from '../state.js';
import { gameMissing } from './parts.js';

export function help(ctx) {
  const game = gameModule(helpGame(ctx.S));
  const close = h('button', { type: 'button', class: 'btn', 'data-testid': 'help-close', onclick: ctx.act.toggleHelp },
    t('help.back'));
  return h('article', { class: 'help panel', 'data-testid': 'help', 'aria-labelledby': 'help-title' },
    h('div', { class: 'help-head' }, h('h1', { id: 'help-title' }, t('help.title')), close),
    game && game.help ? game.help(ctx) : gameMissing(helpGame(ctx.S)),
    h('div', { class: 'help-foot' }, h('button', {
      type: 'button', class: 'btn primary wide', onclick: ctx.act.toggleHelp,
    }, t('help.back'))));
}
