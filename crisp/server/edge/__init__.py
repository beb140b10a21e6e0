"""The edge: everything about strangers, before and around the rooms.

- `transport` TCP connections that cost nothing when idle: caps, eviction, the
  header deadline; `bodylimit` request bodies bounded in size and time;
- `clients` who a client is (trusted proxies); `limits` per-client budgets in the
  store; `ratelimit` websocket message buckets per seat and per client;
- `origin` the Origin check; `names` player names; `guards` the nesting guard of a
  client message's JSON.

May import: `crisp.server.ops`, `crisp.server.wire`, `crisp.store`.
"""
