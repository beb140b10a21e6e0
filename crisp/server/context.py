"""The per-process server context shared by HTTP handlers and sockets."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from crisp.store import Store

from .hooks import ServerHooks
from .hub import Hub
from .rooms import Rooms
from .scheduler import Scheduler
from .settings import Settings


@dataclass
class ServerContext:
    """Everything a request handler needs; stored as `app.state.ctx` during the lifespan."""

    settings: Settings
    hooks: ServerHooks
    store: Store
    rooms: Rooms
    hub: Hub
    scheduler: Scheduler
    web_dir: Path | None
