"""The manual clock's test hook: `GET/POST /api/test/clock` (docs/protocol-additions.md,
"Test hooks"), served only with `CRISP_TEST_HOOKS=1` and `CRISP_CLOCK=manual`.

`POST` moves the clock forward (`advance_ms`, `to_ms`, or `next`: to the earliest
room deadline in the store) and answers once every deadline due by then has been
applied and its updates written to this process's sockets (`settle`).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, Field

from crisp.server.context import ServerContext
from crisp.server.rooms import leases, scheduler
from crisp.server.rooms.codes import normalize_code
from crisp.server.rooms.serverclock import ManualClock
from crisp.server.wire.failures import ApiError
from crisp.server.wire.vocabulary import ServerErrorCode

router = APIRouter()


class ClockMove(BaseModel):
    """One of `advance_ms`, `to_ms` or `next` (none: just read the clock)."""

    model_config = ConfigDict(extra="forbid")

    advance_ms: int | None = Field(default=None, ge=0, le=10 * 24 * 3600 * 1000)
    to_ms: int | None = Field(default=None, ge=0)
    next: bool = False
    room: str | None = Field(default=None, max_length=16)


def _clock(ctx: ServerContext) -> ManualClock:
    clock = ctx.clock
    if not isinstance(clock, ManualClock):  # routes are added only for a manual clock
        raise ApiError(404, ServerErrorCode.NOT_FOUND, "the clock is not manual")
    return clock


async def settle(ctx: ServerContext) -> None:
    """Wait until the scheduler and presence loops sleep on the clock for a later time
    and every local socket has written what it was given."""
    await _clock(ctx).settled((scheduler.SLEEPER, leases.SLEEPER), lambda: ctx.hub.idle)


async def _answer(ctx: ServerContext, room: str | None) -> dict[str, Any]:
    out: dict[str, Any] = {"now": ctx.clock.now_ms(), "due": await ctx.store.next_due_ms()}
    if room is not None:
        code = normalize_code(room)
        doc = None if code is None else await ctx.rooms.load(code)
        out["version"] = None if doc is None else int(doc.state.version)
    return out


@router.get("/api/test/clock", include_in_schema=False)
async def read_clock(request: Request, room: str | None = None) -> dict[str, Any]:
    """The clock's time, the store's next room deadline, and a room's version."""
    ctx: ServerContext = request.app.state.ctx
    _clock(ctx)
    return await _answer(ctx, room)


@router.post("/api/test/clock", include_in_schema=False)
async def move_clock(request: Request, move: ClockMove) -> dict[str, Any]:
    """Move the clock forward and settle (see the module docstring)."""
    ctx: ServerContext = request.app.state.ctx
    clock = _clock(ctx)
    target = clock.now_ms()
    if move.advance_ms is not None:
        target += move.advance_ms
    if move.to_ms is not None:
        target = max(target, move.to_ms)
    if move.next:
        due = await ctx.store.next_due_ms()
        if due is not None:
            target = max(target, due)
    await clock.advance_to(target, lambda: settle(ctx))
    return await _answer(ctx, move.room)
