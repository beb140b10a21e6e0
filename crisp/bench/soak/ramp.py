"""The soak's servers' settings and its rooms (issue 23).

The servers run with production settings: the per-client limits, the rate limits,
the hello budget. The soak's players come through a trusted proxy
(`CRISP_TRUSTED_PROXIES=127.0.0.1` and `X-Forwarded-For`), each room from an
address of its own (four phones on one home network), and the garbage clients
from addresses of theirs, so every budget counts as it would in production. Test
hooks are on only for a time scale other than 1."""

from __future__ import annotations

import asyncio
import os
from typing import Any

import httpx

from crisp.server.ops import looplag

from ..client import Room
from .client import SoakDriver, SoakSeat

RAMP_BATCH = 25


def server_env(redis_url: str, time_scale: float, log_level: str = "warning") -> dict[str, str]:
    """`crisp serve`'s environment for the soak."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("CRISP_") and k != looplag.ENV}  # fmt: skip
    env.update({"CRISP_REDIS_URL": redis_url, "CRISP_TRUSTED_PROXIES": "127.0.0.1",
                "CRISP_LOG_LEVEL": log_level, "PYTHONUNBUFFERED": "1"})  # fmt: skip
    if time_scale != 1:
        env.update({"CRISP_TEST_HOOKS": "1", "CRISP_TIME_SCALE": str(time_scale)})
    return env


def address(i: int) -> str:
    """The address room i's phones come from (10.1.0.1, 10.1.0.2, ...)."""
    return f"10.{1 + i // 62_500}.{i // 250 % 250}.{i % 250 + 1}"


async def open_rooms(driver: SoakDriver, urls: list[str], rooms: int,
                     players: int) -> tuple[list[Room], list[SoakSeat]]:  # fmt: skip
    """Create `rooms` rooms of `players` seats over HTTP (in batches), the seats of
    each room spread over the servers; the seats are not connected yet."""
    out: list[Room] = []
    seats: list[SoakSeat] = []
    limits = httpx.Limits(max_connections=64, max_keepalive_connections=64)
    async with httpx.AsyncClient(limits=limits, timeout=30, trust_env=False) as http:

        async def one(i: int) -> tuple[Room, list[SoakSeat]]:
            headers = {"X-Forwarded-For": address(i)}
            made: list[dict[str, Any]] = []
            for k in range(players):
                path = "/api/rooms" if k == 0 else f"/api/rooms/{made[0]['code']}/players"
                r = await http.post(urls[i % len(urls)] + path, json={"name": f"soak{i}-{k}"},
                                    headers=headers)  # fmt: skip
                r.raise_for_status()
                made.append(r.json())
            room = Room(made[0]["code"], players)
            made_seats = [SoakSeat(driver, room, m["player_id"], m["token"], k == 0,
                                   "ws" + urls[(i + k) % len(urls)][4:], address(i))
                          for k, m in enumerate(made)]  # fmt: skip
            room.clients = list(made_seats)
            return room, made_seats

        for first in range(0, rooms, RAMP_BATCH):
            batch = range(first, min(rooms, first + RAMP_BATCH))
            for room, room_seats in await asyncio.gather(*(one(i) for i in batch)):
                out.append(room)
                seats.extend(room_seats)
    return out, seats
