// The Cribbage table's pure parts (web/js/games/cribbage/): the board's holes,
// skunk lines and leapfrogging pegs; the show's words for its items; which of
// your cards a tap may give or lay, and why not. Realistic views come from
// tests/web/fixtures/cribbage_views.json (seeded games, cribbage_make.py).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { streets, holeOf, colX, skunkLines, leapfrog } from '../../../web/js/games/cribbage/board.js';
import { itemSaying, phrases, sayCount } from '../../../web/js/games/cribbage/words.js';
import { cardStates, giveCount, cardValue, mustGive, myTurn } from '../../../web/js/games/cribbage/rules.js';

const VIEWS = JSON.parse(readFileSync(new URL('../fixtures/cribbage_views.json', import.meta.url), 'utf-8'));
const EN = JSON.parse(readFileSync(new URL('../../../web/i18n/en.json', import.meta.url), 'utf-8'));
/** English as the page says it (i18n.js's t without the bidi isolation). */
const t = (key, params = {}) => (EN[key] ?? key).replace(/\{(\w+)\}/g, (m, k) => (k in params ? String(params[k]) : m));

test('a 121 board has three streets of 40 holes, a 61 board two of 30', () => {
  assert.deepEqual(streets(121), { rows: 3, per: 40 });
  assert.deepEqual(streets(61), { rows: 2, per: 30 });
  assert.deepEqual(holeOf(0, 121), { row: 0, col: -1 }); // the start, before the track
  assert.deepEqual(holeOf(1, 121), { row: 0, col: 0 });
  assert.deepEqual(holeOf(40, 121), { row: 0, col: 39 });
  assert.deepEqual(holeOf(41, 121), { row: 1, col: 0 });
  assert.deepEqual(holeOf(120, 121), { row: 2, col: 39 });
  assert.deepEqual(holeOf(121, 121), { row: 2, col: 40 }); // the game hole
  assert.deepEqual(holeOf(130, 121), { row: 2, col: 40 });
  assert.deepEqual(holeOf(31, 61), { row: 1, col: 0 });
  assert.deepEqual(holeOf(61, 61), { row: 1, col: 30 });
});

test('every hole of a street is left of the next, inside the board, with a gap after each five', () => {
  for (const target of [121, 61]) {
    const { per } = streets(target);
    const xs = Array.from({ length: per + 2 }, (_, i) => colX(i - 1, target, 340));
    for (let i = 1; i < xs.length; i++) assert.ok(xs[i] > xs[i - 1], `${target}: col ${i - 1}`);
    assert.ok(xs[0] >= 0 && xs[xs.length - 1] <= 340);
    const step = xs[3] - xs[2]; // col 1 to col 2
    assert.ok(Math.abs((xs[6] - xs[5]) - 2 * step) < 1e-9, 'a gap between groups of five (col 4 to col 5)');
  }
});

test('the skunk lines are 91 and 61 of 121, 46 and 31 of 61; a lurch only the half; none when off', () => {
  assert.deepEqual(skunkLines(121, 'skunk').map((l) => [l.at, l.kind]), [[91, 'skunk'], [61, 'double']]);
  assert.deepEqual(skunkLines(61, 'skunk').map((l) => l.at), [46, 31]);
  assert.deepEqual(skunkLines(121, 'lurch').map((l) => [l.at, l.kind]), [[61, 'lurch']]);
  assert.deepEqual(skunkLines(121, 'off'), []);
});

test('the pegs leapfrog: the rear peg jumps past the front one to the new score', () => {
  let pegs = leapfrog(null, 0, 0);
  assert.deepEqual([pegs.a, pegs.b], [0, 0]);
  pegs = leapfrog(pegs, 5, 0); // 5 points: one peg stays at 0, the other goes to 5
  assert.deepEqual([pegs.a, pegs.b].sort((x, y) => x - y), [0, 5]);
  const at5 = pegs.a === 5 ? 'a' : 'b';
  pegs = leapfrog(pegs, 9, 5); // 4 more: the peg at 0 jumps to 9, the one at 5 stays
  assert.equal(pegs[at5], 5);
  assert.equal(pegs[at5 === 'a' ? 'b' : 'a'], 9);
  assert.equal(pegs.moved, at5 === 'a' ? 'b' : 'a');
  const same = leapfrog(pegs, 9, 5); // nothing new: nothing moves
  assert.equal(same.moved, null);
  // a view from elsewhere (a reload): the pegs are where the view says
  assert.deepEqual(leapfrog({ a: 1, b: 2 }, 30, 20), { a: 20, b: 30, moved: null });
});

test('the pegs of every fixture view stand at the score and at peg_from', () => {
  for (const [name, v] of Object.entries(VIEWS)) {
    for (const p of v.players) {
      const pegs = leapfrog(null, p.score, p.peg_from);
      assert.deepEqual([pegs.a, pegs.b], [p.peg_from, p.score], name);
      assert.ok(p.peg_from <= p.score, name);
    }
  }
});

test('the show says the count aloud with the running total: fifteen two, fifteen four, and a pair is six', () => {
  const items = [
    { kind: 'fifteen', cards: ['5H', 'TS'], points: 2 },
    { kind: 'fifteen', cards: ['5C', 'TS'], points: 2 },
    { kind: 'pair', cards: ['5H', '5C'], points: 2 },
  ];
  assert.equal(sayCount(items, t), 'fifteen 2, fifteen 4, and a pair is 6');
  assert.equal(sayCount(items, t, 1), 'fifteen 2');
  assert.equal(sayCount(items, t, 2), 'fifteen 2, fifteen 4');
  assert.equal(sayCount([], t), 'nineteen: nothing counts (0)');
  assert.deepEqual(phrases([
    { kind: 'run', cards: ['3H', '4S', '5D'], points: 3 },
    { kind: 'flush', cards: ['3H', '4H', '5H', '6H'], points: 4 },
    { kind: 'nobs', cards: ['JH'], points: 1 },
    { kind: 'pair_royal', cards: ['5H', '5C', '5S'], points: 6 },
    { kind: 'double_pair_royal', cards: ['5H', '5C', '5S', '5D'], points: 12 },
  ], t), ['a run of 3 is 3', 'a flush of 4 is 7', 'his nobs is 8', 'a pair royal is 14', 'a double pair royal is 26']);
  assert.deepEqual(itemSaying({ kind: 'run', cards: ['9H', 'TS', 'JD', 'QC'], points: 4 }, 10),
    ['game.cribbage.say.run', { total: 10, n: 4 }]);
});

test('every item kind has its words in every language, and every show of the fixtures ends at its points', () => {
  const kinds = ['fifteen', 'thirty_one', 'pair', 'pair_royal', 'double_pair_royal', 'run', 'go', 'flush', 'nobs', 'heels'];
  for (const code of ['en', 'ar', 'id']) {
    const file = JSON.parse(readFileSync(new URL(`../../../web/i18n/${code}.json`, import.meta.url), 'utf-8'));
    for (const kind of kinds) {
      const [key] = itemSaying({ kind, cards: [], points: 1 }, 1);
      assert.ok(key in file, `${code}: ${key}`);
      assert.notEqual(key, 'game.cribbage.say.plain', kind);
    }
    for (const note of ['crib_flush_needs_starter', 'flush_needs_four_in_hand']) assert.ok(`game.cribbage.note.${note}` in file, `${code} ${note}`);
  }
  for (const [name, v] of Object.entries(VIEWS)) {
    for (const e of v.show) {
      if (e.items == null) continue;
      const said = phrases(e.items, t);
      const last = said.length ? Number(said[said.length - 1].match(/(\d+)$/)[1]) : 0;
      assert.equal(last, e.points, `${name} ${e.whose}`);
    }
  }
});

test('the 20-point hand and the 29 hand of How to play add up', async () => {
  globalThis.document = undefined;
  const { EXAMPLES } = await import('../../../web/js/games/cribbage/help.js').catch(() => ({ EXAMPLES: null }));
  if (!EXAMPLES) return; // help.js draws with the shell's modules; its totals are checked in the browser test too
  const total = (ex) => ex.items.reduce((a, i) => a + i.points, 0);
  assert.deepEqual(EXAMPLES.map(total), [20, 29]);
});

test('giving: every card is enabled until enough are chosen; then only the chosen ones', () => {
  const v = VIEWS['give-2'];
  assert.equal(giveCount(v), 2);
  assert.ok(mustGive(v));
  assert.ok(cardStates(v).every((s) => s.enabled));
  const two = v.hand.slice(0, 2);
  const states = cardStates(v, two);
  assert.deepEqual(states.filter((s) => s.enabled).map((s) => s.card), two);
  assert.ok(states.filter((s) => !s.enabled).every((s) => s.reason === 'enough'));
  assert.equal(giveCount(VIEWS['give-3']), 1);
  assert.equal(giveCount(VIEWS['give-4']), 1);
  const given = { ...v, gave: two, hand: v.hand.slice(2), legal: v.legal.filter((x) => x !== 'give') };
  assert.ok(!mustGive(given));
  assert.ok(cardStates(given).every((s) => !s.enabled && s.reason === 'given'));
});

test('laying: only the playable cards on your turn; the others say over 31, or not your turn', () => {
  for (const n of ['2', '3', '4']) {
    const v = VIEWS[`play-${n}`];
    assert.ok(myTurn(v), n);
    const states = cardStates(v);
    assert.deepEqual(states.filter((s) => s.enabled).map((s) => s.card), v.playable, n);
    for (const s of states.filter((x) => !x.enabled)) {
      assert.equal(s.reason, 'over31');
      assert.ok(v.play.count + cardValue(s.card) > 31, `${n}: ${s.card} would fit`);
    }
    const theirs = { ...v, turn: { player: v.players[1].id, deadline: null } };
    assert.ok(cardStates(theirs).every((s) => !s.enabled && s.reason === 'notYourTurn'));
  }
  assert.deepEqual([cardValue('AS'), cardValue('9H'), cardValue('TD'), cardValue('KC')], [1, 9, 10, 10]);
});

test('a watcher has no hand: nothing to tap', () => {
  assert.deepEqual(cardStates({ ...VIEWS['play-2'], hand: null }), []);
});
