// Crisp's taps (protocol.md, "Client to server"), given to the shell as the
// module's `actions(kit)` (games.js): the kit is what a game's taps may use of
// the shell (`getState`, `setState`, `send`, `serverNow`, `view`, `legal`).

import { ActionType, Source, Status } from './protocol.js';
import { canDraw, canDrawDiscard, canCrisp } from './rules.js';

export function actions({ getState, setState, send, serverNow, view, legal }) {
  /** Queen (R8): your card, then theirs (either may be changed), then Confirm sends the swap. */
  const chooseForQueen = (choice) => setState({ queen: { ...getState().queen, ...choice } });
  return {
    ready: () => {
      if (send({ type: ActionType.READY }, false)) {
        const v = view();
        setState({ readyRound: v.round, ...(v.status === Status.PEEK ? { peeks: {} } : {}) });
      }
    },
    drawStock: () => { if (canDraw(view(), serverNow())) send({ type: ActionType.DRAW, source: Source.STOCK }); },
    drawDiscard: () => { if (canDrawDiscard(view(), serverNow())) send({ type: ActionType.DRAW, source: Source.DISCARD }); },
    tapMySlot: (slot) => {
      if (getState().queen) chooseForQueen({ mine: slot });
      else if (legal(ActionType.SWAP)) send({ type: ActionType.SWAP, slot });
    },
    tapSeatSlot: (player, slot) => {
      if (getState().queen) chooseForQueen({ target: { player, slot } });
    },
    discard: () => send({ type: ActionType.DISCARD }),
    jack: () => send({ type: ActionType.JACK }),
    queen: () => {
      if (legal(ActionType.QUEEN)) setState({ queen: { mine: null, target: null } });
    },
    cancelQueen: () => setState({ queen: null }),
    confirmQueen: () => {
      const q = getState().queen;
      if (!q || !q.mine || !q.target || !legal(ActionType.QUEEN)) return;
      setState({ queen: null });
      send({ type: ActionType.QUEEN, slot: q.mine, target: q.target.player, target_slot: q.target.slot });
    },
    toggleLog: () => setState({ logOpen: !getState().logOpen }),
    king: () => send({ type: ActionType.KING }),
    crisp: () => { if (canCrisp(view(), serverNow())) send({ type: ActionType.CRISP }); },
    hidePeeks: () => setState({ peeks: {} }),
    nextRound: () => send({ type: ActionType.NEXT_ROUND }),
  };
}

/** Keyboard play: s = stock, d = discard pile, 1/2/3 = your left/middle/right
 * card, x = discard, j/q/k = Jack/Queen/King, c = crisp, r = ready (the test ids
 * of the buttons a key clicks). */
export const BUTTON_FOR_KEY = Object.freeze({
  s: 'stock', d: 'discard-pile', 1: 'my-slot-left', 2: 'my-slot-middle', 3: 'my-slot-right',
  x: 'action-discard', j: 'action-jack', q: 'action-queen', k: 'action-king', c: 'crisp-button',
  r: 'ready-button',
});

/** Escape cancels the Queen's choice, else closes the move log; true when it did. */
export function onEscape(S, act) {
  if (S.queen) act.cancelQueen();
  else if (S.logOpen) act.toggleLog();
  else return false;
  return true;
}
