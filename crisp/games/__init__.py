"""The games the table hosts, by id (design.md "Many games behind one table").

`get(game_id)` returns a registered `Game`; `register` adds one (the tests
register a test-only game); `DEFAULT` is the game of a client that names none.
"""

from .registry import DEFAULT, UnknownGame, all_games, get, register

__all__ = ["DEFAULT", "UnknownGame", "all_games", "get", "register"]
