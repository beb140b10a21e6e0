"""Server settings, read from `CRISP_*` environment variables (pydantic-settings).

Every setting is validated when the server starts; a bad value stops it with a
message naming the variable (see `describe_error`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from .errors import validation_lines

ENV_PREFIX = "CRISP_"


class Settings(BaseSettings):
    """All knobs of the server. Field names map to `CRISP_<NAME>` env vars."""

    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, extra="ignore", frozen=True)

    host: str = Field(default="127.0.0.1", min_length=1, description="address to bind")
    port: int = Field(default=8000, ge=1, le=65535, description="TCP port to bind")
    workers: int = Field(default=1, ge=1, le=64, description="uvicorn worker processes")
    redis_url: str | None = Field(
        default=None, description="redis:// URL of the shared store; unset = in-memory, one process"
    )
    allowed_origins: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="browser Origins allowed on the websocket/API; empty = same origin only",
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
    log_level: Literal["critical", "error", "warning", "info", "debug"] = "info"
    log_format: Literal["json", "text"] = "text"
    test_hooks: bool = Field(
        default=False, description="accept test decks/dealer; honour time_scale"
    )
    time_scale: float = Field(default=1.0, gt=0, le=100, description="multiplies game durations")
    web_dir: Path | None = Field(default=None, description="directory of the static web client")

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
        if value is not None and not value.startswith(("redis://", "rediss://", "unix://")):
            raise ValueError("must start with redis://, rediss:// or unix://")
        return value

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

    @model_validator(mode="after")
    def _check_workers(self) -> Settings:
        if self.workers > 1 and self.redis_url is None:
            raise ValueError(
                "CRISP_WORKERS > 1 needs CRISP_REDIS_URL: the in-memory store is per process"
            )
        return self

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

