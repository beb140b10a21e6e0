// Replays and the memory review (R18.2, R18.3; protocol.md v1.2): asked for with
// GET /api/rooms/{code}/rounds/{n} once a round is over (a player sends its seat's
// token; a watcher none: R18.2 lets anyone see them while watching is on).
//
// - The replay (`state.replay`): opened from the results (render/results.js),
//   shown by render/replay.js as the steps of steps.js, playing by itself at a
//   readable pace (steps.js `stepMs`) until paused, stepped by hand both ways.
// - The review (`state.review`): on a player's own round results, "What you
//   remembered" (render/memory.js) is that round's `memory` for this seat; asked
//   for once per round, as soon as the results come (routing.js `receive`).

import * as api from '../net/api.js';
import { Status } from '../protocol.js';
import { replaySteps, stepMs } from './steps.js';
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
    setState({ replay: { code, round, data, steps: replaySteps(data), step: 0, playing: true } });
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
  }, stepMs(r.steps[r.step]));
}

/** A player's round results are on screen: fetch that round's memory review once
 * (R18.3). Not for a watcher: it remembered nothing. */
export async function reviewIfOver(S) {
  const v = S.view;
  const over = v && (v.status === Status.ROUND_OVER || v.status === Status.GAME_OVER);
  if (!over || S.watching || !v.last_round || !v.you) return;
  const round = v.last_round.round;
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
