// The page's start: language, routes, keys, the 100 ms tick, and one render
// after every change of the state. Where the rest lives: docs/web-client.md.

import { setLanguage, preferredLanguage, language } from './i18n.js';
import { getState, replaceState, onChange } from './store.js';
import { atTable, serverTime } from './state.js';
import { expire } from './update.js';
import { actsFor } from './actions.js';
import { onKey } from './keys.js';
import { route, currentSocket } from './routing.js';
import { render, startPainting, paintNow, drawnNotice } from './paint.js';
import { unlockAudio } from './feedback.js';
import { loadLanguage } from './storage.js';

const TICK_MS = 100;

// The service worker marks a seated player's page (`seated` on <html>, sw.js) so
// that its first screen is the room's, not the join form; from here on the
// client draws the right screen itself.
document.documentElement.classList.remove('seated');

/** Timers: highlights, toasts, notices and what the game lets expire (a notice
 * that matters by its time on screen); while a game's table is on screen it is
 * re-rendered, so its clocks are current. */
function tick() {
  const local = Date.now();
  const S = getState();
  const next = expire(S, local, { drawn: drawnNotice() });
  if (next !== S) {
    replaceState(next);
    return;
  }
  const live = S.screen === 'room' && atTable(S.view);
  if (live || S.notices.length) render();
}

async function boot() {
  try {
    // a language chosen before is saved again: its cookie tells the server (shell.py)
    await setLanguage(preferredLanguage(), loadLanguage() !== null);
  } catch {
    /* the page still works with keys shown */
  }
  window.addEventListener('popstate', route);
  document.addEventListener('keydown', onKey);
  for (const type of ['pointerdown', 'keydown']) document.addEventListener(type, unlockAudio, { passive: true });
  setInterval(tick, TICK_MS);
  route();
  registerWorker();
}

/** The offline shell (web/sw.js): a reload on a flaky network shows the page at
 * once and reconnects. Its URL is stable and never taken from the HTTP cache.
 * A page that was still loading when its worker activated is not among the pages
 * the worker's `clients.claim()` took (only running ones are): it asks its active
 * worker to take it (issue 34). <html data-worker> says how far the worker got:
 * 'none' (no worker here), 'registering', the newest worker's state ('installing',
 * 'installed', 'activating', 'activated': not yet in control of this page), or
 * 'in-control' (activated and in control of this page). In control, it asks which
 * versions' files the worker has kept (once what it is keeping is): <html
 * data-kept>, their ids (this page's among them: it works offline). */
function registerWorker() {
  const root = document.documentElement;
  const workers = navigator.serviceWorker;
  if (!workers || !window.isSecureContext) {
    root.dataset.worker = 'none';
    return;
  }
  let reg = null;
  const announce = () => {
    const ctl = workers.controller;
    const newest = (reg && (reg.installing || reg.waiting || reg.active)) || ctl;
    if (ctl && ctl.state === 'activated') root.dataset.worker = 'in-control';
    else root.dataset.worker = newest ? newest.state : 'registering';
    ask();
  };
  let asked = null;
  const follow = (sw) => { if (sw) sw.addEventListener('statechange', announce); };
  const ask = () => {
    const ctl = workers.controller;
    if (ctl && ctl.state === 'activated' && asked !== ctl) {
      asked = ctl;
      ctl.postMessage({ type: 'kept?' });
    }
  };
  workers.addEventListener('message', (event) => {
    if (event.data && event.data.type === 'kept') root.dataset.kept = event.data.versions.join(' ');
  });
  workers.startMessages();
  workers.addEventListener('controllerchange', () => { follow(workers.controller); announce(); });
  follow(workers.controller);
  announce();
  workers.register('/sw.js', { scope: '/', updateViaCache: 'none' }).then((r) => {
    reg = r;
    [r.installing, r.waiting, r.active].forEach(follow);
    r.addEventListener('updatefound', () => { follow(r.installing); announce(); });
    announce();
  }).catch(() => { root.dataset.worker = 'none'; });
  workers.ready.then((r) => {
    if (!workers.controller && r.active) r.active.postMessage({ type: 'claim' });
  });
}

startPainting(actsFor);
onChange(render);
// For the console and the browser tests: read-only looks at the state, the clock
// and the socket, and the language switched in place (the page redrawn before the
// promise resolves; not remembered), as the header's switch does.
window.crisp = {
  get state() { return getState(); },
  clock: { now: () => serverTime(getState().clock, Date.now()) },
  socket: currentSocket,
  language: async (code) => {
    if (code && code !== language()) await setLanguage(code, false);
    paintNow();
    return language();
  },
};
boot();
