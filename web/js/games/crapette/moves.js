// Crapette's piles and moves, pure (no DOM, no words): node-tested
// (tests/web/js/crapette.test.mjs). The wire names a pile relative to the mover
// (protocol.md "Crapette": `crapette`, `turned`, `opponent_crapette`,
// `opponent_waste`, `tableau:i`, `foundation:i`); the table names it from the
// viewer's side (`me:crapette`, `op:waste`, ...) so a pile keeps its place on
// the screen whoever moves. Only the view's `moves` say what may move where:
// the client knows no rule of its own.

import { CrapAction, CrapCalls, CrapEvent, CrapPile, CrapStatus, GAME_ID } from './protocol.js';

// The table's own pile names, from the viewer's side (`me:crapette`, `op:waste`;
// the middle's are the wire's, `tableau:i`, `foundation:i`).
const TABLE_PILE = Object.freeze({ CRAPETTE: 'crapette', TURNED: 'turned', WASTE: 'waste' });

export { GAME_ID };
export const Status = CrapStatus;
export const ActionType = CrapAction;
export const EventKind = CrapEvent;
export const Calls = CrapCalls;

/** Whether the viewer is the player moving now. */
export const moving = (v) => !!(v && v.turn && v.turn.player === v.you);

/** The seat a player id sits in, from the viewer's side: 'me' or 'op'
 * (a watcher sees seat 0 as 'me'). */
export function sideOf(v, player) {
  const me = v.watching || !v.players.some((p) => p.id === v.you) ? v.players[0].id : v.you;
  return player === me ? 'me' : 'op';
}

/** The viewer's player and the other one ({me, op}); a watcher sees seat 0 below. */
export function sides(v) {
  const me = v.players.find((p) => sideOf(v, p.id) === 'me') || v.players[0];
  const op = v.players.find((p) => p !== me) || v.players[1];
  return { me, op };
}

const RELATIVE = {
  [CrapPile.CRAPETTE]: TABLE_PILE.CRAPETTE, [CrapPile.TURNED]: TABLE_PILE.TURNED,
  [CrapPile.OPPONENT_CRAPETTE]: TABLE_PILE.CRAPETTE, [CrapPile.OPPONENT_WASTE]: TABLE_PILE.WASTE,
};

/** A wire pile name, said by a move of `mover`, as the table's name. */
export function tablePile(v, wire, mover) {
  if (wire.startsWith('tableau:') || wire.startsWith('foundation:')) return wire;
  const moverSide = sideOf(v, mover);
  const other = moverSide === 'me' ? 'op' : 'me';
  if (!(wire in RELATIVE)) return wire;
  return `${wire.startsWith('opponent_') ? other : moverSide}:${RELATIVE[wire]}`;
}

/** The table's pile name as the wire says it for a move of `mover`. */
export function wirePile(v, pile, mover) {
  if (pile.startsWith('tableau:') || pile.startsWith('foundation:')) return pile;
  const [side, name] = pile.split(':');
  const own = side === sideOf(v, mover);
  if (own) return name === TABLE_PILE.CRAPETTE ? CrapPile.CRAPETTE : name === TABLE_PILE.TURNED ? CrapPile.TURNED : null;
  return name === TABLE_PILE.CRAPETTE ? CrapPile.OPPONENT_CRAPETTE : name === TABLE_PILE.WASTE ? CrapPile.OPPONENT_WASTE : null;
}

/** The table's piles a card may be taken from now (the `from` of the view's moves). */
export function sources(v) {
  if (!moving(v)) return [];
  return [...new Set((v.moves || []).map((m) => tablePile(v, m.from, v.you)))];
}

/** The table's piles the card of `pile` may go to now: the only ones that light up. */
export function targets(v, pile) {
  if (!moving(v) || !pile) return [];
  const from = wirePile(v, pile, v.you);
  return (v.moves || []).filter((m) => m.from === from).map((m) => tablePile(v, m.to, v.you));
}

/** The `move` message for a card of table pile `from` put on `to`, or null when
 * the view's moves do not have it. */
export function moveMessage(v, from, to) {
  if (!targets(v, from).includes(to)) return null;
  return { type: ActionType.MOVE, from: wirePile(v, from, v.you), to: wirePile(v, to, v.you) };
}

/** The version of the last `moved` event this phone saw in the current turn
 * (what a call names, K6.6), or null before the mover's first move. */
export function lastMovedVersion(events, mover, prev) {
  let version = prev;
  for (const ev of events || []) {
    if (ev.kind === EventKind.MOVED && ev.player === mover && typeof ev.version === 'number') version = ev.version;
  }
  return version;
}

/** The version a call names now: the last `moved` event seen this turn; after a
 * reload mid-turn (no event seen, but the mover has moved: `turn.moves`), the
 * view's own version, which the mover's last move produced unless something else
 * happened since (then the server says which). */
export function callVersion(S) {
  const v = S && S.view;
  if (S && typeof S.crVersion === 'number') return S.crVersion;
  return v && v.turn && v.turn.moves > 0 && typeof v.version === 'number' ? v.version : null;
}

/** Whether the room's calls carry a `show` sequence (K6.3, K6.4). */
export const showsSequence = (v) => {
  const mode = v && v.options && v.options.calls;
  return mode === Calls.COMBINATION || mode === Calls.STRICT;
};

/** The `crapette` message: the version seen, and under combination / strict the
 * sequence picked (table pile pairs, said as the mover's wire names). Null while
 * no call is open to this viewer or no move was seen. */
export function callMessage(v, version, picked = []) {
  if (!v || !v.turn || !v.turn.can_call || typeof version !== 'number') return null;
  const msg = { type: ActionType.CRAPETTE, version };
  if (showsSequence(v)) {
    msg.show = picked.map(([from, to]) => ({ from: wirePile(v, from, v.turn.player), to: wirePile(v, to, v.turn.player) }))
      .filter((m) => m.from && m.to);
  }
  return msg;
}

/** The cards of a table pile: [bottom ... top]; for piles shown as a top and a
 * count, the top alone. */
export function pileCards(v, pile) {
  const [kind, rest] = pile.split(':');
  if (kind === CrapPile.TABLEAU) return v.tableau[Number(rest)] || [];
  if (kind === CrapPile.FOUNDATION) return v.foundations[Number(rest)] ? [v.foundations[Number(rest)]] : [];
  const p = sides(v)[kind];
  if (!p) return [];
  if (rest === TABLE_PILE.TURNED) return v.turn && v.turn.turned && sideOf(v, v.turn.player) === kind ? [v.turn.turned] : [];
  const pl = p[rest];
  return pl && pl.top ? [pl.top] : [];
}
