// A round's replay (protocol.md v1.2, R18.2) as the steps of a table with every card
// face up: step 0 is the deal, then one step per move of the record, in order. Pure
// functions of the replay (runs under Node too, tests/web/js/replay.test.mjs).
//
// Each step: {move (null at the deal), i (the move's index, -1 at the deal), turn
// (the round's turn number, 0 before the first), hands {player: [left, middle,
// right]}, stock (top first), pile (bottom first), held {player, card} | null,
// kings (beside the piles, R9.3), marks {'player:slot': 'look'|'swap'|'queen'},
// the positions the move touched, as the live table marks them}.

const SLOTS = ['left', 'middle', 'right'];

const key = (player, slot) => `${player}:${slot}`;

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
  const at = (player, slot) => SLOTS.indexOf(slot);
  switch (m.kind) {
    case 'turn_started':
      s.turn += 1;
      s.pile.push(...s.kings); // R9.3: the last turn's Kings go on the pile
      s.kings = [];
      break;
    case 'peek':
      s.marks[key(m.player, m.slot)] = 'look';
      break;
    case 'stock_rebuilt': // R4.2: the pile turned over, its first card on top
      s.stock = s.pile;
      s.pile = [];
      break;
    case 'drew':
      if (m.source === 'discard') s.pile.pop();
      else s.stock.shift();
      s.held = { player: m.player, card: m.card };
      break;
    case 'swapped':
      if (s.hands[m.player]) s.hands[m.player][at(m.player, m.slot)] = s.held ? s.held.card : null;
      s.pile.push(m.discarded);
      s.held = null;
      s.marks[key(m.player, m.slot)] = 'swap';
      break;
    case 'discarded':
      if (!s.held) s.stock.shift(); // R14.2a: drawn for a player whose time ran out
      s.pile.push(m.card);
      s.held = null;
      break;
    case 'jack':
      s.pile.push(m.card);
      s.held = null;
      s.marks[key(m.player, 'middle')] = 'look';
      break;
    case 'queen': {
      const mine = s.hands[m.player];
      const theirs = s.hands[m.target];
      if (mine && theirs) {
        mine[at(m.player, m.slot)] = m.target_card;
        theirs[at(m.target, m.target_slot)] = m.own_card;
      }
      s.pile.push(m.card);
      s.held = null;
      s.marks[key(m.player, m.slot)] = 'queen';
      s.marks[key(m.target, m.target_slot)] = 'queen';
      break;
    }
    case 'king':
      s.kings.push(m.card);
      s.held = null;
      break;
    case 'round_over':
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
    if (m.kind === 'turn_started') turn += 1;
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
  if (kind === 'ready' || kind === 'turn_started') return 700;
  if (kind === 'peek') return 1000;
  if (kind === 'round_over' || kind === 'deal') return 2200;
  return 1600;
}
