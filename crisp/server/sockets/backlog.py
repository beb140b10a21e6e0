"""A seat's queue never holds a backlog of tables (issue 39).

Updates are versioned snapshots: a table replaces every older one. When a seat
is behind (its transport is paused for writing, or `connection.BEHIND` items
wait), `supersede` takes out of its queue the tables a new one makes out of date:
older or equal versions and resends of the last one written. The seat then gets
the latest table when it reads again; the events of the tables taken out are
dropped for it, as a resync drops them (looks are not: they stay owed until
shown, look_ledger.py). Errors and the close keep their place.

`Refresh` and `Resend` are the two queue items that are tables without being a
change of their own (connection.py writes them).
"""

from __future__ import annotations

import collections
from dataclasses import dataclass
from typing import Any

from crisp.server.rooms.document import Change


@dataclass(frozen=True)
class Refresh:
    """The current table, sent even if its version was sent already (once)."""

    change: Change


@dataclass(frozen=True)
class Resend:
    """The table this socket last wrote, written again with its news (its measured
    delay: R18.4): the same version, no events. Never the store's newer table: a
    change on its way to this socket keeps its events."""


def supersede(
    queue: collections.deque[Any], item: Change | Refresh
) -> tuple[collections.deque[Any], Change | Refresh]:
    """The queue without the tables `item` makes out of date, and what to queue:
    `item`, as a `Refresh` if a refresh it replaces was awaited."""
    change = item.change if isinstance(item, Refresh) else item
    version = change.version
    kept: collections.deque[Any] = collections.deque()
    refresh = False
    for queued in queue:
        if isinstance(queued, Resend) or (isinstance(queued, Change) and queued.version <= version):
            continue
        if isinstance(queued, Refresh) and queued.change.version <= version:
            refresh = True
            continue
        kept.append(queued)
    return kept, (Refresh(change) if refresh and isinstance(item, Change) else item)
