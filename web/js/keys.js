// Keyboard play: s = stock, d = discard pile, 1/2/3 = your left/middle/right
// card, x = discard, j/q/k = Jack/Queen/King, c = crisp, r = ready, Escape =
// cancel (the Queen's choice, the move log, the how-to-play page, or the settings). A key clicks the same button a
// tap would, so it is enabled exactly when the button is.

import { getState } from './store.js';
import { act } from './actions.js';

const BUTTON_FOR_KEY = {
  s: 'stock', d: 'discard-pile', 1: 'my-slot-left', 2: 'my-slot-middle', 3: 'my-slot-right',
  x: 'action-discard', j: 'action-jack', q: 'action-queen', k: 'action-king', c: 'crisp-button',
  r: 'ready-button',
};

function click(testid) {
  const el = document.querySelector(`[data-testid="${testid}"]`);
  if (el && !el.disabled) {
    el.click();
    return true;
  }
  return false;
}

export function onKey(e) {
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  const tag = (e.target && e.target.tagName) || '';
  if (tag === 'INPUT' || tag === 'SELECT' || tag === 'TEXTAREA') return;
  const S = getState();
  if (e.key === 'Escape' && S.help) {
    act.toggleHelp();
    return;
  }
  if (S.screen !== 'room' || !S.view) return;
  if (e.key === 'Escape') {
    if (S.queen) act.cancelQueen();
    else if (S.logOpen) act.toggleLog();
    else if (S.menuOpen) act.toggleMenu();
    return;
  }
  const testid = BUTTON_FOR_KEY[e.key.toLowerCase()];
  if (testid && click(testid)) e.preventDefault();
}
