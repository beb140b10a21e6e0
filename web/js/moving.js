// Moving a seat to another phone (R18.5; protocol.md v1.2, "Moving a seat"): the
// taps of the "Move to another phone" dialog (render/move.js). The player asks
// the server for a one-time code for their own seat, or the host for an away
// seat's; the dialog shows it as a QR code and a link `/r/{code}#move={move_code}`
// with the time left. The other phone opens the link and takes the seat
// (routing.js); this phone's socket is then closed (4403 "moved") and it says so.

import * as api from './net/api.js';
import { msg } from './i18n.js';
import { loadQr } from './lazy.js';
import { loadSeat } from './storage.js';
import { getState, setState, replaceState } from './store.js';
import { errorMessage, withToast } from './update.js';
import { render } from './paint.js';

const TICK_MS = 1000; // the time left is redrawn this often while the dialog is open

let ticking = null;

function toast(message) {
  replaceState(withToast(getState(), message, Date.now()));
}

/** Ask for a move code: this seat's own (`player` null) or, for the host, the away
 * seat `player`'s. The dialog shows "…" until it comes. */
export async function askMove(player = null) {
  const code = getState().code;
  const seat = code && loadSeat(code);
  if (!seat) return;
  setState({ move: { player, code, loading: true }, menuOpen: false });
  keepTicking();
  loadQr().then(render, () => {});
  try {
    const made = await api.askMoveCode(code, seat.token, player);
    const open = getState().move;
    if (open && open.code === code && open.player === player) {
      setState({ move: { player, code, moveCode: made.move_code, expiresAt: made.expires_at } });
    }
  } catch (e) {
    setState({ move: null });
    toast(errorMessage(e.code, e.message));
  }
}

export function closeMove() {
  setState({ move: null });
}

/** Copy the link (where the page may), else show it in a toast to copy by hand. */
export async function copyMoveLink(link) {
  try {
    await navigator.clipboard.writeText(link);
    toast(msg('moveSeat.copied'));
  } catch {
    toast(link);
  }
}

function keepTicking() {
  if (ticking) return;
  ticking = setInterval(() => {
    if (!getState().move) {
      clearInterval(ticking);
      ticking = null;
    }
    render();
  }, TICK_MS);
}
