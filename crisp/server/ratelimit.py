"""Per-connection flood control: a token bucket plus strikes (close 4429)."""

from __future__ import annotations

import time
from collections import deque

STRIKE_WINDOW_S = 10.0


class TokenBucket:
    """`rate` tokens per second, at most `burst` stored; one token per message."""

    def __init__(self, rate: float, burst: int) -> None:
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
        self.refusals.append(now)
        while self.refusals and self.refusals[0] < now - STRIKE_WINDOW_S:
            self.refusals.popleft()
        return "close" if len(self.refusals) >= self.max_strikes else "limited"
