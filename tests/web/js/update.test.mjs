// Unit tests of the web client's pure parts, run by Node's test runner
// (tests/web/test_web_units.py runs this file): applyUpdate and expire
// (web/js/update.js), the close-code outcomes (net/socket.js), the seat order, the
// seat tags and the log's text (render/parts.js). English strings are loaded
// from web/i18n.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { setLanguage, text } from '../../../web/js/i18n.js';
import {
  applyUpdate, expire, withToast, currentNotice, FLASH_MS, TOAST_MS, NOTICE_MS,
} from '../../../web/js/update.js';
import { playedWhileAway, PEEK_MS, PEEK_PHASE_MS } from '../../../web/js/games/crisp/update.js';
import { movesText, changedSlots } from '../../../web/js/games/crisp/events.js';
import { initialState, serverTime } from '../../../web/js/state.js';
import { closeOutcome } from '../../../web/js/net/socket.js';
import { CloseCode } from '../../../web/js/protocol.js';
import { ErrorCode, Status } from '../../../web/js/games/crisp/protocol.js';
import { seatOrder, seatTags, presenceTags, eventText, noticeText, nameOf } from '../../../web/js/render/parts.js';
import { loadGame } from '../../../web/js/games.js';

await loadGame('crisp'); // the rooms of these tests are Crisp's (web/js/games/crisp/)

// i18n.js fetches i18n/<lang>.json next to itself (a file: URL here) and sets
// <html lang dir>: give it both.
globalThis.document = { documentElement: {} };
globalThis.fetch = async (url) => {
  const text = readFileSync(new URL(url), 'utf-8');
  return { ok: true, status: 200, json: async () => JSON.parse(text) };
};
await setLanguage('en');

const NOW = 1_764_430_000_000; // local time (Date.now()) when a message arrives
const AHEAD = 5000; // the server clock is this far ahead of the phone's

function deepFreeze(o) {
  if (o && typeof o === 'object' && !Object.isFrozen(o)) {
    Object.freeze(o);
    for (const v of Object.values(o)) deepFreeze(v);
  }
  return o;
}

function player(id, seat, extra = {}) {
  return { id, name: { p1: 'Ana', p2: 'Ben', p3: 'Cai', p4: 'Dee' }[id], seat, connected: true, total: 0, ready: false, ...extra };
}

function makeView(extra = {}) {
  return {
    code: 'K7QX', status: Status.PLAYING, you: 'p1', host: 'p1', dealer: 'p3', round: 1,
    players: [player('p1', 0), player('p2', 1), player('p3', 2)],
    options: { limit: 100, draw_seconds: null, discard_draw: false },
    turn: { player: 'p2', may_start_at: NOW + AHEAD - 1000, draw_deadline: null, drawn_from: null, final: false, extra_draws: 0 },
    crisp: { caller: null, window: null, final_turns_left: [] },
    legal: [], holding: null, stock_count: 40, discard_top: '7H', discard_count: 1, peek_ends_at: null,
    ...extra,
  };
}

const update = (view, events = [], now = NOW + AHEAD) => ({ type: 'update', seq: 2, now, view, events });

/** A room state that has seen one update of `view`; frozen, so that a change to it throws. */
function inRoom(view = makeView(), changes = {}) {
  const base = { ...initialState(), screen: 'room', code: 'K7QX', conn: 'open' };
  const { state } = applyUpdate(base, update(view), NOW - 1000);
  return deepFreeze({ ...state, ...changes });
}

/** applyUpdate on a frozen state and message; also checks that neither changed. */
function apply(state, msg, now = NOW) {
  deepFreeze(msg);
  const before = JSON.stringify([state, msg]);
  const out = applyUpdate(state, msg, now);
  assert.equal(JSON.stringify([state, msg]), before);
  return out;
}

test('an update replaces the view whole and unblocks the taps', () => {
  const s0 = inRoom(makeView(), { pending: NOW + 2000, optionsDraft: { limit: 50 } });
  const view = makeView({ stock_count: 39, turn: { ...makeView().turn, player: 'p3' } });
  const { state, effects } = apply(s0, update(view));
  assert.equal(state.view, view);
  assert.equal(state.pending, 0);
  assert.equal(state.optionsDraft, null);
  assert.deepEqual(effects, []);
  assert.notEqual(state, s0);
});

test('the server clock offset is the largest of the last 12 samples', () => {
  let s = inRoom();
  assert.equal(s.clock.offset, AHEAD + 1000); // the first update: sent at NOW+AHEAD, arrived at NOW-1000
  for (let i = 0; i < 12; i++) s = apply(deepFreeze(s), update(makeView(), [], NOW + AHEAD + i)).state;
  assert.equal(s.clock.samples.length, 12);
  assert.equal(s.clock.offset, AHEAD + 11); // the early sample is gone
  assert.equal(serverTime(s.clock, NOW), NOW + AHEAD + 11);
  const noNow = apply(deepFreeze(s), { ...update(makeView()), now: undefined }).state;
  assert.equal(noNow.clock, s.clock);
});

test('an error shows its message as a toast and changes nothing else', () => {
  const s0 = inRoom(makeView(), { pending: NOW + 2000 });
  const { state, effects } = apply(s0, { type: 'error', code: ErrorCode.NOT_YOUR_TURN, message: 'no', ref: 'm3' });
  assert.deepEqual(state.toasts, [{ id: s0.serial + 1, msg: { key: 'error.not_your_turn', params: {} }, until: NOW + TOAST_MS }]);
  assert.equal(text(state.toasts[0].msg), 'It is not your turn.');
  assert.equal(state.view, s0.view);
  assert.equal(state.log, s0.log);
  assert.equal(state.pending, 0);
  assert.deepEqual(effects, []);
  const unknown = apply(s0, { type: 'error', code: 'no_such_code', message: 'x' }).state;
  assert.equal(text(unknown.toasts[0].msg), 'Something went wrong (no_such_code).');
});

test('at most three toasts stay', () => {
  let s = inRoom();
  for (let i = 0; i < 5; i++) s = withToast(s, `t${i}`, NOW + i);
  assert.deepEqual(s.toasts.map((x) => text(x.msg)), ['t2', 't3', 't4']);
  assert.equal(new Set(s.toasts.map((x) => x.id)).size, 3);
});

test('anything but an update with a view or an error changes nothing', () => {
  const s0 = inRoom();
  for (const msg of [null, 'update', 7, [], {}, { type: 'update' }, { type: 'update', view: null }, { type: 'hello' }]) {
    const out = applyUpdate(s0, msg, NOW);
    assert.equal(out.state, s0);
    assert.deepEqual(out.effects, []);
  }
});

test('r16_3 a peek shows the card for 5 s, in memory only: the log names the slot, never the card', () => {
  const s0 = inRoom();
  const { state } = apply(s0, update(makeView(), [{ kind: 'peek', player: 'p1', slot: 'left', card: 'QS' }]));
  assert.deepEqual(state.peeks, { left: { card: 'QS', from: NOW, until: NOW + PEEK_MS } });
  assert.equal(eventText(state, state.log.at(-1).ev), 'You looked at your left card');
  assert.ok(!JSON.stringify(state.log).includes('QS') && !JSON.stringify(state.log).includes('Q♠'));
  assert.equal(state.flashes['slot:p1:left'], NOW + FLASH_MS);
  // Someone else's peek carries no card and shows none.
  const other = apply(s0, update(makeView(), [{ kind: 'peek', player: 'p2', slot: 'right' }])).state;
  assert.deepEqual(other.peeks, {});
});

test('r16_2 the deal\'s peeks stay for the peek phase and go when it ends', () => {
  const peekView = makeView({ status: Status.PEEK, turn: null, peek_ends_at: NOW + AHEAD + 10000 });
  const s0 = inRoom(peekView);
  const events = [{ kind: 'peek', player: 'p1', slot: 'left', card: 'AS' }, { kind: 'peek', player: 'p1', slot: 'right', card: '9D' }];
  const s1 = apply(s0, update(peekView, events)).state;
  assert.deepEqual(Object.keys(s1.peeks), ['left', 'right']);
  assert.equal(s1.peeks.right.until, NOW + PEEK_PHASE_MS);
  const s2 = apply(deepFreeze(s1), update(makeView())).state;
  assert.deepEqual(s2.peeks, {});
});

test('a card that moves takes its peek with it (your swap, a Queen on your card)', () => {
  const peeks = { left: { card: 'AS', from: NOW, until: NOW + PEEK_MS }, right: { card: '9D', from: NOW, until: NOW + PEEK_MS } };
  const s0 = inRoom(makeView(), { peeks });
  const swapped = apply(s0, update(makeView(), [{ kind: 'swapped', player: 'p1', slot: 'left', discarded: 'AS' }])).state;
  assert.deepEqual(Object.keys(swapped.peeks), ['right']);
  const queen = { kind: 'queen', player: 'p2', slot: 'middle', target: 'p1', target_slot: 'right', card: 'QH' };
  const s1 = apply(s0, update(makeView(), [queen])).state;
  assert.deepEqual(Object.keys(s1.peeks), ['left']);
  // Someone else's Queen took one of your cards: a notice that matters says so (R8.3).
  const notice = currentNotice(s1, NOW);
  assert.deepEqual(notice.ev, s1.log.at(-1).ev);
  assert.equal(notice.matters, true);
  assert.equal(noticeText(s1, notice), 'Ben used a Queen on your right card (gave you their middle card)');
});

const notice = (id, kind, matters, extra = {}) => (
  { id, ev: { kind, player: 'p2', ...extra }, matters, at: NOW, shownMs: 0, since: null });

test('a new round forgets the peeks, the Queen choice, a passing notice, a Queen notice and the ready flag', () => {
  const s0 = inRoom(makeView(), {
    peeks: { left: { card: 'AS', from: NOW, until: NOW + PEEK_MS } },
    queen: { mine: 'left', target: null }, readyRound: 1,
    notices: [notice(90, 'crisp', false), notice(91, 'queen', true, { target: 'p1' }),
      notice(92, 'host_changed', true, { player: 'p1' })],
  });
  const view = makeView({ status: Status.PEEK, round: 2, turn: null, legal: ['ready'] });
  const { state } = apply(s0, update(view, [{ kind: 'round_started', round: 2, dealer: 'p1' }]));
  assert.deepEqual(state.peeks, {});
  assert.equal(state.queen, null);
  // the new host's notice still waits its turn; the round's own notices are over
  assert.deepEqual(state.notices.map((n) => n.id), [92]);
  assert.equal(state.readyRound, null);
});

test('the Queen choice ends when the queen is no longer legal', () => {
  const legalQueen = makeView({ legal: ['queen', 'discard'], holding: 'QD' });
  const s0 = inRoom(legalQueen, { queen: { mine: 'left', target: null } });
  assert.deepEqual(apply(s0, update(legalQueen)).state.queen, { mine: 'left', target: null });
  assert.equal(apply(s0, update(makeView())).state.queen, null);
});

test('r16_4 a card taken from the discard pile is public, one from the stock is not', () => {
  const s0 = inRoom();
  const fromDiscard = apply(s0, update(makeView(), [{ kind: 'drew', player: 'p2', source: 'discard', card: '7H' }])).state;
  assert.deepEqual(fromDiscard.publicHolding, { player: 'p2', card: '7H' });
  const fromStock = apply(deepFreeze(fromDiscard), update(makeView(), [{ kind: 'drew', player: 'p3', source: 'stock' }])).state;
  assert.equal(fromStock.publicHolding, null);
});

test('r16_3 the log keeps only public cards: a stock draw and the round\'s hands stay out', () => {
  const s0 = inRoom();
  const events = [
    { kind: 'drew', player: 'p1', source: 'stock', card: 'KD' },
    { kind: 'drew', player: 'p2', source: 'discard', card: '7H' },
    { kind: 'round_over', hands: { p1: ['AS', '2C', '3H'] }, sums: { p1: 6 }, scores: { p1: 6 }, totals: { p1: 6 }, caller: null },
  ];
  const { state } = apply(s0, update(makeView(), events));
  const logged = state.log.slice(-3).map((l) => l.ev);
  assert.deepEqual(logged, [
    { kind: 'drew', player: 'p1', source: 'stock' },
    { kind: 'drew', player: 'p2', source: 'discard', card: '7H' },
    { kind: 'round_over' },
  ]);
  assert.deepEqual(state.log.slice(-3).map((l) => eventText(state, l.ev)),
    ['You drew from the stock', 'Ben took 7♥ from the discard pile', 'The round is over']);
});

test('your turn starting asks for the buzz and the scroll; another player\'s does not', () => {
  const s0 = inRoom();
  const mine = apply(s0, update(makeView(), [{ kind: 'turn_started', player: 'p1', final: false }]));
  assert.deepEqual(mine.effects.filter((e) => e.type === 'yourTurn'), [{ type: 'yourTurn' }]);
  const theirs = apply(s0, update(makeView(), [{ kind: 'turn_started', player: 'p2', final: false }]));
  assert.deepEqual(theirs.effects.filter((e) => e.type === 'yourTurn'), []);
});

test('r10 a crisp call is a passing notice; your own window gets its bar and a wake-up when it closes', () => {
  const s0 = inRoom();
  const server = serverTime(s0.clock, NOW);
  const view = makeView({ legal: ['crisp'], crisp: { caller: null, window: { player: 'p1', closes_at: server + 3000 }, final_turns_left: [] } });
  const { state, effects } = apply(s0, update(view, [{ kind: 'crisp', player: 'p2' }], NOW + AHEAD));
  assert.deepEqual(state.notices.map((n) => [n.ev, n.matters, n.at]), [[{ kind: 'crisp', player: 'p2' }, false, NOW]]);
  assert.equal(noticeText(state, currentNotice(state, NOW)), 'Ben called CRISP!');
  assert.equal(currentNotice(state, NOW + NOTICE_MS), null); // gone 4 s after it came
  assert.equal(expire(state, NOW + NOTICE_MS).notices.length, 0);
  const total = view.crisp.window.closes_at - serverTime(state.clock, NOW);
  assert.deepEqual(state.crispWindow, { closes_at: view.crisp.window.closes_at, total });
  assert.ok(effects.some((e) => e.type === 'wake' && e.after === total + 15));
  // Another player's window has no bar here.
  const theirs = makeView({ crisp: { caller: null, window: { player: 'p2', closes_at: server + 3000 }, final_turns_left: [] } });
  assert.equal(apply(deepFreeze(state), update(theirs)).state.crispWindow, null);
});

test('r10_4 the clock enables the next draw: a wake-up at may_start_at, never more than a minute away', () => {
  const s0 = inRoom();
  const server = serverTime(s0.clock, NOW);
  const soon = makeView({ turn: { ...makeView().turn, player: 'p1', may_start_at: server + 2000 } });
  assert.deepEqual(apply(s0, update(soon)).effects, [{ type: 'wake', after: 2015 }]);
  const far = makeView({ turn: { ...makeView().turn, may_start_at: server + 3_600_000 } });
  assert.deepEqual(apply(s0, update(far)).effects, [{ type: 'wake', after: 60000 }]);
  const past = makeView({ turn: { ...makeView().turn, may_start_at: server - 1 } });
  assert.deepEqual(apply(s0, update(past)).effects, []);
});

test('a seat that is no longer in the room is removed: a fatal effect, no events applied', () => {
  const s0 = inRoom();
  const view = makeView({ players: [player('p2', 1), player('p3', 2)] });
  const { state, effects } = apply(s0, update(view, [{ kind: 'left', player: 'p1' }]));
  assert.deepEqual(effects, [{ type: 'fatal', reason: 'removed' }]);
  assert.equal(state.log.length, s0.log.length);
});

test('events about a player who left still name them (names are remembered in the state)', () => {
  const s0 = inRoom();
  assert.equal(s0.names.p3, 'Cai');
  const view = makeView({ players: [player('p1', 0), player('p2', 1)] });
  const { state } = apply(s0, update(view, [{ kind: 'left', player: 'p3' }]));
  assert.equal(eventText(state, state.log.at(-1).ev), 'Cai left the room');
  assert.equal(state.names.p3, 'Cai');
  // Events about you say "you", whatever your name.
  const own = apply(s0, update(makeView(), [{ kind: 'swapped', player: 'p1', slot: 'left', discarded: '4C' }])).state;
  assert.equal(eventText(own, own.log.at(-1).ev), 'You swapped your left card (4♣ discarded)');
});

test('the log keeps the last 60 lines, each with its own id', () => {
  let s = inRoom();
  const ev = { kind: 'discarded', player: 'p2', card: '4C' };
  for (let i = 0; i < 7; i++) s = apply(deepFreeze(s), update(makeView(), Array(10).fill(ev))).state;
  assert.equal(s.log.length, 60);
  assert.equal(new Set(s.log.map((l) => l.id)).size, 60);
  assert.equal(s.log.at(-1).id, s.serial);
});

test('a notice that matters waits its turn and stays 4 s on screen, counting only the time it was seen', () => {
  const s0 = inRoom(makeView(), {
    notices: [notice(7, 'host_changed', true, { player: 'p1' }), notice(8, 'queen', true, { target: 'p1' }),
      notice(9, 'crisp', false)],
  });
  // the oldest that matters comes first, before a passing one
  assert.equal(currentNotice(s0, NOW).id, 7);
  // never drawn (a toast over it, the page hidden): it waits, however long
  let s = expire(s0, NOW + 60_000);
  assert.deepEqual(s.notices.map((n) => n.id), [7, 8]); // the passing one went after 4 s
  // on screen for 1.5 s, then covered (a toast) for 10 s, then on screen again
  s = expire(s, NOW + 60_000, { drawn: 7 });
  s = expire(s, NOW + 61_500, { drawn: 7 });
  s = expire(s, NOW + 61_600, { drawn: null });
  assert.equal(s.notices[0].shownMs, 1600);
  s = expire(s, NOW + 71_600, { drawn: null });
  assert.equal(currentNotice(s, NOW + 71_600).id, 7);
  s = expire(s, NOW + 71_700, { drawn: 7 });
  s = expire(s, NOW + 74_000, { drawn: 7 });
  assert.equal(currentNotice(s, NOW + 74_000).id, 7); // 1.6 + 2.3 s seen: not yet
  s = expire(s, NOW + 74_200, { drawn: 7 });
  // 4 s seen: the next one's turn
  assert.deepEqual(s.notices.map((n) => n.id), [8]);
  assert.equal(currentNotice(s, NOW + 74_200).id, 8);
  // nothing changed: the same state
  assert.equal(expire(s, NOW + 74_300), s);
});

test('notices that matter wait behind each other; the new host\'s comes first, however late', () => {
  const s0 = inRoom(makeView({ host: 'p3' }));
  const queen = { kind: 'queen', player: 'p2', slot: 'left', target: 'p1', target_slot: 'right', card: 'QH' };
  const s1 = apply(s0, update(makeView({ host: 'p1' }), [queen, { kind: 'host_changed', player: 'p1' },
    { kind: 'crisp', player: 'p2' }])).state;
  assert.deepEqual(s1.notices.map((n) => [n.ev.kind, n.matters]), [['queen', true], ['host_changed', true], ['crisp', false]]);
  // the new host is told first (R17.4: at once), the Queen's notice waits its turn
  assert.equal(noticeText(s1, currentNotice(s1, NOW)), 'You are the host now');
  let s = expire(s1, NOW, { drawn: currentNotice(s1, NOW).id });
  s = expire(s, NOW + NOTICE_MS, { drawn: currentNotice(s, NOW).id });
  assert.equal(noticeText(s, currentNotice(s, NOW + NOTICE_MS)), 'Ben used a Queen on your right card (gave you their left card)');
  // the role moving on again takes the stale notice with it
  const s2 = apply(deepFreeze(s), update(makeView({ host: 'p2' }), [{ kind: 'host_changed', player: 'p2' }])).state;
  assert.ok(!s2.notices.some((n) => n.ev.kind === 'host_changed'));
});

test('expire drops what is over and returns the same state when nothing is', () => {
  const s0 = deepFreeze({
    ...inRoom(),
    peeks: { left: { card: 'AS', from: NOW, until: NOW + 10 }, right: { card: '2C', from: NOW, until: NOW + 100 } },
    flashes: { stock: NOW + 10, discard: NOW + 100 },
    toasts: [{ id: 1, text: 'a', until: NOW + 10 }, { id: 2, text: 'b', until: NOW + 100 }],
  });
  assert.equal(expire(s0, NOW), s0);
  const s1 = expire(s0, NOW + 10);
  assert.deepEqual(Object.keys(s1.peeks), ['right']);
  assert.deepEqual(Object.keys(s1.flashes), ['discard']);
  assert.deepEqual(s1.toasts.map((x) => x.id), [2]);
  assert.equal(expire(s1, NOW + 50), s1);
});

test('close codes: what the client does about each (docs/web-client.md)', () => {
  assert.equal(closeOutcome(CloseCode.BAD_HELLO), 'token');
  assert.equal(closeOutcome(CloseCode.REPLACED), 'replaced');
  assert.equal(closeOutcome(CloseCode.ROOM_GONE), 'gone');
  assert.equal(closeOutcome(CloseCode.KICKED), 'removed');
  assert.equal(closeOutcome(4499), 'removed');
  assert.equal(closeOutcome(CloseCode.RATE), 'backoff');
  assert.equal(closeOutcome(CloseCode.RESTART), 'now');
  for (const code of [CloseCode.TRY_LATER, CloseCode.TOO_BIG, CloseCode.INTERNAL, 1006, 4500, undefined]) {
    assert.equal(closeOutcome(code), 'backoff', String(code));
  }
});

test('r3_1 seat order: by seat, or clockwise starting after a player', () => {
  const v = makeView({ players: [player('p3', 2), player('p1', 0), player('p4', 3), player('p2', 1)] });
  assert.deepEqual(seatOrder(v).map((p) => p.id), ['p1', 'p2', 'p3', 'p4']);
  assert.deepEqual(seatOrder(v, 'p3').map((p) => p.id), ['p4', 'p1', 'p2']);
  assert.deepEqual(seatOrder(v, 'p1').map((p) => p.id), ['p2', 'p3', 'p4']);
  assert.deepEqual(seatOrder(v, 'p9').map((p) => p.id), ['p1', 'p2', 'p3', 'p4']);
});

const words = (tags) => tags.map((tag) => tag.children.map((c) => (typeof c === 'string' ? c : c.children.join(''))).join(''));

test('seat tags come in one fixed order, only those that apply', () => {
  assert.deepEqual(words(seatTags({ offline: true, dealer: true, crisp: false })), ['dealer', '⚠ offline']);
  assert.deepEqual(seatTags({}), []);
  assert.deepEqual(words(seatTags({ you: true, host: true })), ['♛ host', 'you']);
});

test('r17 computer players and away seats: their tags differ, and presence tags per seat', () => {
  assert.deepEqual(words(seatTags({ host: true, bot: 'easy' })), ['♛ host', 'computer · easy']);
  assert.deepEqual(words(seatTags({ bot: 'hard' })), ['computer · hard']);
  assert.deepEqual(words(seatTags({ botChip: 'normal' })), ['computer']);
  // an away friend is not a computer player (R17.2): another word, another badge
  assert.deepEqual(words(seatTags({ away: true })), ['away']);
  assert.equal(seatTags({ away: true })[0].props['data-testid'], 'away-badge');
  assert.deepEqual(presenceTags(player('p2', 1, { is_bot: true, bot_level: 'normal', connected: false })),
    { bot: 'normal', away: false, offline: false });
  // away: no longer "offline", the computer plays it; offline: not yet away
  assert.deepEqual(presenceTags(player('p2', 1, { away: true, connected: false })), { bot: null, away: true, offline: false });
  assert.deepEqual(presenceTags(player('p2', 1, { connected: false })), { bot: null, away: false, offline: true });
  assert.deepEqual(presenceTags(player('p2', 1)), { bot: null, away: false, offline: false });
});

test('r17_1 a computer player\'s default name is said in the page\'s language; other names never change', async () => {
  const v = makeView({ players: [player('p1', 0), { ...player('p2', 1), name: 'Computer 2', is_bot: true, bot_level: 'easy' },
    { ...player('p3', 2), name: 'Computer 3' }] });
  assert.equal(nameOf(v, 'p2'), 'Computer 2');
  await setLanguage('id');
  try {
    assert.equal(nameOf(v, 'p2'), 'Komputer 2');
    assert.equal(nameOf(v, 'p3'), 'Computer 3'); // a human who chose that name
    const s = inRoom(v);
    assert.equal(eventText(s, { kind: 'discarded', player: 'p2', card: '4C' }), 'Komputer 2 membuang 4♣');
  } finally {
    await setLanguage('en');
  }
});

test('r17 the log says who is away, back, added, taken over; the new host is told by a notice', () => {
  const s0 = inRoom(makeView({ host: 'p2' }));
  const events = [
    { kind: 'away', player: 'p3' }, { kind: 'back', player: 'p3' },
    { kind: 'bot_added', player: 'p4', level: 'easy' }, { kind: 'took_over', player: 'p2' },
    { kind: 'host_changed', player: 'p1' },
  ];
  const view = makeView({ players: [...makeView().players, player('p4', 3, { is_bot: true, bot_level: 'easy' })] });
  const { state } = apply(s0, update(view, events));
  assert.deepEqual(state.log.slice(-5).map((l) => eventText(state, l.ev)), [
    'Cai is away: the computer plays for them', 'Cai is back and plays again',
    'Dee joined: a computer player (easy)', 'The computer plays for Ben for the rest of the game',
    'You are the host now',
  ]);
  const told = currentNotice(state, NOW);
  assert.deepEqual([told.ev, told.matters], [{ kind: 'host_changed', player: 'p1' }, true]);
  assert.equal(noticeText(state, told), 'You are the host now');
  // another player's new role is a log line, not a notice
  const other = apply(s0, update(view, [{ kind: 'host_changed', player: 'p3' }])).state;
  assert.deepEqual(other.notices, []);
  assert.equal(eventText(other, other.log.at(-1).ev), 'Cai is the host now');
  // your own away and back are not news to you
  const mine = apply(s0, update(view, [{ kind: 'away', player: 'p1' }, { kind: 'back', player: 'p1' }])).state;
  assert.equal(mine.log.length, s0.log.length);
});

test('r17_5 a refused leave is not a leave: the flag goes with the error', () => {
  const s0 = inRoom(makeView(), { leaving: true });
  const { state } = apply(s0, { type: 'error', code: 'wrong_phase', message: 'no' });
  assert.equal(state.leaving, false);
});

// ---- issue 11: a table you can follow

const names = (S) => ({ you: S.view.you, name: (id) => (id === S.view.you ? 'You' : S.names[id]) });

test('r16_4 each seat keeps its last moves until its next turn; the positions they changed are marked', () => {
  const s0 = inRoom();
  const queen = { kind: 'queen', player: 'p2', slot: 'left', target: 'p3', target_slot: 'right', card: 'QC' };
  const s1 = apply(s0, update(makeView(), [
    { kind: 'turn_started', player: 'p2', final: false },
    { kind: 'drew', player: 'p2', source: 'stock' },
    { kind: 'king', player: 'p2', extra_draws: 2, card: 'KS' },
    { kind: 'drew', player: 'p2', source: 'stock' },
    queen,
    { kind: 'drew', player: 'p2', source: 'stock' },
    { kind: 'swapped', player: 'p2', slot: 'middle', discarded: '8S' },
    { kind: 'turn_started', player: 'p3', final: false },
  ])).state;
  // the last two moves that say something, newest first; the stock draws go without saying
  assert.equal(movesText(s1.moves.p2, names(s1)), "swapped middle: 8♠ to the pile · Queen: left ⇄ Cai's right");
  assert.deepEqual(changedSlots(s1.moves), {
    'slot:p2:left': 'queen', 'slot:p3:right': 'queen', 'slot:p2:middle': 'swap',
  });
  assert.deepEqual(s1.moves.p3, []);
  // no private card in what the seats keep (R16.3): a stock draw has no card
  assert.ok(!JSON.stringify(s1.moves).includes('"card":"Q'));
  // p2's next turn starts: its line and its marks go; a new round forgets them all
  const s2 = apply(s1, update(makeView(), [{ kind: 'turn_started', player: 'p2', final: false }])).state;
  assert.deepEqual(changedSlots(s2.moves), {});
  const s3 = apply(s1, update(makeView(), [{ kind: 'round_started', round: 2, dealer: 'p1' }])).state;
  assert.deepEqual(s3.moves, {});
});

test('r14_2 a timeout is announced to everyone with the card discarded for them', () => {
  const s0 = inRoom();
  const s1 = apply(s0, update(makeView(), [
    { kind: 'timeout', player: 'p2' },
    { kind: 'discarded', player: 'p2', card: '5C', timeout: true },
    { kind: 'turn_started', player: 'p3', final: false },
  ])).state;
  assert.deepEqual(s1.notices.map((n) => n.matters), [false]); // one notice, passing: not yours
  assert.equal(noticeText(s1, currentNotice(s1, NOW)), 'Ben ran out of time: 5♣ discarded');
  assert.equal(movesText(s1.moves.p2, names(s1)), 'out of time: 5♣ discarded');
  // a timed-out King extra draw discards nothing: the timeout alone is said
  const s2 = apply(s0, update(makeView(), [{ kind: 'timeout', player: 'p3' }])).state;
  assert.equal(noticeText(s2, currentNotice(s2, NOW)), 'Cai ran out of time');
  assert.equal(movesText(s2.moves.p3, names(s2)), 'ran out of time');
  // your own time ran out: that matters to you, and waits its turn
  const s3 = apply(s0, update(makeView(), [{ kind: 'timeout', player: 'p1' },
    { kind: 'discarded', player: 'p1', card: '5C', timeout: true }])).state;
  assert.deepEqual(s3.notices.map((n) => n.matters), [true]);
  assert.equal(noticeText(s3, currentNotice(s3, NOW)), 'You ran out of time: 5♣ discarded');
});

test('moves animate one after the other, public faces only', () => {
  const s0 = inRoom();
  const { effects } = apply(s0, update(makeView(), [
    { kind: 'drew', player: 'p2', source: 'stock', card: 'QH' },
    { kind: 'swapped', player: 'p2', slot: 'left', discarded: '9C' },
  ]));
  const motions = effects.filter((e) => e.type === 'motion');
  assert.deepEqual(motions.map((m) => [m.ev.kind, m.delay > 0]), [['drew', false], ['swapped', true]]);
  assert.equal(motions[0].ev.card, undefined); // a stock card is never public
});

test('r14_3 the draw timer counts the draw time only, not the 2 s before the player may start', () => {
  const s0 = inRoom();
  const server = serverTime(s0.clock, NOW);
  const turn = { ...makeView().turn, may_start_at: server + 2000, draw_deadline: server + 2000 + 30000 };
  const s1 = apply(s0, update(makeView({ turn }))).state;
  assert.deepEqual(s1.drawClock, { deadline: turn.draw_deadline, total: 30000 });
  const s2 = apply(s1, update(makeView({ turn: { ...turn, draw_deadline: null } }))).state;
  assert.equal(s2.drawClock, null);
});

test('r16_5 a rematch sends everyone back to the lobby: the log says so, the seats forget their moves', () => {
  const s0 = inRoom();
  const s1 = apply(s0, update(makeView(), [{ kind: 'swapped', player: 'p2', slot: 'left', discarded: '9C' }])).state;
  assert.equal(s1.moves.p2.length, 1);
  const lobby = makeView({ status: Status.LOBBY, turn: null, round: 0, history: [] });
  const s2 = apply(s1, update(lobby, [{ kind: 'rematch', player: 'p2' }])).state;
  assert.deepEqual(s2.moves, {});
  assert.equal(eventText(s2, s2.log.at(-1).ev), 'Ben started a rematch: everyone is back in the room, same seats and options');
});

test('r17 "is back" is said once: a return from away says more than the connection alone', () => {
  const s0 = inRoom();
  const { state } = apply(s0, update(makeView(), [{ kind: 'connected', player: 'p3' }, { kind: 'back', player: 'p3' }]));
  assert.deepEqual(state.log.slice(s0.log.length).map((l) => eventText(state, l.ev)), ['Cai is back and plays again']);
  const short = apply(s0, update(makeView(), [{ kind: 'connected', player: 'p3' }])).state;
  assert.deepEqual(short.log.slice(s0.log.length).map((l) => eventText(short, l.ev)), ['Cai is back']);
});

test('r17_2 a player back after a while is told the computer played for them (the first update, seq 1)', () => {
  const playing = (player, extra = {}) => makeView({ turn: { ...makeView().turn, player }, ...extra });
  const withTotal = (view, total) => ({ ...view, players: view.players.map((p) => (p.id === 'p1' ? { ...p, total } : p)) });
  // it was your turn when you left, and it is someone else's now
  assert.deepEqual(playedWhileAway(playing('p1'), playing('p2')), { kind: 'played_for_you', player: 'p1', from: 0, to: 0 });
  // the turn went past your seat (p3 -> p1 -> p2)
  assert.ok(playedWhileAway(playing('p3'), playing('p2')));
  // it did not reach you (p2 -> p3), or it waits for you (p3 -> p1)
  assert.equal(playedWhileAway(playing('p2'), playing('p3')), null);
  assert.equal(playedWhileAway(playing('p3'), playing('p1')), null);
  // a whole turn of the table: every seat drew, yours too
  assert.ok(playedWhileAway(playing('p2', { stock_count: 40 }), playing('p2', { stock_count: 36 })));
  // the round ended: your seat played in it, unless you had called crisp
  const over = withTotal(makeView({ status: Status.ROUND_OVER, turn: null }), 14);
  assert.deepEqual(playedWhileAway(playing('p2'), over), { kind: 'played_for_you', player: 'p1', from: 0, to: 14 });
  const called = playing('p2', { crisp: { caller: 'p1', window: null, final_turns_left: ['p2', 'p3'] } });
  assert.equal(playedWhileAway(called, over), null);
  // nothing to compare, another room, or not a game in play
  assert.equal(playedWhileAway(null, playing('p2')), null);
  assert.equal(playedWhileAway({ ...playing('p1'), code: 'ZZZZ' }, playing('p2')), null);
  assert.equal(playedWhileAway(makeView({ status: Status.LOBBY, turn: null }), playing('p2')), null);

  // applyUpdate: only on a connection's first update; said by a notice that matters and in the log
  const s0 = inRoom(playing('p1'));
  const first = apply(s0, { ...update(withTotal(playing('p2'), 9)), seq: 1 }).state;
  const told = currentNotice(first, NOW);
  assert.equal(told.matters, true);
  assert.equal(noticeText(first, told), 'While you were away, the computer played for you: your cards may have changed. Your total: 0 → 9.');
  assert.equal(eventText(first, first.log.at(-1).ev), 'While you were away, the computer played for you');
  assert.deepEqual(apply(s0, update(playing('p2'))).state.notices, []); // seq 2: not a return
});

test('r16_3 the table kept for a reload or offline is its public part only: no card held, nothing to tap, no clock', async () => {
  const { publicTable } = await import('../../../web/js/storage.js');
  const live = makeView({
    holding: 'QS', legal: ['swap', 'discard', 'queen'], peek_ends_at: NOW + 1,
    turn: { ...makeView().turn, player: 'p1', draw_deadline: NOW + 30000, drawn_from: 'stock' },
    crisp: { caller: null, window: { player: 'p1', closes_at: NOW + 3000 }, windows: [{ player: 'p1', closes_at: NOW + 3000 }], final_turns_left: [] },
  });
  const kept = publicTable(deepFreeze(live));
  assert.equal(kept.holding, null);
  assert.deepEqual(kept.legal, []);
  assert.equal(kept.turn.draw_deadline, null);
  assert.equal(kept.crisp.window, null);
  assert.deepEqual(kept.crisp.windows, []);
  assert.ok(!JSON.stringify(kept).includes('QS'));
  // what everyone sees stays: the seats, their names and totals, whose turn, the pile
  assert.deepEqual(kept.players, live.players);
  assert.equal(kept.turn.player, 'p1');
  assert.equal(kept.discard_top, '7H');
});
