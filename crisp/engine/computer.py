"""Which seats the computer must act for right now (R17.1, R17.2, R17.6).

The engine decides *who* the computer plays and *when* it has something to do;
what it plays is `crisp.bots`' choice, applied by the server through `apply`.
"""

from __future__ import annotations

from .clock import at_moment
from .legality import has_window
from .presence import paused
from .state import State
from .vocabulary import PEEK, PLAYING, ROUND_OVER, BotLevel

AWAY_LEVEL = BotLevel.NORMAL  # the level the computer plays an away seat at (R17.2)


def computer_seats(state: State, now: int) -> list[tuple[str, str]]:
    """`(player id, level)` of every seat the computer must act for at `now`, in seat
    order: computer players (R17.1, R17.5) and away seats (R17.2, at "normal") that
    have something to do - their turn and each of its draws (also before the turn
    may start: ask `crisp.bots.act_at` when), their open crisp window, the peek
    confirmation (R16.2) and the next-round confirmation (R16.5). Empty while every
    human seat is away (R17.6: nothing acts) and in the lobby and at game over."""
    state = at_moment(state, now)
    status = state.status
    if status not in (PEEK, PLAYING, ROUND_OVER) or paused(state):
        return []
    turn = state.turn
    out = []
    for seat, p in enumerate(state.players):
        level = p.bot_level or (AWAY_LEVEL if p.away else None)
        if level is None:
            continue
        if status == PLAYING:
            mine = turn is not None and turn.player == seat
            if mine or (state.caller is None and has_window(state, seat)):
                out.append((p.id, level))
        elif not p.ready:
            out.append((p.id, level))
    return out
