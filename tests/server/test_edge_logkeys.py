"""The log throttle counts clients like the other limits, under one ceiling over all
clients (issue 39; ops/throttle.py, docs/deploy.md "Logs").

Keys: an IPv4 address or an IPv6 /64 (`client_key`), and an IPv6 client also
spends from the /48 around it, which has `SITE_FACTOR` times the lines of one
key. Past the ceiling (lines a second over all clients) lines are left out and
counted, and the count is handed out once (`LogCeiling.drain`). Time is given to
the throttle, never waited for.
"""

from __future__ import annotations

import logging

from crisp.server.ops.throttle import SITE_FACTOR, AccessThrottle, LogCeiling, LogThrottle

T0 = 1000.0


def test_the_addresses_of_one_ipv6_64_share_one_budget() -> None:
    throttle = LogThrottle(30.0, lines=1, ceiling=LogCeiling(1000))
    assert throttle.allow_client("2001:db8:1:2::1", "refused", now=T0) == 0
    for host in ("2001:db8:1:2::2", "2001:db8:1:2:ffff::9", "[2001:db8:1:2::3]"):
        assert throttle.allow_client(host, "refused", now=T0) is None
    assert throttle.allow_client("2001:db8:1:3::1", "refused", now=T0) == 0  # another /64
    # the next interval: one line, which says how many were left out of the last
    assert throttle.allow_client("2001:db8:1:2::7", "refused", now=T0 + 30) == 3


def test_the_64s_of_one_ipv6_48_share_a_wider_budget() -> None:
    throttle = LogThrottle(30.0, lines=1, ceiling=LogCeiling(1000))
    logged = [throttle.allow_client(f"2001:db8:7:{n:x}::1", now=T0) for n in range(40)]
    assert sum(x is not None for x in logged) == SITE_FACTOR
    # another /48 has its own
    assert throttle.allow_client("2001:db8:8::1", now=T0) == 0
    # keys given by the edge (a reason and a client key) are counted the same way
    edge = LogThrottle(30.0, lines=1, ceiling=LogCeiling(1000))
    logged = [edge.allow(("per_client", f"2001:db8:9:{n:x}::/64"), now=T0) for n in range(40)]
    assert sum(x is not None for x in logged) == SITE_FACTOR


def test_ipv4_clients_are_one_address_each() -> None:
    throttle = LogThrottle(30.0, lines=1, ceiling=LogCeiling(1000))
    assert throttle.allow_client("198.51.100.7", now=T0) == 0
    assert throttle.allow_client("198.51.100.7", now=T0) is None
    assert throttle.allow_client("::ffff:198.51.100.7", now=T0) is None  # the same client
    assert throttle.allow_client("198.51.100.8", now=T0) == 0


def test_one_ceiling_over_all_clients_then_a_count() -> None:
    """250 IPv4 addresses, each within its own budget: the ceiling lets its burst
    through, then its rate, and counts the rest (issue 39: 9,863 lines in 10 s)."""
    ceiling = LogCeiling(per_s=20.0)
    throttle = LogThrottle(30.0, lines=100, ceiling=ceiling)
    logged = 0
    for second in range(10):
        for n in range(250):
            for _ in range(4):  # 1,000 lines a second
                if throttle.allow_client(f"10.0.{n // 200}.{n % 200}", now=T0 + second) is not None:
                    logged += 1
    assert logged == ceiling.burst + 9 * 20  # its burst (5 s of its rate), then 20 a second
    assert ceiling.drain() == 10_000 - logged
    assert ceiling.drain() == 0  # handed out once


def test_uvicorns_access_lines_are_keyed_by_client_under_the_ceiling() -> None:
    flt = AccessThrottle(interval=30.0, lines=2, ceiling=LogCeiling(1000))

    def line(client: str) -> bool:
        record = logging.LogRecord("uvicorn.access", logging.INFO, __file__, 1,
                                   '%s - "%s %s HTTP/%s" %d', (client, "GET", "/", "1.1", 200),
                                   None)
        return flt.filter(record)

    assert [line(f"2001:db8:5:6::{n}:4000{n}") for n in range(1, 5)] == [True, True, False, False]
    assert line("192.0.2.1:5000") and line("192.0.2.1:5001") and not line("192.0.2.1:5002")
