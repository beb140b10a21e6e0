// `outcome_unknown` (protocol.md, v1.1): the server sent the action to its store but
// could not learn whether it was saved. The client must not offer the action again
// until the next update says what the table is (web/js/update.js); every other
// error unblocks the taps at once.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { setLanguage, text } from '../../../web/js/i18n.js';
import { applyUpdate, UNTIL_NEXT_UPDATE } from '../../../web/js/update.js';
import { initialState } from '../../../web/js/state.js';
import { ErrorCode, Status } from '../../../web/js/games/crisp/protocol.js';
import { pending } from '../../../web/js/render/parts.js';
import { loadGame } from '../../../web/js/games.js';

await loadGame('crisp'); // the rooms of these tests are Crisp's (web/js/games/crisp/)

// i18n.js fetches i18n/<lang>.json next to itself (a file: URL here).
globalThis.document = { documentElement: {} };
globalThis.fetch = async (url) => {
  const body = readFileSync(new URL(url), 'utf-8');
  return { ok: true, status: 200, json: async () => JSON.parse(body) };
};
await setLanguage('en');

const NOW = 1_764_430_000_000;

function view(extra = {}) {
  const player = (id, seat) => ({ id, name: id, seat, connected: true, total: 0, ready: false });
  return {
    version: 7, code: 'K7QX', status: Status.PLAYING, you: 'p1', host: 'p1', dealer: 'p2', round: 1,
    players: [player('p1', 0), player('p2', 1)],
    options: { limit: 100, draw_seconds: null, discard_draw: false },
    turn: { player: 'p1', may_start_at: NOW - 5000, draw_deadline: null, drawn_from: null, final: false, extra_draws: 0, kings: [] },
    crisp: { caller: null, window: null, windows: [], final_turns_left: [] },
    legal: ['draw'], holding: null, stock_count: 40, discard_top: '7H', discard_count: 1, peek_ends_at: null,
    ...extra,
  };
}

const update = (v) => ({ type: 'update', seq: 2, now: NOW, view: v, events: [] });
const blocked = (state, local) => pending({ S: state, local });

function afterTap() {
  const base = { ...initialState(), screen: 'room', code: 'K7QX', conn: 'open' };
  const { state } = applyUpdate(base, update(view()), NOW);
  return { ...state, pending: NOW + 2000 }; // actions.js: a tap waits up to 2 s
}

test('outcome_unknown keeps the taps blocked until the next update, however long it takes', () => {
  const err = { type: 'error', code: ErrorCode.OUTCOME_UNKNOWN, message: 'unknown', ref: 'm1' };
  const { state } = applyUpdate(afterTap(), err, NOW + 500);
  assert.equal(state.pending, UNTIL_NEXT_UPDATE);
  assert.equal(blocked(state, NOW + 60_000), true); // long after the 2 s of a tap
  assert.equal(text(state.toasts.at(-1).msg), 'The server could not confirm that — wait a moment before trying again.');
  assert.equal(state.view.version, 7); // the table is not changed by the error
  // The next update, the same table or a new one, says what is true and unblocks.
  for (const v of [view(), view({ version: 8, holding: 'QS', legal: ['swap', 'discard', 'queen'] })]) {
    const next = applyUpdate(state, update(v), NOW + 900).state;
    assert.equal(next.pending, 0);
    assert.equal(blocked(next, NOW + 900), false);
  }
});

test('outcome_unknown blocks even an action sent without waiting (ready), and keeps an options draft', () => {
  const s0 = { ...afterTap(), pending: 0, optionsDraft: { limit: 50 } };
  const { state } = applyUpdate(s0, { type: 'error', code: ErrorCode.OUTCOME_UNKNOWN, message: '' }, NOW);
  assert.equal(blocked(state, NOW + 10_000), true);
  assert.deepEqual(state.optionsDraft, { limit: 50 });
});

test('store_unavailable and the engine refusals unblock at once: nothing changed', () => {
  for (const code of [ErrorCode.STORE_UNAVAILABLE, ErrorCode.BUSY, ErrorCode.NOT_YOUR_TURN]) {
    const { state } = applyUpdate(afterTap(), { type: 'error', code, message: '' }, NOW + 100);
    assert.equal(state.pending, 0, code);
    assert.equal(blocked(state, NOW + 100), false, code);
  }
});
