// Puts the state on the page: at most one render per task (however many
// changes asked for one), the document title, and the scrolling that goes with
// a new screen or the start of your turn.

import { patch } from './dom.js';
import { t } from './i18n.js';
import { getState } from './store.js';
import { serverTime } from './state.js';
import { page } from './render/chrome.js';
import { gameOf } from './games.js';

const root = document.getElementById('app');
let act = null;
let queued = false;
let lastScreen = '';
let scrollToPiles = false;
let drawn = null;

/** Start painting with `actions(view)`, the tap handlers the screens call for a
 * view's room (actions.js `actsFor`). */
export function startPainting(actions) {
  act = actions;
}

/** Ask for a render (several asks before it runs make one). */
export function render() {
  if (queued || !act) return;
  queued = true;
  queueMicrotask(paint);
}

/** Render now, in this task (the browser tests' language switch, app.js). */
export function paintNow() {
  queued = false;
  if (act) paint();
}

/** The id of the notice on screen after the last render (null when none, or
 * when the page is hidden): update.js counts only the time a notice was seen. */
export const drawnNotice = () => drawn;

/** After the next render, bring the stock and your cards into view if they are off screen. */
export function bringPilesIntoView() {
  scrollToPiles = true;
}

function paint() {
  queued = false;
  const S = getState();
  const local = Date.now();
  patch(root, page({ S, now: serverTime(S.clock, local), local, act: act(S.view) }));
  document.title = titleFor(S);
  const shown = document.visibilityState === 'visible' ? root.querySelector('[data-notice]') : null;
  drawn = shown ? Number(shown.dataset.notice) : null;
  // A new screen (lobby -> table -> results) starts at its top.
  const screen = `${S.screen}:${S.view ? S.view.status : ''}`;
  // A crowded table (4 to 8 players) starts at the table itself: the page's
  // header above it scrolls away, so that every seat, the piles, your cards and
  // the dock fit a 360x640 screen at once.
  const crowded = document.querySelector('.table.crowded');
  if (screen !== lastScreen) {
    lastScreen = screen;
    if (crowded) crowded.scrollIntoView({ block: 'start' });
    else window.scrollTo(0, 0);
  }
  // Your turn: bring the table, or on a long page the stock and your cards, into view.
  if (scrollToPiles) {
    scrollToPiles = false;
    const piles = document.querySelector('.piles');
    if (crowded) crowded.scrollIntoView({ block: 'start', behavior: 'smooth' });
    else if (piles && piles.getBoundingClientRect().bottom > window.innerHeight - 140) {
      piles.scrollIntoView({ block: 'start', behavior: 'smooth' });
    }
  }
}

function titleFor(S) {
  const v = S.view;
  if (S.screen !== 'room' || !v) return 'Crisp';
  const game = gameOf(v);
  const mark = game && game.title ? game.title(S) : null; // e.g. "★ Your turn"
  return mark ? `${mark} — Crisp ${v.code}` : `Crisp ${v.code}`;
}
