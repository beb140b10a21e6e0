"""Server settings, read from `CRISP_*` environment variables (pydantic-settings).

Every setting is validated when the server starts; a bad value stops it with a
message naming the variable (see `describe_error`).
"""

from __future__ import annotations

import ipaddress
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from crisp.server.wire.failures import validation_lines

ENV_PREFIX = "CRISP_"
_UNITS = {"s": 1, "m": 60, "h": 3600}
_BUDGET = re.compile(r"^\s*(\d+)\s*/\s*(\d+(?:\.\d+)?)?\s*([smh])\s*$")
# An origin, optionally with a path prefix: no quotes, spaces, query or fragment.
_PUBLIC_URL = re.compile(
    r"^https?://(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?(?:/[A-Za-z0-9._~/-]*)?$"
)


@dataclass(frozen=True)
class Budget:
    """A per-client limit: at most `count` in any `seconds` (a bucket of `count`
    that refills evenly over `seconds`). Written `"20/1h"`, `"10/5m"`, `"30/90s"`."""

    count: int
    seconds: float

    @property
    def per_s(self) -> float:
        return self.count / self.seconds

    def __str__(self) -> str:
        for unit in ("h", "m"):
            if self.seconds % _UNITS[unit] == 0:
                return f"{self.count}/{int(self.seconds // _UNITS[unit])}{unit}"
        return f"{self.count}/{self.seconds:g}s"


def _budget(value: Any) -> Any:
    """`"N/<duration>"` -> Budget; `"off"` -> None (no limit)."""
    if not isinstance(value, str):
        return value
    if value.strip().lower() == "off":
        return None
    found = _BUDGET.match(value)
    if found is None:
        raise ValueError('write a limit as "N/<duration>", e.g. "20/1h", "10/5m", or "off"')
    count, amount, unit = int(found[1]), float(found[2] or 1), found[3]
    if count < 1 or amount <= 0:
        raise ValueError("a limit needs a count of at least 1 and a duration above 0")
    return Budget(count, amount * _UNITS[unit])


BudgetSetting = Annotated[Budget | None, BeforeValidator(_budget)]


class Settings(BaseSettings):
    """All knobs of the server. Field names map to `CRISP_<NAME>` env vars."""

    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, extra="ignore", frozen=True)

    host: str = Field(default="127.0.0.1", min_length=1, description="address to bind")
    port: int = Field(default=8000, ge=1, le=65535, description="TCP port to bind")
    workers: int = Field(default=1, ge=1, le=64, description="uvicorn worker processes")
    redis_url: str | None = Field(
        default=None,
        description="redis:// (or redis+cluster://) URL of the shared store; unset = in-memory",
    )
    allowed_origins: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="browser Origins allowed on the websocket/API; empty = same origin only",
    )
    max_rooms: int = Field(
        default=100_000, ge=0, description="rooms in the store, all processes (0 = no cap)"
    )
    unopened_room_ttl_s: int = Field(
        default=600, ge=10,
        description="a room whose seats never connected is deleted after this long",
    )
    empty_lobby_ttl_s: int = Field(
        default=1800, ge=10,
        description="a lobby with no connected human seat for this long is deleted",
    )
    room_idle_ttl_s: int = Field(
        default=6 * 3600, ge=10, description="a room expires after this idle time"
    )
    max_message_bytes: int = Field(
        default=4096, ge=256, le=65536, description="largest client websocket message accepted"
    )
    rate_per_s: float = Field(default=10.0, gt=0, le=1000, description="client messages per second")
    rate_burst: int = Field(default=20, ge=1, le=10000, description="token-bucket size")
    rate_strikes: int = Field(
        default=4, ge=1, le=1000, description="rate-limited messages in 10 s before closing 4429"
    )
    hello_timeout_s: float = Field(default=5.0, gt=0, le=300, description="time allowed for hello")
    # ---- the edge (docs/deploy.md, "Limits") ----
    trusted_proxies: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="reverse proxies whose X-Forwarded-For is believed (addresses, CIDRs, '*')",
    )
    http_limits: Literal["on", "off"] = Field(
        default="on", description="'off' turns the per-client HTTP limits off (test hooks only)"
    )
    limit_rooms: BudgetSetting = Field(
        default=Budget(20, 3600), description="rooms one client may create"
    )
    limit_joins: BudgetSetting = Field(
        default=Budget(30, 600), description="joins one client may make"
    )
    limit_lookups: BudgetSetting = Field(
        default=Budget(10, 300),
        description="look-ups of room codes that do not exist (GET, join, hello), per client",
    )
    limit_replays: BudgetSetting = Field(
        default=Budget(60, 60),
        description="reads of round replays (GET /api/rooms/{code}/rounds/{n}), per client",
    )
    limit_hellos: BudgetSetting = Field(
        default=Budget(10, 60), description="hellos (reconnects) of one seat"
    )
    client_rate_per_s: float = Field(
        default=50.0, gt=0, le=100000,
        description="websocket messages per second from one client address (all its sockets)",
    )
    connect_rate_per_s: float = Field(
        default=30.0, ge=0, le=10_000,
        description="connections one client address may open per second (burst 2x; 0 = no limit)",
    )
    max_connections_per_client: int = Field(
        default=64, ge=0, description="open connections of one client address (0 = no cap)"
    )
    max_connections: int = Field(
        default=0, ge=0, description="open connections of the process (0 = from the file limit)"
    )
    header_timeout_s: float = Field(
        default=10.0, gt=0, le=300, description="time for a request's headers to arrive"
    )
    body_timeout_s: float = Field(
        default=10.0, gt=0, le=300, description="time for a request's body to arrive"
    )
    log_interval_s: float = Field(
        default=30.0, gt=0, le=3600,
        description="repeated client errors of one seat or address: one log line per interval",
    )
    log_ceiling_per_s: float = Field(
        default=20.0, gt=0, le=100_000,
        description="log lines about clients per second, all clients together (then counted)",
    )
    socket_sndbuf_bytes: int = Field(
        default=32768, ge=0, le=64 << 20,
        description="each accepted socket's kernel send buffer, SO_SNDBUF (0 = the kernel's)",
    )
    log_level: Literal["critical", "error", "warning", "info", "debug"] = "info"
    log_format: Literal["json", "text"] = "text"
    test_hooks: bool = Field(
        default=False, description="accept test decks/dealer; honour time_scale"
    )
    time_scale: float = Field(default=1.0, gt=0, le=100, description="multiplies game durations")
    test_fault: str | None = Field(
        default=None, description="a crash point the process dies at (test hooks only)"
    )
    clock: Literal["real", "manual"] = Field(
        default="real",
        description="manual: game time moves only by POST /api/test/clock (test hooks only)",
    )
    web_dir: Path | None = Field(default=None, description="directory of the static web client")
    public_url: str | None = Field(
        default=None,
        description=(
            "the address phones open (http(s)://host[:port]); the lobby's link and QR code use it"
        ),
    )

    @field_validator("log_level", mode="before")
    @classmethod
    def _lower_level(cls, value: Any) -> Any:
        return value.lower() if isinstance(value, str) else value

    @field_validator("log_format", mode="before")
    @classmethod
    def _lower_format(cls, value: Any) -> Any:
        return value.lower() if isinstance(value, str) else value

    @field_validator("redis_url", mode="before")
    @classmethod
    def _blank_is_none(cls, value: Any) -> Any:
        if isinstance(value, str) and not value.strip():
            return None
        return value

    @field_validator("redis_url")
    @classmethod
    def _check_redis_url(cls, value: str | None) -> str | None:
        schemes = ("redis://", "rediss://", "unix://", "redis+cluster://", "rediss+cluster://")
        if value is not None and not value.lower().startswith(schemes):
            raise ValueError(
                "must start with redis://, rediss://, unix:// or (a Redis Cluster) "
                "redis+cluster:// or rediss+cluster://")
        return value

    @field_validator("public_url", mode="before")
    @classmethod
    def _blank_url_is_none(cls, value: Any) -> Any:
        if isinstance(value, str) and not value.strip():
            return None
        return value

    @field_validator("public_url")
    @classmethod
    def _check_public_url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        url = value.strip().rstrip("/")
        if not _PUBLIC_URL.match(url):
            raise ValueError("must be an http:// or https:// address, e.g. http://192.168.1.20:8000")
        return url

    @field_validator("trusted_proxies", mode="before")
    @classmethod
    def _split_proxies(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [part.strip() for part in value.split(",") if part.strip()]
        return value

    @field_validator("trusted_proxies")
    @classmethod
    def _check_proxies(cls, value: list[str]) -> list[str]:
        for entry in value:
            if entry != "*":
                try:
                    ipaddress.ip_network(entry, strict=False)
                except ValueError:
                    raise ValueError(f"{entry!r} is not an IP address, a CIDR or '*'") from None
        return value

    @field_validator("http_limits", mode="before")
    @classmethod
    def _lower_limits(cls, value: Any) -> Any:
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator("allowed_origins", mode="before")
    @classmethod
    def _split_origins(cls, value: Any) -> Any:
        if isinstance(value, str):
            text = value.strip()
            if text.startswith("["):
                return json.loads(text)
            return [part.strip() for part in text.split(",") if part.strip()]
        return value

    @field_validator("allowed_origins")
    @classmethod
    def _check_origins(cls, value: list[str]) -> list[str]:
        out = []
        for origin in value:
            origin = origin.strip().rstrip("/")
            if origin != "*" and not origin.startswith(("http://", "https://")):
                raise ValueError(f"{origin!r} is not '*' or an http(s):// origin")
            out.append(origin.lower())
        return out

    @field_validator("clock", mode="before")
    @classmethod
    def _lower_clock(cls, value: Any) -> Any:
        return value.strip().lower() if isinstance(value, str) else value

    @model_validator(mode="after")
    def _check_clock(self) -> Settings:
        if self.clock == "manual" and not self.test_hooks:
            raise ValueError("CRISP_CLOCK=manual needs CRISP_TEST_HOOKS=1 (a test hook)")
        if self.clock == "manual" and self.workers > 1:
            raise ValueError("CRISP_CLOCK=manual runs one process (CRISP_WORKERS=1)")
        return self

    @model_validator(mode="after")
    def _check_workers(self) -> Settings:
        if self.workers > 1 and self.redis_url is None:
            raise ValueError(
                "CRISP_WORKERS > 1 needs CRISP_REDIS_URL: the in-memory store is per process"
            )
        return self

    @property
    def effective_http_limits(self) -> bool:
        """Whether the per-client HTTP limits apply: `http_limits=off` is a test hook,
        honoured only with test hooks on (protocol.md v1.1, "Test hooks")."""
        return not (self.test_hooks and self.http_limits == "off")

    @property
    def effective_time_scale(self) -> float:
        """The time scale the engine gets: `time_scale` only with test hooks on."""
        return self.time_scale if self.test_hooks else 1.0


def describe_error(exc: ValidationError) -> str:
    """A readable multi-line message naming the env var of each bad setting."""
    lines = validation_lines(exc.errors(), _env_var)
    return "\n".join(["invalid Crisp server settings:", *(f"  {line}" for line in lines)])


def _env_var(loc: tuple[Any, ...]) -> str:
    return ENV_PREFIX + str(loc[0]).upper() if loc else "(settings)"

