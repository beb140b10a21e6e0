"""Who a client is, as an address (docs/deploy.md, "Limits"): the key every
per-client limit counts by, and the log throttle too (throttle.py). It lives here,
below the edge, so that the log filters of `ops` key lines like the edge's limits
(`edge/clients.py` re-exports it).

`client_key`: an IPv4 address, or the /64 network of an IPv6 address (one
subscriber usually holds a whole /64, so counting per IPv6 address would let one
client be 2^64 clients). `wider_key`: the /48 around an IPv6 client's /64 (a site
is often given a /48, which holds 65,536 /64s).
"""

from __future__ import annotations

import ipaddress

IPV6_PREFIX = 64
IPV6_SITE_PREFIX = 48
UNKNOWN = "unknown"  # a client without an address (a unix socket, a test transport)


def client_key(host: str | None) -> str:
    """The identity limits count by: an IPv4 address, an IPv6 /64 network
    (`2001:db8:1:2::/64`), or the text as given when it is not an address."""
    if not host:
        return UNKNOWN
    try:
        address = ipaddress.ip_address(host.strip("[]"))
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
