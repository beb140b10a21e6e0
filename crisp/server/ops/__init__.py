"""Operations: what an operator configures and watches, for every other part.

- `settings` the `CRISP_*` settings; `logs` and `throttle` the log format and the
  throttle no client can flood; `hooks` the observation seams and `metrics` their
  Prometheus implementation; `observed` the store wrapper that times every call;
- `looplag` (benchmarks) and `gctune` (the garbage collector of `crisp serve`).

May import: `crisp.server.wire`, `crisp.store`. Nothing else of the server.
"""
