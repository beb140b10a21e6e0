"""The store as the server sees it: `observed_store(inner, hooks)`, the store's own
`TimedStore` reporting every call to the hooks and the log.

Each call is reported to `hooks.store_op(op, seconds, ok)` (metrics). A failing
operation is logged at warning level the first time it fails after working (so
an outage gives one line per operation, not one per call), and at info level
when it works again.
"""

from __future__ import annotations

import logging

from crisp.server.ops.hooks import ServerHooks
from crisp.server.ops.logs import fields
from crisp.store import Store, TimedStore

log = logging.getLogger("crisp.server.store")


class StoreReports:
    """What `TimedStore` reports, for the hooks and the log (one line per outage of
    each operation)."""

    def __init__(self, hooks: ServerHooks) -> None:
        self.hooks = hooks
        self._failing: set[str] = set()

    def __call__(self, op: str, code: str | None, seconds: float, error: str | None) -> None:
        self.hooks.store_op(op, seconds, error is None)
        where = f"room {code}: " if code else ""
        extra = fields(code, "store_failure" if error else "store_ok", op=op)
        if error is not None and op not in self._failing:
            self._failing.add(op)
            log.warning("%sstore %s failed: %s", where, op, error, extra=extra)
        elif error is None and op in self._failing:
            self._failing.discard(op)
            log.info("store %s works again", op, extra=extra)


def observed_store(inner: Store, hooks: ServerHooks) -> TimedStore:
    """`inner`, every call timed and reported to `hooks` and the log."""
    return TimedStore(inner, StoreReports(hooks))
