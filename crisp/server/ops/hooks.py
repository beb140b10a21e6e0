"""Observation seams for operations (metrics, tracing, structured logs).

The server calls these methods at the interesting moments; the default
implementation does nothing. An ops layer subclasses `ServerHooks` and passes an
instance to `create_app(settings, hooks=...)` (for example to count actions and
errors in Prometheus). Implementations must be fast and must never raise; they
never receive tokens.
"""

from __future__ import annotations

from collections.abc import Callable


class ServerHooks:
    """No-op hooks. Override what you need."""

    def room_created(self, room_code: str) -> None:
        """A room was created over HTTP."""

    def player_joined(self, room_code: str, player: str) -> None:
        """A player joined over HTTP."""

    def http_error(self, status: int, error_code: str) -> None:
        """An HTTP request was answered with an error body."""

    def ws_opened(self, room_code: str, player: str) -> None:
        """A websocket passed hello and now holds a seat."""

    def ws_closed(self, room_code: str, player: str | None, close_code: int | None) -> None:
        """A websocket that passed hello ended, with the close code the server sent,
        else the one the client sent (1006: the connection dropped without one;
        1012: the server is restarting)."""

    def ws_refused(self, reason: str) -> None:
        """A websocket was refused before or at hello (a `protocol.Refusal`: origin,
        hello_timeout, bad_hello, store_unavailable)."""

    def action(self, room_code: str, kind: str, seconds: float, error: str | None) -> None:
        """A client action was handled (error = the error code sent back, the
        `EndReason` when the socket was closed instead, or None)."""

    def action_update(self, room_code: str, kind: str, seconds: float) -> None:
        """The update for an accepted action left on the actor's socket, `seconds` after
        the action's message was received."""

    def error_sent(self, error_code: str) -> None:
        """An `error` message was sent on a websocket (bad_message, rate_limited, ...)."""

    def updates_sent(self, room_code: str, count: int) -> None:
        """A published room change was fanned out to `count` local connections."""

    def save_conflict(self, room_code: str) -> None:
        """A compare-and-set save lost a race and is being retried."""

    def timer_fired(self, room_code: str, lateness_ms: int) -> None:
        """The scheduler applied a room's deadline `lateness_ms` after it was due."""

    def computer_moved(self, room_code: str, player: str, kind: str) -> None:
        """This process made a computer move (`kind`: its action type) for `player`, a
        computer player or an away seat (R17.1, R17.2, R17.5), and saved it."""

    def limited(self, budget: str) -> None:
        """A client was refused for a spent budget (`rooms`, `joins`, `lookups`, `replays`,
        `hellos`; `messages` for a socket's messages; `connections` for a connection
        over a cap)."""

    def connection_dropped(self, reason: str) -> None:
        """The server closed a TCP connection at the edge (`per_client` or `total`: over
        a cap; `evicted`: an idle one closed to make room; `header_timeout`,
        `body_timeout`: too slow; `bad_utf8`: a websocket text frame that is not
        UTF-8; `not_reading`: a websocket aborted because its peer did not take
        what was written, issue 39)."""

    def watch_sockets(self, kernel_queue: Callable[[], int]) -> None:
        """The edge's reading of the bytes in its sockets' kernel send queues, for
        scrapes (issue 39)."""

    def log_suppressed(self, event: str, count: int) -> None:
        """`count` repeated log lines of `event` were left out (the throttle)."""

    def store_op(self, op: str, seconds: float, ok: bool) -> None:
        """A store call (`load`, `save`, `claim_due`, ...) took `seconds`; `ok` is False
        if it failed (StoreUnavailable or another error; for `ping`, no answer)."""


NOOP_HOOKS = ServerHooks()
