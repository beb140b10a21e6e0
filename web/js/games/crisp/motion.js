// Moves that travel across the table (update.js asks with a `motion` effect):
// a drawn card from the stock (or the discard pile) to the drawn card's place, a
// swapped card to the pile, a discard to the pile, a King to its place beside the
// pile, and a Queen's two cards crossing between the seats. What moves is a copy
// above the page (`.ghost`, nothing can tap it); the real cards never move, so a
// tap never lands on a moving target. Off with `prefers-reduced-motion`.
// Only public faces travel face up (a discard, a card taken from the discard pile).

import { h, patch } from '../../dom.js';
import { EventKind, Source } from './protocol.js';
import { cardContent, cardClass } from '../../render/parts.js';

const MS = 420;

const reduced = () => typeof matchMedia === 'function' && matchMedia('(prefers-reduced-motion: reduce)').matches;

const el = (testid) => document.querySelector(`[data-testid="${testid}"]`);

/** The pile a card was drawn from (the table marks each with its `data-source`). */
const pileEl = (source) => document.querySelector(`[data-source="${source}"]`);

/** The element of a player's card position: yours, or another seat's. */
function slotEl(you, player, slot) {
  return el(player === you ? `my-slot-${slot}` : `seat-${player}-slot-${slot}`);
}

/** Where each kind of move goes from and to: [[from, to, card], ...]. */
function paths(ev, you) {
  switch (ev.kind) {
    case EventKind.DREW:
      return [[pileEl(ev.source), el('holding'), ev.source === Source.DISCARD ? ev.card : null]];
    case EventKind.SWAPPED:
      return [[el('holding'), slotEl(you, ev.player, ev.slot), null],
        [slotEl(you, ev.player, ev.slot), el('discard-pile'), ev.discarded]];
    case EventKind.DISCARDED:
      return [[el('holding'), el('discard-pile'), ev.card]];
    case EventKind.KING:
      return [[el('holding'), el('kings') || el('discard-pile'), 'K?']];
    case EventKind.QUEEN:
      return [[slotEl(you, ev.player, ev.slot), slotEl(you, ev.target, ev.target_slot), null],
        [slotEl(you, ev.target, ev.target_slot), slotEl(you, ev.player, ev.slot), null]];
    default:
      return [];
  }
}

/** Animate the move `ev` (a public event) after `delay` ms, once the page shows its result. */
export function animateMove(ev, you, delay = 0) {
  if (reduced() || typeof document.body.animate !== 'function') return;
  setTimeout(() => requestAnimationFrame(() => {
    for (const [from, to, card] of paths(ev, you)) fly(from, to, card && card !== 'K?' ? card : null);
  }), delay);
}

function fly(from, to, card) {
  if (!from || !to || from === to) return;
  const a = from.getBoundingClientRect();
  const b = to.getBoundingClientRect();
  if (!a.width || !b.width) return;
  const ghost = document.createElement('div');
  ghost.setAttribute('aria-hidden', 'true');
  patch(ghost, h('div', { class: cardClass(card, 'big') }, cardContent(card)));
  const face = ghost.firstChild;
  ghost.className = 'ghost';
  Object.assign(face.style, { width: `${b.width}px`, height: `${b.height}px`, fontSize: `${Math.round(b.height / 3.6)}px` });
  Object.assign(ghost.style, { left: `${b.left}px`, top: `${b.top}px` });
  document.body.appendChild(ghost);
  const dx = a.left - b.left;
  const dy = a.top - b.top;
  const scale = a.width / b.width;
  const run = ghost.animate([
    { transform: `translate(${dx}px, ${dy}px) scale(${scale})`, opacity: 0.95 },
    { transform: 'translate(0, 0) scale(1)', opacity: 1, offset: 0.85 },
    { transform: 'translate(0, 0) scale(1)', opacity: 0 },
  ], { duration: MS, easing: 'cubic-bezier(.2,.7,.3,1)' });
  run.onfinish = () => ghost.remove();
  run.oncancel = () => ghost.remove();
}
