// The replay's steps (web/js/games/crisp/steps.js, R18.2), the memory review's words
// (web/js/games/crisp/memory.js, R18.3) in every language, and what a watcher's page
// does with its updates and closes (R18.1: update.js, net/socket.js); under Node
// (tests/web/test_web_units.py runs this file).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { setLanguage } from '../../../web/js/i18n.js';
import { replaySteps, turnOf, moveAt, stepMs } from '../../../web/js/games/crisp/steps.js';
import { changedBy } from '../../../web/js/games/crisp/memory.js';
import { applyUpdate } from '../../../web/js/update.js';
import { initialState } from '../../../web/js/state.js';
import { closeOutcome } from '../../../web/js/net/socket.js';
import { loadGame } from '../../../web/js/games.js';

await loadGame('crisp'); // the rooms of these tests are Crisp's (web/js/games/crisp/)

globalThis.document = { documentElement: {} };
globalThis.fetch = async (url) => {
  const text = readFileSync(new URL(url), 'utf-8');
  return { ok: true, status: 200, json: async () => JSON.parse(text) };
};
await setLanguage('en');

// Ana (p1) deals; Budi (p2) plays first. The stock: QD KD 4C 5C 7C 8C ...
const REPLAY = {
  round: 1, dealer: 'p1', options: { limit: 100, draw_seconds: null, discard_draw: false, watchers: true },
  deal: { hands: { p1: ['TH', '9H', '8H'], p2: ['AS', '2S', '3S'] }, stock: ['QD', 'KD', '4C', '5C', '7C', '8C'], discard: [] },
  moves: [
    { i: 0, at: 1, kind: 'peek', player: 'p2', slot: 'left', card: 'AS' },
    { i: 1, at: 1, kind: 'peek', player: 'p1', slot: 'left', card: 'TH' },
    { i: 2, at: 2, kind: 'turn_started', player: 'p2', final: false },
    { i: 3, at: 3, kind: 'drew', player: 'p2', source: 'stock', card: 'QD' },
    { i: 4, at: 4, kind: 'queen', player: 'p2', slot: 'middle', target: 'p1', target_slot: 'left', card: 'QD',
      own_card: '2S', target_card: 'TH' },
    { i: 5, at: 4, kind: 'peek', player: 'p1', slot: 'left', card: '2S' },
    { i: 6, at: 5, kind: 'turn_started', player: 'p1', final: false },
    { i: 7, at: 6, kind: 'drew', player: 'p1', source: 'stock', card: 'KD' },
    { i: 8, at: 7, kind: 'king', player: 'p1', extra_draws: 2, card: 'KD' },
    { i: 9, at: 8, kind: 'drew', player: 'p1', source: 'stock', card: '4C' },
    { i: 10, at: 9, kind: 'swapped', player: 'p1', slot: 'right', discarded: '8H' },
    { i: 11, at: 10, kind: 'drew', player: 'p1', source: 'stock', card: '5C' },
    { i: 12, at: 11, kind: 'discarded', player: 'p1', card: '5C', timeout: false },
    { i: 13, at: 12, kind: 'turn_started', player: 'p2', final: false },
  ],
  reveal: null,
  memory: {},
};

test('R18.2: the steps of a replay, from the deal, every card where it is', () => {
  const steps = replaySteps(REPLAY);
  assert.equal(steps.length, REPLAY.moves.length + 1);
  assert.equal(steps[0].move, null);
  assert.deepEqual(steps[0].hands, REPLAY.deal.hands);
  assert.deepEqual(steps[1].marks, { 'p2:left': 'look' });
  const queen = steps[5]; // after the Queen: Budi's middle and Ana's left exchanged
  assert.deepEqual(queen.hands, { p1: ['2S', '9H', '8H'], p2: ['AS', 'TH', '3S'] });
  assert.deepEqual(queen.marks, { 'p2:middle': 'queen', 'p1:left': 'queen' });
  assert.deepEqual(queen.pile, ['QD']);
  assert.deepEqual(steps[9].kings, ['KD']); // R9.3: beside the piles during the turn
  const swapped = steps[11];
  assert.deepEqual(swapped.hands.p1, ['2S', '9H', '4C']);
  assert.deepEqual(swapped.pile, ['QD', '8H']);
  assert.deepEqual(swapped.marks, { 'p1:right': 'swap' });
  const next = steps[14]; // the next turn: the King went on the pile
  assert.deepEqual(next.pile, ['QD', '8H', '5C', 'KD']);
  assert.deepEqual(next.kings, []);
  assert.deepEqual(next.stock, ['7C', '8C']);
  assert.equal(next.turn, 3);
  assert.deepEqual(steps[4].held, { player: 'p2', card: 'QD' }); // the Queen drawn, held
  assert.ok(stepMs(steps[0]) > stepMs(steps[3]) && stepMs(steps[1]) < stepMs(steps[4]));
});

test('R18.3: who changed a card, and in which turn, in every language', async () => {
  assert.equal(turnOf(REPLAY, 4), 1);
  assert.equal(turnOf(REPLAY, 10), 2);
  assert.equal(moveAt(REPLAY, 4).kind, 'queen');
  const view = { you: 'p1', players: [{ id: 'p1', name: 'Ana', seat: 0 }, { id: 'p2', name: 'Budi', seat: 1 }] };
  const plain = (s) => s.replace(/[\u2066-\u2069]/g, '');
  const want = {
    en: ["Budi's Queen, turn 1", 'your Queen, turn 1'],
    ar: ['ملكة Budi، الدور 1', 'ملكتك، الدور 1'],
    id: ['Queen Budi, giliran ke-1', 'Queen-mu, giliran ke-1'],
  };
  for (const [code, [theirs, yours]] of Object.entries(want)) {
    await setLanguage(code);
    assert.equal(plain(changedBy(view, REPLAY, 4)), theirs, code);
    assert.equal(plain(changedBy({ ...view, you: 'p2' }, REPLAY, 4)), yours, code);
  }
  await setLanguage('en');
});

test('R18.1: a watcher\'s update is no removal; its closes say why it must go', () => {
  const view = {
    code: 'K7QXM3RT', status: 'lobby', you: null, watching: true, watchers: 1, players: [{ id: 'p1', name: 'Ana', seat: 0 }],
    legal: [], holding: null, turn: null, crisp: null, options: {}, history: [],
  };
  const { state, effects } = applyUpdate(initialState(), { type: 'update', seq: 1, now: 1, view, events: [] }, 1);
  assert.deepEqual(effects.filter((e) => e.type === 'fatal'), []);
  assert.equal(state.view.watching, true);
  assert.equal(closeOutcome(4403, 'watching is off', true), 'watchOff');
  assert.equal(closeOutcome(4413, '', true), 'watchFull');
  assert.equal(closeOutcome(4401, '', true), 'gone');
  assert.equal(closeOutcome(4404, '', true), 'gone');
  assert.equal(closeOutcome(1012, '', true), 'now');
  assert.equal(closeOutcome(4403, 'kicked'), 'removed'); // a player's 4403 is unchanged
  assert.equal(closeOutcome(4413), 'removed');
});
