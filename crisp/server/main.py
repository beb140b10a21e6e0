"""`run()`: serve the app with uvicorn (used by `crisp serve`)."""

from __future__ import annotations

import logging
import sys
from typing import Any

import uvicorn
from pydantic import ValidationError

from .logs import log_config, uvicorn_level
from .settings import Settings, describe_error
from .ws import HARD_MAX_BYTES

APP_FACTORY = "crisp.server.app:create_app"
# After SIGTERM, time for requests and socket handlers in progress before uvicorn
# cancels them (socket handlers end at once: they write nothing at shutdown).
GRACEFUL_S = 5


def load_or_exit(**overrides: Any) -> Settings:
    """Settings from the environment; on a bad value print which and exit with status 2."""
    try:
        return Settings(**{k: v for k, v in overrides.items() if v is not None})
    except ValidationError as exc:
        print(describe_error(exc), file=sys.stderr)
        raise SystemExit(2) from None


def run(host: str | None = None, port: int | None = None, workers: int | None = None) -> None:
    """Serve Crisp. Arguments override CRISP_HOST / CRISP_PORT / CRISP_WORKERS."""
    settings = load_or_exit(host=host, port=port, workers=workers)
    logging.captureWarnings(True)  # Python warnings go through the log format too
    uvicorn.run(
        APP_FACTORY,
        factory=True,
        host=settings.host,
        port=settings.port,
        workers=settings.workers,
        ws_max_size=HARD_MAX_BYTES,
        # Updates are a few KB of JSON; compressing each one for every seat cost more
        # server CPU than anything else in `crisp bench` (docs/benchmarks.md).
        ws_per_message_deflate=False,
        log_level=uvicorn_level(settings),
        log_config=log_config(settings),
        proxy_headers=True,
        server_header=False,
        timeout_graceful_shutdown=GRACEFUL_S,
    )
