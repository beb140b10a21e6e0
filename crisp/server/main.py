"""`run()`: serve the app with uvicorn (used by `crisp serve`)."""

from __future__ import annotations

import logging
import sys
from typing import Any

import uvicorn
from pydantic import ValidationError

from crisp.server.edge.transport import EdgeHttpProtocol, raise_file_limit
from crisp.server.edge.wsprotocol import WS_PROTOCOL
from crisp.server.ops.logs import log_config, uvicorn_level
from crisp.server.ops.settings import Settings, describe_error
from crisp.server.sockets.reading import HARD_MAX_BYTES

APP_FACTORY = "crisp.server.app:serve_app"
# After SIGTERM, time for requests and socket handlers in progress before uvicorn
# cancels them (socket handlers end at once: they write nothing at shutdown).
GRACEFUL_S = 5
KEEP_ALIVE_S = 5  # an idle keep-alive connection is closed after this (uvicorn's default)


def load_or_exit(**overrides: Any) -> Settings:
    """Settings from the environment; on a bad value print which and exit with status 2."""
    try:
        return Settings(**{k: v for k, v in overrides.items() if v is not None})
    except ValidationError as exc:
        print(describe_error(exc), file=sys.stderr)
        raise SystemExit(2) from None


def uvicorn_options() -> dict[str, Any]:
    """The uvicorn options every Crisp server runs with (also the tests' servers):
    the guarded protocols of `transport.py`, and no proxy-header handling of
    uvicorn's own: the app does it with `CRISP_TRUSTED_PROXIES` (clients.py)."""
    return {
        "http": EdgeHttpProtocol,
        "ws": WS_PROTOCOL,
        "ws_max_size": HARD_MAX_BYTES,
        # Updates are a few KB of JSON; compressing each one for every seat cost more
        # server CPU than anything else in `crisp bench` (docs/benchmarks.md).
        "ws_per_message_deflate": False,
        "proxy_headers": False,
        "server_header": False,
        "timeout_keep_alive": KEEP_ALIVE_S,
    }


def run(host: str | None = None, port: int | None = None, workers: int | None = None) -> None:
    """Serve Crisp. Arguments override CRISP_HOST / CRISP_PORT / CRISP_WORKERS."""
    settings = load_or_exit(host=host, port=port, workers=workers)
    logging.captureWarnings(True)  # Python warnings go through the log format too
    raise_file_limit()  # before the workers start: they inherit it
    uvicorn.run(
        APP_FACTORY,
        factory=True,
        host=settings.host,
        port=settings.port,
        workers=settings.workers,
        log_level=uvicorn_level(settings),
        log_config=log_config(settings),
        timeout_graceful_shutdown=GRACEFUL_S,
        **uvicorn_options(),
    )
