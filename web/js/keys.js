// Keyboard play: Escape closes what is open (How to play, then what the game has
// open, then the settings); every other key is the room's game's (its module's
// `keys`: a key -> the test id of the button it clicks, games.js). A key clicks
// the same button a tap would, so it is enabled exactly when the button is.

import { getState } from './store.js';
import { act, actsFor } from './actions.js';
import { gameOf } from './games.js';

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
  const game = gameOf(S.view);
  if (e.key === 'Escape') {
    if (game && game.onEscape && game.onEscape(S, actsFor(S.view))) return;
    if (S.menuOpen) act.toggleMenu();
    return;
  }
  const testid = game && game.keys ? game.keys[e.key.toLowerCase()] : null;
  if (testid && click(testid)) e.preventDefault();
}
