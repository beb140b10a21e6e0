"""Each connection's network delay, measured (R18.4; protocol.md v1.2, "Network delay").

Every socket that passed hello is pinged with websocket ping frames of the app's
own (`edge/pings.py`): the first `FIRST_PING_S` after hello, then every
`PING_EVERY_S`. Its last `SAMPLES` round trips are kept; its delay (`lag_ms`) is
half their median, rounded to a ms, None before the first pong. Pings and pongs
are real time, whatever the game's clock (a manual clock in tests only moves game
time): the delay is a fact of the network.

What it is used for:
- the view's `lag_ms` on this connection (projection.py adds it per socket);
- a `crisp` read from this socket carries the delay as its allowance
  (`with_allowance`): the engine credits a call that arrives at most
  min(allowance, 300 ms) after the window's `closes_at` (engine/lateness.py);
- when the delay shown last would be `LAG_STEP_MS` off (or none was shown and it is
  that high), the socket gets an update of its own with the table it was last
  sent (`Connection.resend`), so a phone on a slow network learns it without
  waiting for the next change of the table.
"""

from __future__ import annotations

import asyncio
import collections
from collections.abc import Callable
from typing import TYPE_CHECKING

from crisp.engine import Action
from crisp.engine.actions import CallCrisp
from crisp.server.edge.pings import PING_KEY, Ping

if TYPE_CHECKING:
    from crisp.server.sockets.connection import Connection

FIRST_PING_S = 1.0  # after hello (protocol: "the first within about 1 s")
PING_EVERY_S = 5.0
PONG_WAIT_S = 5.0  # a pong later than this is not counted (the next ping goes out)
SAMPLES = 5  # round trips kept
LAG_STEP_MS = 50  # a change of the delay this large is sent to the phone at once


class LagMeter:
    """One connection's round trips and the delay they give."""

    __slots__ = ("_lag", "_rtts", "sent", "timer")

    def __init__(self) -> None:
        self._rtts: collections.deque[float] = collections.deque(maxlen=SAMPLES)
        self._lag: int | None = None  # `lag_ms`, made once per pong (read per update)
        self.sent: int | None = None  # the `lag_ms` of the last update written
        # the next ping, while the socket lives (a timer, not a task per socket: issue 27)
        self.timer: asyncio.TimerHandle | None = None

    def add(self, rtt_ms: float) -> None:
        """A measured round trip, in ms."""
        self._rtts.append(max(0.0, rtt_ms))
        self._lag = round(_median(self._rtts) / 2)

    @property
    def lag_ms(self) -> int | None:
        """Half the median of the kept round trips (R18.4), or None before any."""
        return self._lag

    def shown(self) -> int | None:
        """The `lag_ms` an update written now carries (remembered as sent)."""
        self.sent = self.lag_ms
        return self.sent

    @property
    def news(self) -> bool:
        """The delay moved `LAG_STEP_MS` or more from the one last sent (none sent
        counting as 0): worth an update of its own."""
        lag = self.lag_ms
        return lag is not None and abs(lag - (self.sent or 0)) >= LAG_STEP_MS

    def stop(self) -> None:
        """Stop pinging (the socket ended)."""
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None


def _median(values: collections.deque[float]) -> float:
    """The median of a few values (`statistics.median`'s, without its generality:
    issue 38, it ran on every update of every socket)."""
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def with_allowance(action: Action, meter: LagMeter) -> Action:
    """A crisp call with the connection's delay as its allowance (R18.4); any other
    action as it is."""
    lag = meter.lag_ms
    if type(action) is CallCrisp and lag:
        return CallCrisp(lag)
    return action


def watch(conn: Connection, on_news: Callable[[Connection], None]) -> None:
    """Start pinging `conn` (when its websocket layer can: `edge/pings.py`);
    `on_news(conn)` when its delay is worth an update of its own. A timer of the
    loop per socket, each ping's pong a callback: no task, future or timeout per
    socket or ping (issue 27)."""
    ping = conn.ws.scope.get(PING_KEY)
    if ping is None or conn.lag.timer is not None:
        return
    loop = asyncio.get_running_loop()
    conn.lag.timer = loop.call_later(FIRST_PING_S, _ping, conn, ping, on_news, loop)


def _ping(conn: Connection, ping: Ping, on_news: Callable[[Connection], None],
          loop: asyncio.AbstractEventLoop) -> None:  # fmt: skip
    """One ping, and the next one `PING_EVERY_S` later, until the socket closes; a pong
    later than `PONG_WAIT_S` is not counted."""
    meter = conn.lag
    if conn.closing or meter.timer is None:
        meter.timer = None
        return

    def on_pong(rtt_ms: float) -> None:
        if rtt_ms <= PONG_WAIT_S * 1000 and not conn.closing:
            meter.add(rtt_ms)
            if meter.news:
                on_news(conn)

    if not ping(on_pong):
        meter.timer = None  # the socket is closing
        return
    meter.timer = loop.call_later(PING_EVERY_S, _ping, conn, ping, on_news, loop)
