// Crisp's own words on the wire (crisp-rules.md; protocol.md v1-v1.2): its
// actions, events and statuses beside the table's (../../protocol.js), where a
// card is drawn from and the slots of a hand. The one module of games/crisp/
// that writes a wire name (tests/web/test_web_vocabulary.py); each table holds
// the table's names too, so that Crisp's screens import one table of each.

import * as table from '../../protocol.js';

/** This game's id (GET /api/games, a view's `game`). */
export const GAME_ID = 'crisp';

/** A client message's `type` in a Crisp room; also the names in `legal`. */
export const ActionType = Object.freeze({
  ...table.ActionType,
  READY: 'ready', // R16.2, R16.5
  DRAW: 'draw', // R4
  SWAP: 'swap', // R5.1
  DISCARD: 'discard', // R5.2
  JACK: 'jack', // R7
  QUEEN: 'queen', // R8
  KING: 'king', // R9
  CRISP: 'crisp', // R10
  NEXT_ROUND: 'next_round', // R16.5
});

/** An event's `kind` in a Crisp room. */
export const EventKind = Object.freeze({
  ...table.EventKind,
  ROUND_STARTED: 'round_started',
  PEEK: 'peek', // R2.4, R7.1, R8.2, R8.3
  TURN_STARTED: 'turn_started',
  DREW: 'drew', // R4.1, R13
  SWAPPED: 'swapped', // R5.1
  DISCARDED: 'discarded', // R5.2, R14.2
  JACK: 'jack', // R7
  QUEEN: 'queen', // R8
  KING: 'king', // R9
  STOCK_REBUILT: 'stock_rebuilt', // R4.2
  CRISP: 'crisp', // R10
  TIMEOUT: 'timeout', // R14.2
  ROUND_OVER: 'round_over', // R11.2, R12
  GAME_OVER: 'game_over', // R12.5
  READY: 'ready', // R16.2, R16.5
});

/** `view.status` of a Crisp room. */
export const Status = Object.freeze({
  ...table.Status,
  PEEK: 'peek', // the deal's peek phase (R16.2)
  PLAYING: 'playing',
  ROUND_OVER: 'round_over',
  GAME_OVER: 'game_over',
});

/** Where a card is drawn from: a `draw`'s and a `drew` event's `source`, a turn's
 * `drawn_from` (R4.1, R13; `Source`). */
export const Source = Object.freeze({
  STOCK: 'stock',
  DISCARD: 'discard',
});

/** A position in a hand (R2.3; the server's `SlotLabel`). */
export const Slot = Object.freeze({
  LEFT: 'left',
  MIDDLE: 'middle', // never looked at by its owner except through a Jack (R2.4, R7.1)
  RIGHT: 'right',
});

/** The three slots, left to right: the order of a hand's cards on the wire (R2.3). */
export const SLOTS = Object.freeze([Slot.LEFT, Slot.MIDDLE, Slot.RIGHT]);

export { ClientEvent, ErrorCode, BotLevel } from '../../protocol.js';
