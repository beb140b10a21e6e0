"""A room's life: every change to a room, every deadline, every seat the computer plays.

- `service` the rooms service (create, join, connect, act, advance, ...) and
  `changes` the one compare-and-set path of every change (`RoomEvents` says where
  a saved change goes in this process); `document` the stored room document and the
  published change message; `doccache` this process's copies; `codes` room codes
  and seat tokens;
- `scheduler` wakes rooms at their deadlines, `leases` presence that survives
  crashes (R17.3), both `loops.StoreLoop`s on `serverclock`, the one clock seam;
- `computer_seats` the seats the computer plays (R17); `look_ledger` owed looks
  (R16.3); `seat_moves` moving a seat to another device with a one-time code (R18.5);
  `watch_count` the watchers counted in the document (R18.1).

May import: `crisp.engine`, `crisp.bots`, `crisp.store`, `crisp.games`, `crisp.server.wire`,
`crisp.server.ops`, `crisp.server.edge`. Never sockets or HTTP.
"""
