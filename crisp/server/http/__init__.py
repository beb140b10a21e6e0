"""HTTP: `api` the lobby routes (protocol.md "HTTP"), `games` the games hosted (v2:
GET /api/games, the game a new room names), `seat_move_routes` moving a seat to another
device (R18.5), `errors` every error answered
as `{"error": {...}}`, `static`, `shell`, `webassets` and `headers` the web client
and its delivery, `testclock` the manual clock's test hook.

May import: every other part of the server (`context` for the process's parts) and
`crisp.games` (`games`: GET /api/games).
"""
