// R18.4 and R18.5 in the client's pure parts: the crisp window this phone shows ends
// early by the measured delay (state.js crispEnd), so a tap before its end reaches
// the server within the credit it gives; a 4403 "moved" close means the seat moved
// to another phone (net/socket.js); the move link carries the code in its fragment.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { setLanguage } from '../../../web/js/i18n.js';
import { applyUpdate } from '../../../web/js/update.js';
import { initialState } from '../../../web/js/state.js';
import { canCrisp, crispEnd } from '../../../web/js/games/crisp/rules.js';
import { CloseCode } from '../../../web/js/protocol.js';
import { Status } from '../../../web/js/games/crisp/protocol.js';
import { closeOutcome } from '../../../web/js/net/socket.js';
import { moveLink } from '../../../web/js/render/move.js';
import { loadGame } from '../../../web/js/games.js';

await loadGame('crisp'); // the rooms of these tests are Crisp's (web/js/games/crisp/)

globalThis.document = { documentElement: {} };
globalThis.fetch = async (url) => {
  const body = readFileSync(new URL(url), 'utf-8');
  return { ok: true, status: 200, json: async () => JSON.parse(body) };
};
await setLanguage('en');

const NOW = 1_764_430_000_000;
const CLOSES = NOW + 3000;

function view(lag) {
  const player = (id, seat) => ({ id, name: id, seat, connected: true, total: 0, ready: false });
  const window = { player: 'p1', closes_at: CLOSES };
  return {
    version: 7, code: 'K7QX', status: Status.PLAYING, you: 'p1', host: 'p1', dealer: 'p2', round: 1,
    players: [player('p1', 0), player('p2', 1)], turn: null, legal: ['crisp'],
    crisp: { caller: null, window, windows: [window], final_turns_left: [] },
    options: { limit: 100, draw_seconds: null, discard_draw: false }, history: [], lag_ms: lag,
  };
}

test('r18_4 without a measured delay the window ends at closes_at', () => {
  for (const lag of [null, undefined, 0]) {
    const v = view(lag);
    assert.equal(crispEnd(v, v.crisp.window), CLOSES);
    assert.ok(canCrisp(v, CLOSES - 1));
    assert.ok(!canCrisp(v, CLOSES));
  }
});

test('r18_4 a slow phone ends its window early by its delay, and by what the cap does not credit', () => {
  const slow = view(150);
  assert.equal(crispEnd(slow, slow.crisp.window), CLOSES - 150);
  assert.ok(canCrisp(slow, CLOSES - 151));
  assert.ok(!canCrisp(slow, CLOSES - 150));
  const slower = view(400); // 300 ms credited (R18.4): 100 ms more on top of the delay
  assert.equal(crispEnd(slower, slower.crisp.window), CLOSES - 500);
});

test('r18_4 the crisp bar counts down to the early end', () => {
  const state = { ...initialState(), screen: 'room', code: 'K7QX' };
  const msg = { type: 'update', seq: 2, now: NOW, view: view(150), events: [] };
  const { state: next, effects } = applyUpdate(state, msg, NOW);
  assert.equal(next.crispWindow.closes_at, CLOSES);
  assert.equal(next.crispWindow.total, 3000 - 150);
  assert.ok(effects.some((e) => e.type === 'wake' && e.after === 3000 - 150 + 15));
});

test('r18_5 a 4403 that says moved is a seat moved to another phone; any other 4403 a removal', () => {
  assert.equal(closeOutcome(CloseCode.KICKED, 'moved to another device'), 'moved');
  assert.equal(closeOutcome(CloseCode.KICKED, 'kicked'), 'removed');
  assert.equal(closeOutcome(CloseCode.KICKED), 'removed');
});

test('r18_5 the move link keeps the code in its fragment', () => {
  const link = moveLink('https://crisp.example', 'K7QXM3RT', 'ABCDEFGHJK');
  assert.equal(link, 'https://crisp.example/r/K7QXM3RT#move=ABCDEFGHJK');
  assert.equal(new URL(link).pathname, '/r/K7QXM3RT');
  assert.equal(new URL(link).hash, '#move=ABCDEFGHJK');
});
