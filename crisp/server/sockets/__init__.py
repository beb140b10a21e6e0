"""The websocket side: `endpoint` serves `/ws/{code}` (hello, the seat, each client
message to the rooms service), `connection` one socket's ordered writes and its
updates, `hub` this process's sockets by room and the fan-out of each change.

May import: every other part of the server (`context` for the process's parts).
"""
