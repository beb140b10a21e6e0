"""The wire protocol's JSON Schema (`GET /api/protocol.json`): the client messages
(client.py) and the server messages (frames.py)."""

from __future__ import annotations

from typing import Any

from crisp.server.wire.client import CLIENT_ADAPTER
from crisp.server.wire.frames import SERVER_ADAPTER, HttpErrorBody


def protocol_schema() -> dict[str, Any]:
    """JSON Schema of the client and server messages (GET /api/protocol.json)."""
    return {
        "title": "Crisp wire protocol v1",
        "client": CLIENT_ADAPTER.json_schema(),
        "server": SERVER_ADAPTER.json_schema(),
        "http_error": HttpErrorBody.model_json_schema(),
    }
