// Crapette's table logic (web/js/games/crapette/, issue 37), run by Node's test
// runner on real views (tests/web/fixtures/crapette.json, made by a seeded game of
// crisp.games.crapette): only the view's `moves` light up, for the pile picked,
// under the table's names from either side; the move and the call sent; Polish
// plurals (one / few / many / other) of the table's counted strings; the module
// and its How to play in every language.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { setLanguage, t } from '../../../web/js/i18n.js';
import { loadGame } from '../../../web/js/games.js';
import { toHTML } from '../../../web/js/dom.js';
import {
  sources, targets, moveMessage, callMessage, tablePile, wirePile, lastMovedVersion, sideOf, callVersion,
} from '../../../web/js/games/crapette/moves.js';

globalThis.document = { documentElement: {} };
globalThis.fetch = async (url) => {
  const body = readFileSync(new URL(url), 'utf-8');
  return { ok: true, status: 200, json: async () => JSON.parse(body) };
};

const F = JSON.parse(readFileSync(new URL('../fixtures/crapette.json', import.meta.url), 'utf-8'));
const ALL_PILES = [
  ...[0, 1, 2, 3, 4, 5, 6, 7].flatMap((i) => [`tableau:${i}`, `foundation:${i}`]),
  ...['me', 'op'].flatMap((s) => ['crapette', 'stock', 'waste', 'turned'].map((p) => `${s}:${p}`)),
];

test('only the view\'s moves light up: the sources, then the targets of the pile picked', () => {
  for (const name of ['start', 'mid', 'waiting', 'right_call']) {
    for (const you of ['p1', 'p2']) {
      const v = F[name][you];
      const mover = v.turn && v.turn.player === you;
      const froms = new Set(v.moves.map((m) => tablePile(v, m.from, you)));
      assert.deepEqual(new Set(sources(v)), mover ? froms : new Set(), `${name} ${you}`);
      for (const pile of ALL_PILES) {
        const want = v.moves.filter((m) => tablePile(v, m.from, you) === pile).map((m) => tablePile(v, m.to, you));
        assert.deepEqual(targets(v, pile).sort(), mover ? want.sort() : [], `${name} ${you} ${pile}`);
      }
    }
  }
  assert.ok(F.mid.p1.moves.length > 0);
});

test('pile names: the wire is relative to the mover, the table to the viewer', () => {
  const v = F.mid.p1; // p1 moves
  assert.equal(tablePile(v, 'crapette', 'p1'), 'me:crapette');
  assert.equal(tablePile(v, 'opponent_waste', 'p1'), 'op:waste');
  assert.equal(tablePile(v, 'crapette', 'p2'), 'op:crapette');
  assert.equal(tablePile(v, 'opponent_crapette', 'p2'), 'me:crapette');
  assert.equal(tablePile(v, 'tableau:5', 'p2'), 'tableau:5');
  for (const mover of ['p1', 'p2']) {
    for (const wire of ['crapette', 'turned', 'opponent_crapette', 'opponent_waste', 'foundation:3']) {
      assert.equal(wirePile(v, tablePile(v, wire, mover), mover), wire);
    }
  }
  assert.equal(wirePile(v, 'me:waste', 'p1'), null); // never from one's own waste (K3.6)
  const p2view = F.mid.p2;
  assert.equal(sideOf(p2view, 'p2'), 'me');
  assert.equal(sideOf({ ...p2view, watching: true, you: null }, 'p1'), 'me'); // a watcher sees seat 0 below
});

test('a move is sent only when the view lists it, in the wire\'s names', () => {
  const v = F.mid.p1;
  const m = v.moves[0];
  const from = tablePile(v, m.from, 'p1');
  const to = tablePile(v, m.to, 'p1');
  assert.deepEqual(moveMessage(v, from, to), { type: 'move', from: m.from, to: m.to });
  const wrong = ALL_PILES.find((p) => !targets(v, from).includes(p));
  assert.equal(moveMessage(v, from, wrong), null);
  assert.equal(moveMessage(F.waiting.p1, from, to), null); // not your turn
});

test('the call names the last moved version seen, and the shown sequence under combination / strict', () => {
  const v = F.waiting.p1;
  assert.equal(v.turn.can_call, true);
  const events = [{ kind: 'moved', player: 'p2', version: 40 }, { kind: 'turned', player: 'p2' },
    { kind: 'moved', player: 'p2', version: 41 }, { kind: 'moved', player: 'p1', version: 99 }];
  const version = lastMovedVersion(events, 'p2', null);
  assert.equal(version, 41);
  assert.deepEqual(callMessage(v, version), { type: 'crapette', version: 41 });
  assert.equal(callMessage(v, null), null); // no move seen yet
  assert.equal(callVersion({ view: v, crVersion: 41 }), 41);
  assert.equal(callVersion({ view: v, crVersion: null }), v.version); // a reload mid-turn: the view's version
  assert.equal(callVersion({ view: { ...v, turn: { ...v.turn, moves: 0 } }, crVersion: null }), null);
  assert.equal(callMessage({ ...v, turn: { ...v.turn, can_call: false } }, 41), null);
  for (const mode of ['combination', 'strict']) {
    const cv = { ...v, options: { ...v.options, calls: mode } };
    // the mover is p2: their crapette is the viewer's "op:crapette", the viewer's waste their "opponent_waste"
    const msg = callMessage(cv, 41, [['op:crapette', 'foundation:2'], ['tableau:1', 'me:waste']]);
    assert.deepEqual(msg, {
      type: 'crapette', version: 41,
      show: [{ from: 'crapette', to: 'foundation:2' }, { from: 'tableau:1', to: 'opponent_waste' }],
    });
  }
});

test('Polish plurals: one, few, many and other for the table\'s counts', async () => {
  await setLanguage('pl');
  const left = (n) => t('game.crapette.left', { count: n });
  assert.equal(left(1), 'została 1 karta');
  assert.equal(left(2), 'zostały 2 karty');
  assert.equal(left(4), 'zostały 4 karty');
  assert.equal(left(5), 'zostało 5 kart');
  assert.equal(left(12), 'zostało 12 kart');
  assert.equal(left(22), 'zostały 22 karty');
  assert.equal(left(25), 'zostało 25 kart');
  assert.equal(left(0), 'zostało 0 kart');
  assert.equal(left(1.5), 'zostało 1,5 karty');
  assert.equal(t('opt.secondsValue', { count: 30 }), '30 sekund');
  assert.equal(t('opt.secondsValue', { count: 23 }), '23 sekundy');
  assert.equal(t('watch.count', { count: 1 }), '1 osoba ogląda');
  assert.equal(t('watch.count', { count: 3 }), '3 osoby oglądają');
  assert.equal(t('watch.count', { count: 11 }), '11 osób ogląda');
});

test('the module draws every fixture view and How to play in every language', async () => {
  const game = await loadGame('crapette');
  const ctx = (view) => ({ S: { view, log: [], notices: [], crShow: [], flashes: {}, pending: 0 }, act: {}, now: 1000000 });
  for (const lang of ['en', 'ar', 'id', 'pl']) {
    await setLanguage(lang);
    for (const name of ['start', 'mid', 'waiting', 'right_call', 'game_over']) {
      const html = toHTML(game.screen(ctx(F[name].p1)));
      assert.ok(html.includes('cr-board'), `${lang} ${name}`);
      assert.doesNotMatch(html, /game\.crapette\./, `${lang} ${name}: a key shows`);
    }
    const help = toHTML(game.help());
    assert.doesNotMatch(help, /game\.crapette\.help/, `${lang}: How to play`);
  }
});
