"""Origin checks for browser requests (websocket handshakes, CORS).

With no allowed origins configured, only same-origin requests pass: the
Origin's host and port must equal the Host header's. A request without an Origin
header (a non-browser client: bots, load generator) is allowed.
"""

from __future__ import annotations

from urllib.parse import urlsplit

_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}


def _host_port(netloc: str, default_port: int | None) -> tuple[str, int | None] | None:
    try:
        parts = urlsplit("//" + netloc)
        host = (parts.hostname or "").lower()
        port = parts.port
    except ValueError:
        return None
    if not host:
        return None
    return host, port if port is not None else default_port


def origin_allowed(origin: str | None, host_header: str | None, allowed: list[str]) -> bool:
    """True if a request with this Origin (None = absent) and Host may proceed."""
    if origin is None:
        return True
    origin = origin.strip().lower().rstrip("/")
    if allowed:
        return "*" in allowed or origin in allowed
    try:
        parts = urlsplit(origin)
    except ValueError:
        return False
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return False
    default = _DEFAULT_PORTS[parts.scheme]
    mine = _host_port(parts.netloc, default)
    theirs = _host_port(host_header or "", default)
    return mine is not None and mine == theirs
