// The shell's games (web/js/games.js, issue 35): a view without `game` is Crisp's,
// a game's module loads once and by its id only, and a game this client has no
// module for says so (its name, else its id) instead of loading for ever.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { setLanguage, t } from '../../../web/js/i18n.js';
import { gameId, gameModule, gameOf, gameFailed, loadGame } from '../../../web/js/games.js';
import { gameMissing, gameName } from '../../../web/js/render/parts.js';
import { toHTML } from '../../../web/js/dom.js';

globalThis.document = { documentElement: {} };
globalThis.fetch = async (url) => {
  const body = readFileSync(new URL(url), 'utf-8');
  return { ok: true, status: 200, json: async () => JSON.parse(body) };
};

test('a view, a look-up or a stored table without game is Crisp\'s', () => {
  assert.equal(gameId(null), 'crisp');
  assert.equal(gameId({ code: 'K7QXM3RT' }), 'crisp');
  assert.equal(gameId({ game: 'cribbage' }), 'cribbage');
  assert.equal(gameId({ game: '' }), 'crisp');
});

test('a game module loads once, by its id, and offers its table', async () => {
  assert.equal(gameModule('crisp'), null);
  const [a, b] = await Promise.all([loadGame('crisp'), loadGame('crisp')]);
  assert.equal(a, b);
  assert.equal(gameOf({}), a);
  assert.equal(a.id, 'crisp');
  for (const hook of ['screen', 'atTable', 'help', 'onEvent', 'describe', 'actions', 'publicTable']) {
    assert.equal(typeof a[hook], 'function', hook);
  }
  assert.deepEqual(Object.keys(a.options), ['limit', 'draw_seconds', 'discard_draw', 'watchers']);
});

test('a game without a module, or a strange id, is said, not loaded for ever', async () => {
  await setLanguage('en');
  for (const id of ['nogame', '../crisp', 'Crisp', 'a/b']) {
    await assert.rejects(loadGame(id));
    assert.ok(gameFailed(id), id);
    assert.equal(gameModule(id), null);
  }
  assert.match(toHTML(gameMissing('nogame')), /This page cannot show a game of nogame yet\./);
  assert.match(toHTML(gameMissing('crisp')), /Loading…/); // loaded: never said missing
  assert.equal(gameName('nogame'), 'nogame');
  for (const lang of ['en', 'ar', 'id']) {
    await setLanguage(lang);
    assert.equal(gameName('crisp'), t('game.crisp.name'));
    assert.notEqual(t('game.cribbage.about'), 'game.cribbage.about');
  }
});
