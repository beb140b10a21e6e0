// What a Crisp update does to the client state besides the table's part
// (../../update.js, which calls these hooks through the game module): peeked
// cards go into `peeks` for a few seconds and nowhere else, never the log, never
// storage (R16.3); each seat's last moves (`moves`), the Queen being chosen, the
// card taken from the discard pile, the crisp window's bar and the draw timer's
// ring; the notices that are Crisp's (a crisp call, a timeout with its discard,
// another player's Queen on your card); and what the computer did for this seat
// while its phone was away (R17.2). Pure, like update.js.

import { describe, publicEvent } from './events.js';
import { ActionType, ClientEvent, EventKind, Source, Status } from './protocol.js';
import { crispEnd } from './rules.js';
import { serverTime } from '../../state.js';
import { addNotice, dropExpired } from '../../update.js';

export const PEEK_MS = 5000; // a Jack or Queen peek stays this long unless hidden sooner
export const PEEK_PHASE_MS = 10000; // R16.2: the deal's peeks stay for the peek phase
const MOTION_STEP_MS = 380; // the moves of one update animate one after the other
const MAX_WAKE_MS = 60000;
/** The events that are a player's move: each seat shows its last ones until that
 * player's next turn starts (`moves`). */
const MOVE_KINDS = new Set([
  EventKind.DREW, EventKind.SWAPPED, EventKind.DISCARDED, EventKind.JACK, EventKind.QUEEN, EventKind.KING,
  EventKind.TIMEOUT, EventKind.CRISP,
]);
const MOTION_KINDS = new Set([EventKind.DREW, EventKind.SWAPPED, EventKind.DISCARDED, EventKind.QUEEN, EventKind.KING]);

/** The client state's fields that are Crisp's, as a room starts. */
export function roomState() {
  return {
    peeks: {}, // slot -> {card, from, until}; memory only, a few seconds
    moves: {}, // player id -> the public events of their current or last turn this round (events.js publicEvent)
    drawClock: null, // {deadline, total}: the current draw's time, for the timer's ring
    queen: null, // {mine: slot|null, target: {player, slot}|null} while choosing; both set: waiting for Confirm
    crispWindow: null, // {closes_at, total}: this player's open crisp window, for its bar
    publicHolding: null, // {player, card}: a card someone took from the discard pile (public)
    readyRound: null, // round for which "ready" was sent
    logOpen: false, // the move log's sheet (table)
  };
}

/** Fresh copies of the fields the events change (applyUpdate's input stays as it was). */
export const copy = (s) => ({ peeks: { ...s.peeks }, moves: { ...s.moves } });

/** The moves of one update, animated one after the other (motion.js). */
export function motions(events) {
  const out = [];
  for (const ev of events) {
    if (MOTION_KINDS.has(ev.kind)) out.push({ type: 'motion', ev: publicEvent(ev), delay: MOTION_STEP_MS * out.length });
  }
  return out;
}

/** The peeks whose time is over at `now` dropped; null when none is. */
export function expire(state, now) {
  const peeks = state.peeks ? dropExpired(state.peeks, (p) => p.until <= now) : state.peeks;
  return peeks === state.peeks ? null : { peeks };
}

/** One event into `s` (a fresh copy that applyUpdate owns), before the table's part. */
export function onEvent(s, ev, now, effects) {
  const view = s.view;
  const you = view.you;
  // A card that moves takes its peek with it; a peek event that follows shows the new one.
  if (ev.kind === EventKind.SWAPPED && ev.player === you) delete s.peeks[ev.slot];
  if (ev.kind === EventKind.QUEEN) {
    if (ev.player === you) delete s.peeks[ev.slot];
    if (ev.target === you) delete s.peeks[ev.target_slot];
  }
  if (ev.kind === EventKind.TURN_STARTED) s.moves[ev.player] = [];
  if (MOVE_KINDS.has(ev.kind) && ev.player) s.moves[ev.player] = [...(s.moves[ev.player] || []), publicEvent(ev)];
  if (ev.kind === EventKind.ROUND_STARTED || ev.kind === EventKind.ROUND_OVER || ev.kind === EventKind.REMATCH) {
    s.moves = {};
    s.peeks = {};
    s.queen = null;
    s.readyRound = null;
    // a Queen on your cards of a round that is over no longer matters; the rest waits
    s.notices = s.notices.filter((n) => n.matters && n.ev.kind !== EventKind.QUEEN);
  }
  if (ev.kind === EventKind.ROUND_STARTED) s.rematchBy = null;
  if (ev.kind === EventKind.DREW) s.publicHolding = ev.source === Source.DISCARD ? { player: ev.player, card: ev.card } : null;
  if (ev.kind === EventKind.PEEK && ev.player === you && ev.card) {
    const dur = view.status === Status.PEEK ? PEEK_PHASE_MS : PEEK_MS;
    s.peeks[ev.slot] = { card: ev.card, from: now, until: now + dur };
  }
  if (ev.kind === EventKind.TURN_STARTED && ev.player === you) effects.push({ type: 'yourTurn' });
  // Said to every phone: a crisp call; a timeout with what it discarded (R14.2),
  // which matters to the player whose time ran out.
  if (ev.kind === EventKind.CRISP) addNotice(s, ev, now, false);
  if (ev.kind === EventKind.TIMEOUT) addNotice(s, ev, now, ev.player === you);
  if (ev.kind === EventKind.DISCARDED && ev.timeout) {
    // one notice for the timeout and its discard: "Ana ran out of time: 5♣ discarded"
    s.notices = s.notices.filter((n) => !(n.ev.kind === EventKind.TIMEOUT && n.ev.player === ev.player && n.at === now));
    addNotice(s, ev, now, ev.player === you);
  }
  // Someone else's Queen took one of your cards: it changes what you know (R8.3).
  if (ev.kind === EventKind.QUEEN && ev.target === you && ev.player !== you) {
    const d = describe(ev, { you, name: (id) => id });
    if (d && d.text) addNotice(s, ev, now, true);
  }
}

/** What follows from the new view as a whole, whatever the events were. */
export function afterUpdate(s, prev, now, effects) {
  const view = s.view;
  if (prev && prev.status === Status.PEEK && view.status !== Status.PEEK) s.peeks = {};
  if (s.queen && !view.legal.includes(ActionType.QUEEN)) s.queen = null;
  const server = serverTime(s.clock, now);
  const w = view.crisp && view.crisp.window;
  if (w && w.player === view.you) {
    if (!s.crispWindow || s.crispWindow.closes_at !== w.closes_at) {
      s.crispWindow = { closes_at: w.closes_at, total: Math.max(1, crispEnd(view, w) - server) };
    }
  } else s.crispWindow = null;
  // The draw timer's ring: the whole time of this draw, without the start delay (R14.3).
  const turn = view.turn;
  if (turn && turn.draw_deadline) {
    if (!s.drawClock || s.drawClock.deadline !== turn.draw_deadline) {
      const from = Math.max(server, turn.may_start_at || 0);
      s.drawClock = { deadline: turn.draw_deadline, total: Math.max(1000, turn.draw_deadline - from) };
    }
  } else s.drawClock = null;
  // Wake up exactly when the clock makes a draw legal or closes the crisp window.
  for (const at of [view.turn && view.turn.may_start_at, w && crispEnd(view, w)]) {
    if (at && at > server) effects.push({ type: 'wake', after: Math.min(at - server + 15, MAX_WAKE_MS) });
  }
}

/** What the computer did for this seat while its player was away (R17.2), seen
 * by comparing the table this phone last had (`prev`, possibly from storage)
 * with the one it gets on reconnecting: the turn passed this seat (it was its
 * turn, or the turn went past it) or a round it was playing ended. A notice
 * event, or null. The phone never got those events, so it says what it can:
 * that its seat was played, and how its total changed. */
export function playedWhileAway(prev, view) {
  if (!prev || !view || prev.code !== view.code || prev.you !== view.you) return null;
  const me = view.you;
  const was = prev.players.find((p) => p.id === me);
  const now = view.players.find((p) => p.id === me);
  if (!was || !now) return null;
  const inPlay = prev.status === Status.PLAYING && !!prev.turn;
  if (!inPlay) return null;
  const caller = prev.crisp && prev.crisp.caller;
  let played = false;
  if (view.round !== prev.round || view.status !== Status.PLAYING || !view.turn) {
    // the round ended (or more): this seat had a turn in it, unless it had called crisp
    played = caller !== me;
  } else {
    const order = [...view.players].sort((a, b) => a.seat - b.seat).map((p) => p.id);
    const at = (id) => order.indexOf(id);
    const n = order.length;
    const from = at(prev.turn.player);
    const to = at(view.turn.player);
    const mine = at(me);
    const dist = (a, b) => (b - a + n) % n;
    if (from < 0 || to < 0 || mine < 0) return null;
    // a whole turn of the table or more: every seat drew from the stock at least once
    const drawn = (prev.stock_count || 0) - (view.stock_count || 0);
    if (prev.turn.player === me && view.turn.player !== me) played = true;
    else if (dist(from, mine) > 0 && dist(from, mine) < dist(from, to)) played = true;
    else if (drawn >= n) played = true;
  }
  if (!played) return null;
  return { kind: ClientEvent.PLAYED_FOR_YOU, player: me, from: was.total, to: now.total };
}

