// Watching (R18.1): what a watcher's screens add (a clear "watching" state, the way
// out, and nothing to tap at the table), and the count of watchers that every
// screen of the room shows, players' too.

import { h } from '../dom.js';
import { t } from '../i18n.js';

/** How many watch, as a small chip (nothing while nobody does). */
export function watchersChip(v) {
  const n = v.watchers || 0;
  if (!n) return null;
  const label = t('watch.count', { count: n });
  return h('span', { class: 'watchers', 'data-testid': 'watchers-count', 'data-count': n, title: label },
    h('span', { 'aria-hidden': 'true' }, '◉ '), h('span', { class: 'watchers-text' }, label));
}

/** A watcher's bar (in place of the table's actions, and atop the lobby and the
 * results): it says so, and "Stop watching" (how many watch is on the screen's
 * own place for it: `watchersChip`). */
export function watchBar(ctx) {
  const { act } = ctx;
  return h('section', { class: 'panel watchbar', 'data-testid': 'watch-bar', role: 'status' },
    h('p', { class: 'watch-state' }, h('span', { 'aria-hidden': 'true' }, '◉ '),
      h('strong', null, t('watch.banner'))),
    h('button', { type: 'button', class: 'btn small', 'data-testid': 'stop-watching', onclick: act.stopWatching },
      t('watch.stop')));
}
