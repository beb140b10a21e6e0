// What a Crisp view allows (protocol.md, "legal"): the buttons come from `legal`,
// but for the next player's first draw, which the clock enables, the discard
// pile's draw (R13.4), and the crisp window as this phone ends it (R18.4).

import { ActionType, Status } from './protocol.js';

/** Whether the current player may draw now: from `legal`, or by the clock
 * once turn.may_start_at has passed (protocol.md, "legal"). */
export function canDraw(view, serverNow) {
  if (!view || view.status !== Status.PLAYING || view.holding) return false;
  if (view.legal.includes(ActionType.DRAW)) return true;
  const turn = view.turn;
  return !!turn && turn.player === view.you && !turn.drawn_from && serverNow >= turn.may_start_at;
}

/** Drawing from the discard pile also needs the option and a card there (R13.4). */
export function canDrawDiscard(view, serverNow) {
  return canDraw(view, serverNow) && !!view.options.discard_draw && view.discard_count > 0
    && !!view.discard_top;
}

/** Crisp is legal while this player's window is open (checked against the clock too). */
export function canCrisp(view, serverNow) {
  if (!view || !view.legal.includes(ActionType.CRISP)) return false;
  const w = view.crisp && view.crisp.window;
  return !w || w.player !== view.you || serverNow < crispEnd(view, w);
}

const LATE_CAP_MS = 300; // R18.4: the most the server credits a late call

/** When this phone ends the crisp window `w` (R18.4), on its estimate of the server
 * clock: `closes_at` less the connection's measured delay (`lag_ms`), and less what
 * of it the server's 300 ms cap does not credit. The estimate runs behind the server
 * by about that delay (its samples are the server's `now` when sent), and a tap
 * travels it again: so a tap before the end shown here reaches the server within
 * the delay it credits, and counts. */
export function crispEnd(view, w) {
  const lag = typeof view.lag_ms === 'number' ? view.lag_ms : 0;
  return w.closes_at - lag - Math.max(0, lag - LATE_CAP_MS);
}

/** The table is on screen: the peek phase or a turn being played. */
export function atTable(view) {
  return !!view && (view.status === Status.PEEK || view.status === Status.PLAYING);
}
