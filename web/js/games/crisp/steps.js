// A round's replay (protocol.md v1.2, R18.2) as the steps of a table with every card
// face up: step 0 is the deal, then one step per move of the record, in order. Pure
// functions of the replay (runs under Node too, tests/web/js/replay.test.mjs).
//
// Each step: {move (null at the deal), i (the move's index, -1 at the deal), turn
// (the round's turn number, 0 before the first), hands {player: [left, middle,
// right]}, stock (top first), pile (bottom first), held {player, card} | null,
// kings (beside the piles, R9.3), marks {markKey(player, slot): a Mark (events.js):
// look, swap or queen}, the positions the move touched, as the live table marks them}.

import { Mark } from './events.js';
import { EventKind, SLOTS, Slot, Source } from './protocol.js';

/** The key of a card position in a step's `marks`. */
export const markKey = (player, slot) => `${player}:${slot}`;

function copy(s) {
  const hands = {};
  for (const [p, cards] of Object.entries(s.hands)) hands[p] = [...cards];
  return { ...s, hands, stock: [...s.stock], pile: [...s.pile], kings: [...s.kings], marks: {} };
}

/** Every step of the replay, the deal first. */
export function replaySteps(replay) {
  const deal = replay.deal || {};
  let s = {
    move: null, i: -1, turn: 0, hands: {}, stock: [...(deal.stock || [])], pile: [...(deal.discard || [])],
    held: null, kings: [], marks: {},
  };
  for (const [p, cards] of Object.entries(deal.hands || {})) s.hands[p] = [...cards];
  const steps = [s];
  for (const m of replay.moves || []) {
    s = copy(s);
    s.move = m;
    s.i = m.i;
    apply(s, m);
    steps.push(s);
  }
  return steps;
}

/** One move into `s` (a fresh copy). */
function apply(s, m) {
  const at = (slot) => SLOTS.indexOf(slot);
  switch (m.kind) {
    case EventKind.TURN_STARTED:
      s.turn += 1;
      s.pile.push(...s.kings); // R9.3: the last turn's Kings go on the pile
      s.kings = [];
      break;
    case EventKind.PEEK:
      s.marks[markKey(m.player, m.slot)] = Mark.LOOK;
      break;
    case EventKind.STOCK_REBUILT: // R4.2: the pile turned over, its first card on top
      s.stock = s.pile;
      s.pile = [];
      break;
    case EventKind.DREW:
      if (m.source === Source.DISCARD) s.pile.pop();
      else s.stock.shift();
      s.held = { player: m.player, card: m.card };
      break;
    case EventKind.SWAPPED:
      if (s.hands[m.player]) s.hands[m.player][at(m.slot)] = s.held ? s.held.card : null;
      s.pile.push(m.discarded);
      s.held = null;
      s.marks[markKey(m.player, m.slot)] = Mark.SWAP;
      break;
    case EventKind.DISCARDED:
      if (!s.held) s.stock.shift(); // R14.2a: drawn for a player whose time ran out
      s.pile.push(m.card);
      s.held = null;
      break;
    case EventKind.JACK:
      s.pile.push(m.card);
      s.held = null;
      s.marks[markKey(m.player, Slot.MIDDLE)] = Mark.LOOK;
      break;
    case EventKind.QUEEN: {
      const mine = s.hands[m.player];
      const theirs = s.hands[m.target];
      if (mine && theirs) {
        mine[at(m.slot)] = m.target_card;
        theirs[at(m.target_slot)] = m.own_card;
      }
      s.pile.push(m.card);
      s.held = null;
      s.marks[markKey(m.player, m.slot)] = Mark.QUEEN;
      s.marks[markKey(m.target, m.target_slot)] = Mark.QUEEN;
      break;
    }
    case EventKind.KING:
      s.kings.push(m.card);
      s.held = null;
      break;
    case EventKind.ROUND_OVER:
      s.pile.push(...s.kings);
      s.kings = [];
      s.held = null;
      break;
    default:
      break;
  }
}

/** The round's turn number of move `i` (its `turn_started` counted; 0 before the first). */
export function turnOf(replay, i) {
  let turn = 0;
  for (const m of replay.moves || []) {
    if (m.i > i) break;
    if (m.kind === EventKind.TURN_STARTED) turn += 1;
  }
  return turn;
}

/** The move of index `i`, or null. */
export function moveAt(replay, i) {
  return (replay.moves || []).find((m) => m.i === i) || null;
}

/** How long a step stays on screen when the replay plays by itself: a look or a
 * readiness passes quickly, a move that changes the table stays long enough to read. */
export function stepMs(step) {
  const kind = step.move ? step.move.kind : 'deal';
  if (kind === EventKind.READY || kind === EventKind.TURN_STARTED) return 700;
  if (kind === EventKind.PEEK) return 1000;
  if (kind === EventKind.ROUND_OVER || kind === 'deal') return 2200;
  return 1600;
}
