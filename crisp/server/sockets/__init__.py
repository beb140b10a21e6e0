"""The websocket side: `endpoint` serves `/ws/{code}` (hello, the seat, each client
message to the rooms service), `watcher_socket` a watcher's socket (R18.1), `reading`
the one read loop of both (sizes, rates, text frames), `connection` one socket's
ordered writes and its updates, `hub` this process's sockets by room and the
fan-out of each change.

May import: every other part of the server (`context` for the process's parts).
"""
