// Dragging a card (pointer events) and the cards that change place (FLIP).
// A drag starts on a pile that may give a card; past a few pixels a copy of its
// top card follows the finger, the lit targets stay lit, and letting go over one
// of them sends the move; anywhere else nothing happens. Without movement it was
// a tap (the click does the tap-tap). After an update, a card that moved is
// drawn where it now is, then slid from where it was (First, Last, Invert, Play);
// nothing slides with prefers-reduced-motion.

import { getState, setState } from '../../store.js';
import { targets } from './moves.js';

const SLOP = 8; // px before a press becomes a drag
const MS = 320;

export const reduced = () => typeof matchMedia === 'function' && matchMedia('(prefers-reduced-motion: reduce)').matches;

const pileEl = (name) => document.querySelector(`.cr-table [data-pile="${name}"]`);
const topOf = (el) => (el && (el.querySelector('.cr-card.top') || el.querySelector('.cr-card'))) || el;

/** The pile under a point, or null. */
function pileAt(x, y) {
  const el = document.elementFromPoint(x, y);
  return el && el.closest ? el.closest('.cr-table [data-pile]') : null;
}

export function startDrag(e, pile, ctx) {
  if (e.button !== undefined && e.button !== 0) return;
  const from = e.currentTarget;
  const x0 = e.clientX;
  const y0 = e.clientY;
  let ghost = null;
  const move = (ev) => {
    const dx = ev.clientX - x0;
    const dy = ev.clientY - y0;
    if (!ghost) {
      if (Math.hypot(dx, dy) < SLOP) return;
      const card = topOf(from);
      const r = card.getBoundingClientRect();
      ghost = card.cloneNode(true);
      ghost.classList.add('cr-ghost');
      Object.assign(ghost.style, { left: `${r.left}px`, top: `${r.top}px`, width: `${r.width}px`, height: `${r.height}px` });
      document.body.appendChild(ghost);
      if (getState().crPick !== pile) setState({ crPick: pile, crDragging: true });
      else setState({ crDragging: true });
    }
    ghost.style.transform = `translate(${dx}px, ${dy}px)`;
    ev.preventDefault();
  };
  const up = (ev) => {
    removeEventListener('pointermove', move);
    removeEventListener('pointerup', up);
    removeEventListener('pointercancel', up);
    if (!ghost) return; // a tap: the click handles it
    ghost.remove();
    const over = ev.type === 'pointerup' ? pileAt(ev.clientX, ev.clientY) : null;
    const to = over && over.dataset.pile;
    setState({ crDragging: false });
    if (to && targets(getState().view, pile).includes(to)) ctx.act.crMove(pile, to);
    else setState({ crPick: null });
    // the click that follows a drag is not a tap
    const swallow = (c) => { c.stopPropagation(); c.preventDefault(); };
    addEventListener('click', swallow, { capture: true, once: true });
    setTimeout(() => removeEventListener('click', swallow, { capture: true }), 0);
  };
  addEventListener('pointermove', move, { passive: false });
  addEventListener('pointerup', up);
  addEventListener('pointercancel', up);
}

/** Slide the card now on table pile `to` from where pile `from` is (FLIP), after
 * `delay` ms, once the page shows the update. */
// How many moved cards the table has placed so far (slid, or not: motion reduced,
// the pile gone): <body data-cr-flips="n">, what a test waits on, not a guessed time.
let flips = 0;
const flipped = () => { flips += 1; document.body.dataset.crFlips = String(flips); };

export function flip(from, to, delay = 0) {
  if (reduced() || typeof document.body.animate !== 'function') { flipped(); return; }
  const slide = () => {
    const a = pileEl(from);
    const b = topOf(pileEl(to));
    if (!a || !b) return;
    const ra = topOf(a).getBoundingClientRect();
    const rb = b.getBoundingClientRect();
    if (!ra.width || !rb.width) return;
    const dx = ra.left - rb.left;
    const dy = ra.top - rb.top;
    if (Math.abs(dx) < 1 && Math.abs(dy) < 1) return;
    b.animate([
      { transform: `translate(${dx}px, ${dy}px)`, zIndex: 5 },
      { transform: 'translate(0, 0)', zIndex: 5 },
    ], { duration: MS, easing: 'cubic-bezier(.2,.7,.3,1)' });
  };
  setTimeout(() => requestAnimationFrame(() => { slide(); flipped(); }), delay);
}
