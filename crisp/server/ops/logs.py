"""Logging setup: plain text or one JSON object per line (`CRISP_LOG_FORMAT`).

Nothing logged by the server contains a token: sockets log room codes and player
ids only, and neither request bodies nor client messages are ever logged. uvicorn
stays at `info` even with `CRISP_LOG_LEVEL=debug`, because at `debug` it logs
websocket frames, and a `hello` frame carries a token.

Lines about a room carry structured fields (`fields()`): in JSON, `room`,
`event`, `player`, ... next to `msg`; in text, the message names the room.
"""

from __future__ import annotations

import json
import logging
import time
from typing import Any

from crisp.server.ops.settings import Settings

TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
FIELDS_ATTR = "crisp_fields"


def fields(room: str | None = None, event: str | None = None, **more: Any) -> dict[str, Any]:
    """`extra=` for a log call: structured fields (None values are left out)."""
    values = {"room": room, "event": event, **more}
    return {FIELDS_ATTR: {k: v for k, v in values.items() if v is not None}}


class JsonFormatter(logging.Formatter):
    """One JSON object per record: ts, level, logger, msg, the record's `fields()`
    (room, event, player, ...) and exc (a traceback) if any."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        extra = getattr(record, FIELDS_ATTR, None)
        if isinstance(extra, dict):
            for key, value in extra.items():
                out.setdefault(key, value)
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False, default=str)


class DropSocketChatter(logging.Filter):
    """Drops uvicorn's "connection open" / "connection closed" lines: they name no room,
    and Crisp logs every socket's opening and closing itself (room, player, close code)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (
            record.name.startswith("uvicorn")
            and record.getMessage() in ("connection open", "connection closed")
        )


def uvicorn_level(settings: Settings) -> str:
    """uvicorn's log level: never `debug`, because uvicorn then logs every websocket
    frame, and a `hello` frame carries a token."""
    return "info" if settings.log_level == "debug" else settings.log_level


def log_config(settings: Settings) -> dict[str, Any]:
    """A `logging.config.dictConfig` dict for uvicorn, the `crisp` loggers and the root
    logger (asyncio, warnings and libraries, at `warning`), all through one formatter so
    that every line of a JSON log is JSON."""
    formatter: dict[str, Any] = (
        {"()": "crisp.server.ops.logs.JsonFormatter"}
        if settings.log_format == "json"
        else {"format": TEXT_FORMAT}
    )
    level = settings.log_level.upper()
    server_level = uvicorn_level(settings).upper()
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"default": formatter},
        "filters": {
            "chatter": {"()": "crisp.server.ops.logs.DropSocketChatter"},
            # per client address, at most so many access lines per interval (throttle.py)
            "clients": {
                "()": "crisp.server.ops.throttle.AccessThrottle",
                "interval": settings.log_interval_s,
            },
        },
        "handlers": {
            "default": {
                "class": "logging.StreamHandler",
                "formatter": "default",
                "filters": ["chatter"],
                "stream": "ext://sys.stderr",
            }
        },
        "loggers": {
            "crisp": {"handlers": ["default"], "level": level, "propagate": False},
            "uvicorn": {"handlers": ["default"], "level": server_level, "propagate": False},
            "uvicorn.error": {"level": server_level, "filters": ["clients"]},
            "uvicorn.access": {
                "handlers": ["default"], "level": server_level, "propagate": False,
                "filters": ["clients"],
            },
            "py.warnings": {"handlers": ["default"], "level": "WARNING", "propagate": False},
        },
        "root": {"handlers": ["default"], "level": "WARNING"},
    }
