// Cribbage's words on the wire (protocol.md "v2 additions" / "Cribbage").

export const GAME_ID = 'cribbage';

export const CribStatus = Object.freeze({
  LOBBY: 'lobby', GIVE: 'give', PLAY: 'play', SHOW: 'show', HAND_OVER: 'hand_over', GAME_OVER: 'game_over',
});

export const CribAction = Object.freeze({
  GIVE: 'give', LAY: 'lay', CLAIM: 'claim', MUGGINS: 'muggins', READY: 'ready',
});

export const CribItem = Object.freeze({
  FIFTEEN: 'fifteen', THIRTY_ONE: 'thirty_one', PAIR: 'pair', PAIR_ROYAL: 'pair_royal',
  DOUBLE_PAIR_ROYAL: 'double_pair_royal', RUN: 'run', GO: 'go', FLUSH: 'flush', NOBS: 'nobs', HEELS: 'heels',
});

export const CribEvent = Object.freeze({
  CUT: 'cut', HAND_STARTED: 'hand_started', GAVE: 'gave', STARTER: 'starter', LAID: 'laid', GO: 'go',
  SERIES_OVER: 'series_over', SHOWN: 'shown', CLAIMED: 'claimed', MUGGINS: 'muggins', HAND_OVER: 'hand_over',
  GAME_OVER: 'game_over',
});

export const CRIB = 'crib';
