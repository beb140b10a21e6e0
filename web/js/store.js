// The one client state (its shape: initialState in state.js). A change replaces
// the state object and tells the listener (app.js: render); nothing changes the
// state object itself, so update.js can compute the next one purely.

import { initialState } from './state.js';

let current = initialState();
let listener = () => {};

export const getState = () => current;

/** Replace the whole state (from update.js's pure functions). */
export function replaceState(next) {
  current = next;
  listener();
}

/** Change some fields: `setState({menuOpen: false})`. */
export function setState(changes) {
  replaceState({ ...current, ...changes });
}

/** `fn` runs after every change (one listener: the renderer). */
export function onChange(fn) {
  listener = fn;
}
