"""Who a client is, for the per-client limits (docs/deploy.md, "Limits").

The client of a request or websocket is its peer address, or, when the peer is
one of `CRISP_TRUSTED_PROXIES`, the address that proxy reports in
`X-Forwarded-For` (the rightmost one that is not itself a trusted proxy).
`create_app` puts uvicorn's `ProxyHeadersMiddleware` with exactly that list in
front of the app, so `scope["client"]` is already the client; uvicorn's own
handling (`FORWARDED_ALLOW_IPS`, which trusts loopback by default) is switched
off in `main.run`, so a local process cannot claim to be someone else.

Limits count per `client_key`: an IPv4 address, or the /64 network of an IPv6
address (one subscriber usually holds a whole /64, so counting per IPv6 address
would let one client be 2^64 clients). An IPv6 client also counts against its
/48 (`wider_key`): a site is often given a /48, which holds 65,536 /64s. Both
live in `ops/addresses.py`, so that the log throttle keys its lines the same way.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping
from typing import Any

from crisp.server.ops.addresses import (
    IPV6_PREFIX,
    IPV6_SITE_PREFIX,
    UNKNOWN,
    client_key,
    wider_key,
)

__all__ = ["IPV6_PREFIX", "IPV6_SITE_PREFIX", "UNKNOWN", "TrustedProxies", "client_key",
           "client_of", "wider_key"]


class TrustedProxies:
    """The addresses and networks of `CRISP_TRUSTED_PROXIES` (`*`: every peer)."""

    def __init__(self, entries: Iterable[str]) -> None:
        items = list(entries)
        self.everyone = "*" in items
        self.networks = [ipaddress.ip_network(e, strict=False) for e in items if e != "*"]
        self.entries = items

    def __contains__(self, host: object) -> bool:
        if self.everyone:
            return True
        if not self.networks or not isinstance(host, str):
            return False
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            return False
        return any(address in net for net in self.networks)

    def __bool__(self) -> bool:
        return self.everyone or bool(self.networks)


def client_of(scope: Mapping[str, Any]) -> str:
    """The `client_key` of an ASGI request or websocket (after the proxy headers)."""
    client = scope.get("client")
    return client_key(client[0] if client else None)
