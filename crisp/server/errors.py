"""Server-side exceptions and their protocol error codes."""

from __future__ import annotations


class ApiError(Exception):
    """An HTTP error answered as `{"error": {"code", "message"}}`."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


class RoomNotFound(Exception):
    """The room does not exist (never created, expired or deleted)."""


class RoomBusy(Exception):
    """A change kept losing compare-and-set races; the client may retry (error `busy`)."""


class SeatGone(Exception):
    """The player's seat no longer exists (kicked) although their socket is open."""
