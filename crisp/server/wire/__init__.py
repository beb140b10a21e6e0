"""The wire: what crosses the network, and nothing else (protocol.md).

- `vocabulary` the server's own wire names: close codes, server error codes, why a
  socket ended or was refused (the engine's names are `crisp.engine`'s vocabulary);
- `client` client messages: the models, the parser (actions through the engine's one
  reader, `engine.action_from_dict`);
- `frames` server frames: the models of every update and error, `error_message`;
- `projection` updates as text, what the seats of a change share serialised once;
- `failures` the one table of how each failure is answered, over HTTP and sockets;
- `schema` the JSON Schema at `GET /api/protocol.json`.

May import: `crisp.engine`, `crisp.store` (its exceptions), `crisp.games` (the
game interface and registry). Nothing else of the server.
"""
