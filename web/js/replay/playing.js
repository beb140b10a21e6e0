// Replays and the memory review (R18.2, R18.3; protocol.md v1.2): asked for with
// GET /api/rooms/{code}/rounds/{n} once a round is over (a player sends its seat's
// token; a watcher none: R18.2 lets anyone see them while watching is on).
//
// This is the replay's shell; what a record looks like is the room's game's
// (its module's `replaySteps`, `stepMs`, `replayScreen`, `reviewRound`, games.js).
// - The replay (`state.replay`): opened from the game's results, shown by the
//   game's `replayScreen` as the steps of its `replaySteps`, playing by itself at a
//   readable pace (`stepMs`) until paused, stepped by hand both ways.
// - The review (`state.review`): on a player's own results, the game's review
//   of the record it names (`reviewRound`; Crisp's "What you remembered" is that
//   round's `memory` for this seat); asked for once per round, as soon as the
//   results come (routing.js `receive`).

import * as api from '../net/api.js';
import { gameOf } from '../games.js';
import { loadSeat } from '../storage.js';
import { getState, setState } from '../store.js';
import { errorMessage } from '../update.js';

let timer = null;

/** This page's credential for the room's replays: its seat's token, or none (a watcher). */
function tokenOf(S) {
  if (S.watching || !S.code) return null;
  const seat = loadSeat(S.code);
  return seat ? seat.token : null;
}

function stop() {
  clearTimeout(timer);
  timer = null;
}

/** Open round `round`'s replay; it starts playing by itself once it has come. */
export async function openReplay(round) {
  stop();
  const S = getState();
  const code = S.code;
  setState({ replay: { code, round, loading: true } });
  try {
    const data = await api.roundReplay(code, round, tokenOf(S));
    if (!isOpen(code, round)) return;
    const game = gameOf(getState().view);
    if (!game || !game.replaySteps) return;
    setState({ replay: { code, round, data, steps: game.replaySteps(data), step: 0, playing: true } });
    schedule();
  } catch (e) {
    if (isOpen(code, round)) setState({ replay: { code, round, error: errorMessage(e.code, e.message) } });
  }
}

function isOpen(code, round) {
  const r = getState().replay;
  return !!r && r.code === code && r.round === round;
}

export function closeReplay() {
  stop();
  setState({ replay: null });
}

/** Go to step `to` (clamped); by hand, so the replay pauses. */
export function goToStep(to) {
  const r = getState().replay;
  if (!r || !r.steps) return;
  stop();
  const step = Math.max(0, Math.min(r.steps.length - 1, to));
  setState({ replay: { ...r, step, playing: false } });
}

/** Play from here (from the start when at the end), or pause. */
export function togglePlaying() {
  const r = getState().replay;
  if (!r || !r.steps) return;
  stop();
  if (r.playing) {
    setState({ replay: { ...r, playing: false } });
    return;
  }
  const last = r.steps.length - 1;
  setState({ replay: { ...r, playing: true, step: r.step >= last ? 0 : r.step } });
  schedule();
}

/** The next step in its time (steps.js `stepMs`), while playing. */
function schedule() {
  stop();
  const r = getState().replay;
  if (!r || !r.steps || !r.playing) return;
  if (r.step >= r.steps.length - 1) {
    setState({ replay: { ...r, playing: false } });
    return;
  }
  timer = setTimeout(() => {
    const now = getState().replay;
    if (now !== r) return; // closed, stepped by hand or paused meanwhile
    setState({ replay: { ...now, step: now.step + 1 } });
    schedule();
  }, stepMsOf(r.steps[r.step]));
}

const STEP_MS = 1200;

function stepMsOf(step) {
  const game = gameOf(getState().view);
  return game && game.stepMs ? game.stepMs(step) : STEP_MS;
}

/** A player's results are on screen: fetch the record its game reviews, once
 * (R18.3). Not for a watcher: it remembered nothing. */
export async function reviewIfOver(S) {
  const v = S.view;
  const game = gameOf(v);
  const round = v && game && game.reviewRound ? game.reviewRound(v) : null;
  if (round == null || S.watching || !v.you) return;
  const code = S.code;
  const had = S.review;
  if (had && had.code === code && had.round === round) return;
  setState({ review: { code, round, loading: true } });
  try {
    const data = await api.roundReplay(code, round, tokenOf(S));
    const now = getState().review;
    if (now && now.code === code && now.round === round) setState({ review: { code, round, data } });
  } catch (e) {
    const now = getState().review;
    if (now && now.code === code && now.round === round) {
      setState({ review: { code, round, error: errorMessage(e.code, e.message) } });
    }
  }
}
