// Crapette's words on the wire (protocol.md "v2 additions" / "Crapette"), written
// here once: the other modules of games/crapette import them
// (tests/web/test_web_vocabulary.py holds them to it).

export const GAME_ID = 'crapette';

export const CrapStatus = Object.freeze({ LOBBY: 'lobby', PLAYING: 'playing', GAME_OVER: 'game_over' });

export const CrapAction = Object.freeze({ MOVE: 'move', END: 'end', CRAPETTE: 'crapette' });

export const CrapEvent = Object.freeze({
  TURNED: 'turned', MOVED: 'moved', CRAPETTE_TOP: 'crapette_top', RESTOCKED: 'restocked',
  ENDED: 'ended', CALLED: 'called', GAME_OVER: 'game_over',
});

export const CrapCalls = Object.freeze({ OFF: 'off', OBVIOUS: 'obvious', COMBINATION: 'combination', STRICT: 'strict' });

// Why a turn ended (the `ended` event's `why`).
export const CrapWhy = Object.freeze({ END: 'end', CALL: 'call', TIMEOUT: 'timeout' });

// A pile's name, relative to the mover; `tableau:i` and `foundation:i` name the middle.
export const CrapPile = Object.freeze({
  CRAPETTE: 'crapette', TURNED: 'turned', OPPONENT_CRAPETTE: 'opponent_crapette',
  OPPONENT_WASTE: 'opponent_waste', TABLEAU: 'tableau', FOUNDATION: 'foundation',
});
