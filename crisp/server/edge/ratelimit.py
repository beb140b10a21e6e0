"""Flood control on websockets: per seat and per client address, not per socket.

`SocketLimits` (one per process) keeps
- a `RateLimiter` per seat (room, player): a token bucket (`CRISP_RATE_PER_S`,
  `CRISP_RATE_BURST`) plus strikes (`CRISP_RATE_STRIKES` refusals in 10 s close
  the socket with 4429). It outlives the socket, so reconnecting does not refill
  the bucket or forget the strikes;
- a token bucket per client address (`CRISP_CLIENT_RATE_PER_S`, burst twice that)
  over all the messages of all its sockets; a refusal there is a strike of the
  seat that sent the message;
- the count of open websockets per client address (`CRISP_MAX_CONNECTIONS_PER_CLIENT`;
  behind a trusted proxy this is the cap, since every TCP connection comes from
  the proxy).

Entries whose buckets are full again (and strikes old) are dropped by `prune()`:
a fresh one would be the same. With several
processes each keeps its own; a seat that reconnects to another process is held
back by its hello budget in the store (`limits.Limits.hello`).
"""

from __future__ import annotations

import time
from collections import deque

STRIKE_WINDOW_S = 10.0


class TokenBucket:
    """`rate` tokens per second, at most `burst` stored; one token per message."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.tokens = float(burst)
        self.last = time.monotonic()

    def take(self, now: float | None = None) -> bool:
        """Spend one token if there is one."""
        now = time.monotonic() if now is None else now
        self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate)
        self.last = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False

    def full_since(self, now: float) -> bool:
        """True if the bucket has refilled completely by `now`."""
        return self.tokens + (now - self.last) * self.rate >= self.burst


class RateLimiter:
    """A bucket plus a count of refusals in the last `STRIKE_WINDOW_S` seconds."""

    def __init__(self, rate: float, burst: int, strikes: int) -> None:
        self.bucket = TokenBucket(rate, burst)
        self.max_strikes = strikes
        self.refusals: deque[float] = deque()

    def check(self, now: float | None = None) -> str:
        """'ok', 'limited' (answer rate_limited) or 'close' (close with 4429)."""
        now = time.monotonic() if now is None else now
        if self.bucket.take(now):
            return "ok"
        return self.refuse(now)

    def refuse(self, now: float) -> str:
        """Count a refused message: 'limited', or 'close' at the last strike."""
        self.refusals.append(now)
        while self.refusals and self.refusals[0] < now - STRIKE_WINDOW_S:
            self.refusals.popleft()
        return "close" if len(self.refusals) >= self.max_strikes else "limited"

    def idle(self, now: float) -> bool:
        return self.bucket.full_since(now) and (
            not self.refusals or self.refusals[-1] < now - STRIKE_WINDOW_S
        )


class SocketLimits:
    """This process's message buckets per seat and per client, and its sockets per
    client."""

    def __init__(
        self, *, rate: float, burst: int, strikes: int, client_rate: float, max_sockets: int
    ) -> None:
        self.rate = rate
        self.burst = burst
        self.strikes = strikes
        self.client_rate = client_rate
        self.max_sockets = max_sockets
        self.seats: dict[tuple[str, str], RateLimiter] = {}
        self.clients: dict[str, TokenBucket] = {}
        self.sockets: dict[str, int] = {}

    # ---- sockets per client ----

    def open(self, client: str) -> bool:
        """Count a new websocket of `client`; False (not counted) over the cap."""
        held = self.sockets.get(client, 0)
        if self.max_sockets and held >= self.max_sockets:
            return False
        self.sockets[client] = held + 1
        return True

    def close(self, client: str) -> None:
        left = self.sockets.get(client, 1) - 1
        if left > 0:
            self.sockets[client] = left
        else:
            self.sockets.pop(client, None)

    # ---- messages ----

    def check(self, room_code: str, player_id: str, client: str, now: float | None = None) -> str:
        """One message of a seat from a client: 'ok', 'limited' or 'close' (4429)."""
        now = time.monotonic() if now is None else now
        seat = self.seats.get((room_code, player_id))
        if seat is None:
            seat = self.seats[(room_code, player_id)] = RateLimiter(
                self.rate, self.burst, self.strikes
            )
        bucket = self.clients.get(client)
        if bucket is None:
            bucket = self.clients[client] = TokenBucket(self.client_rate, 2 * self.client_rate)
        verdict = seat.check(now)
        if verdict == "ok" and not bucket.take(now):
            verdict = seat.refuse(now)
        return verdict

    def prune(self, now: float | None = None) -> None:
        """Forget the seats and clients whose buckets are full again."""
        now = time.monotonic() if now is None else now
        for key in [k for k, s in self.seats.items() if s.idle(now)]:
            del self.seats[key]
        for client in [c for c, b in self.clients.items() if b.full_since(now)]:
            del self.clients[client]
