"""The one projection of the table for a seat (R16.3, R16.4): the view of protocol.md."""

from __future__ import annotations

from typing import Any

from .cards import card_text
from .clock import at_moment
from .legality import legal_types
from .state import Player, State, Window
from .vocabulary import GAME_OVER, PLAYING, ROUND_OVER

_HIDDEN = [None, None, None]


def view_for(state: State, player: str | None, now: int) -> dict[str, Any]:
    """The table as `player` may see it: the protocol view without `code`.

    No card identity appears except public ones (the discard top, the Kings lying
    beside the piles (R9.3), revealed hands at a round's end) and the card this
    player holds right now (R16.3). `player` None is a watcher, nobody's seat
    (R18.1): `you` null, `watching` true, no card held, nothing legal.
    """
    seat = None if player is None else state.seat_of(player)
    if seat is None and player is not None:
        raise KeyError(player)
    state = at_moment(state, now)
    revealed = state.status in (ROUND_OVER, GAME_OVER)
    players = state.players
    turn = state.turn
    windows = state.windows
    holding, legal, window = seat_fields(state, seat, now)
    turn_view = None
    if state.status == PLAYING and turn is not None:
        turn_view = {
            "player": players[turn.player].id,
            "may_start_at": turn.may_start_at,
            "draw_deadline": turn.draw_deadline,
            "drawn_from": turn.drawn_from,
            "extra_draws": turn.extra_draws,
            "final": turn.final,
            "kings": [c.text for c in turn.kings],
        }
    return {
        "version": state.version,
        "status": state.status,
        "options": state.options.to_json(),
        "host": state.host,
        "you": player,
        "watching": player is None,
        "players": [
            {"id": p.id, "name": p.name, "seat": i, "connected": p.connected,
             "is_bot": p.bot_level is not None, "bot_level": p.bot_level, "away": p.away,
             "total": p.total, "ready": p.ready,
             "cards": [card_text(c) for c in p.hand] if revealed else list(_HIDDEN)}
            for i, p in enumerate(players)
        ],
        "round": state.round,
        "dealer": None if state.dealer is None else players[state.dealer].id,
        "turn": turn_view,
        "crisp": {
            "caller": None if state.caller is None else players[state.caller].id,
            "window": window,
            "windows": [{"player": players[w.player].id, "closes_at": w.closes_at}
                        for w in windows],
            "final_turns_left": [players[s].id for s in state.final_left],
        },
        "peek_ends_at": state.peek_ends_at,
        "stock_count": len(state.stock),
        "discard_top": card_text(state.discard[-1]) if state.discard else None,
        "discard_count": len(state.discard),
        "holding": holding,
        "legal": legal,
        "last_round": None if state.last_round is None else state.last_round.to_json(),
        "winners": list(state.winners),
        "history": [entry.to_json() for entry in state.history],
    }


def seat_fields(
    state: State, seat: int | None, now: int
) -> tuple[str | None, list[str], dict[str, Any] | None]:
    """What of `view_for` differs from seat to seat, besides `you` (R16.3): the card
    the seat holds (`holding`), its `legal` list and the `crisp.window` it is shown.
    `state` is the table at `now` already (`at_moment`). `seat` None: a watcher
    (R18.1), who holds nothing and may do nothing."""
    if seat is None:
        return None, [], _window_shown(state.windows, None, state.players)
    turn = state.turn
    holding = None
    if state.status == PLAYING and turn is not None and turn.player == seat:
        holding = card_text(state.holding)
    return holding, legal_types(state, seat, now), _window_shown(state.windows, seat,
                                                                  state.players)


def _window_shown(
    windows: list[Window], seat: int | None, players: list[Player]
) -> dict[str, Any] | None:
    """`crisp.window`: the viewer's own open window if any, else the newest (R10.4)."""
    if not windows:
        return None
    shown = next((w for w in windows if w.player == seat), windows[-1])
    return {"player": players[shown.player].id, "closes_at": shown.closes_at}
