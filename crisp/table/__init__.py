"""The generic table (issue 35): seats, host, options, start, kick, leave, add_bot,
rematch and the match tally, presence and away seats, the computer's seats, the
view of a seat or a watcher, the game's record and replay (R18.2), around any
registered game (crisp.games). It knows no card rule. `table` the state and its
operations, `view` the projection, `vocabulary` its wire names.

May import: `crisp.games` (the interface and the registry). Nothing of the server.
"""
