// The games this client can show (issue 35, docs/web-client.md "Games"): the
// shell (everything in web/js but games/) knows no card rule; each game's table
// picture, gestures, rules words and How to play are the module
// `games/<id>/index.js`, loaded with import() only when a room of that game
// (or its How to play) is opened. A view, or a room's look-up, without `game`
// is the default game's (protocol.md "v2 additions").
//
// A game module exports `game`, an object with (all but `id` optional):
//   id, screen(ctx) (every status but the lobby), atTable(view) (a turn is being
//   played: the tick redraws, notices go in the table's line), help(ctx) (How to
//   play), roomState() (the client state fields the game owns, reset with the
//   room), onEvent / afterUpdate / motions / playedWhileAway / expire
//   (update.js's hooks), describe(ev, ctx) (a log line), publicFields,
//   publicCard(ev), noticeText(S, notice), actions(kit) (its taps, merged into
//   ctx.act), keys (key -> test id of the button it clicks), onEscape(S, act),
//   animate(ev, you, delay), publicTable(view) (what storage keeps),
//   optionLabel(name), optionValue(name, value), optionChoices (when the server
//   does not list them), replayScreen(ctx), replaySteps(data), stepMs(step),
//   title(S) (the document title's mark), yourTurnScroll (a CSS selector).

import { DEFAULT_GAME } from './protocol.js';

const loaded = new Map();
const loading = new Map();
const failed = new Set();
const ID = /^[a-z][a-z0-9_]{0,31}$/;

/** The game id of a view or a room's look-up. */
export const gameId = (view) => (view && typeof view.game === 'string' && view.game) || DEFAULT_GAME;

/** The loaded module of game `id`, or null while it is not loaded. */
export const gameModule = (id) => loaded.get(id) || null;

/** The loaded module of a view's game, or null. */
export const gameOf = (view) => gameModule(gameId(view));

/** Whether game `id`'s module could not be loaded (this client has no table for
 * it, or the network failed): the shell says so instead of "Loading…". */
export const gameFailed = (id) => failed.has(id);

/** Load game `id`'s module (once; again after a failure). Resolves with its `game`;
 * rejects for an id this client has no module for. */
export function loadGame(id) {
  if (loaded.has(id)) return Promise.resolve(loaded.get(id));
  if (!ID.test(id)) {
    failed.add(id);
    return Promise.reject(new Error(`no game ${id}`));
  }
  if (!loading.has(id)) {
    loading.set(id, import(`./games/${id}/index.js`).then((m) => {
      if (!m.game || typeof m.game.screen !== 'function') throw new Error(`no table in games/${id}`);
      loaded.set(id, m.game);
      failed.delete(id);
      return m.game;
    }).catch((e) => {
      loading.delete(id);
      failed.add(id);
      throw e;
    }));
  }
  return loading.get(id);
}
