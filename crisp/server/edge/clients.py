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
/48 (`wider_key`): a site is often given a /48, which holds 65,536 /64s.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping
from typing import Any

IPV6_PREFIX = 64
IPV6_SITE_PREFIX = 48
UNKNOWN = "unknown"  # a client without an address (a unix socket, a test transport)


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


def client_key(host: str | None) -> str:
    """The identity limits count by: an IPv4 address, an IPv6 /64 network
    (`2001:db8:1:2::/64`), or the text as given when it is not an address."""
    if not host:
        return UNKNOWN
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host[:64]
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, IPV6_PREFIX), strict=False))
    return str(address)


def wider_key(client: str) -> str | None:
    """The /48 network around an IPv6 client's /64 (`client_key`), else None."""
    if "/" not in client:
        return None
    try:
        network = ipaddress.ip_network(client)
    except ValueError:
        return None
    if not isinstance(network, ipaddress.IPv6Network) or network.prefixlen <= IPV6_SITE_PREFIX:
        return None
    return str(network.supernet(new_prefix=IPV6_SITE_PREFIX))


def client_of(scope: Mapping[str, Any]) -> str:
    """The `client_key` of an ASGI request or websocket (after the proxy headers)."""
    client = scope.get("client")
    return client_key(client[0] if client else None)
