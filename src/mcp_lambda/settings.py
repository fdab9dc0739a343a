"""The environment as one typed settings object, read once per container."""

from __future__ import annotations

import os
from collections.abc import Mapping
from functools import lru_cache
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

DEFAULT_ALLOWED_ORIGINS = (
    "http://localhost:*",
    "http://127.0.0.1:*",
    "https://localhost:*",
    "http://[::1]:*",
)


def _csv(value: str | None) -> tuple[str, ...]:
    return tuple(part.strip() for part in (value or "").split(",") if part.strip())


CSV_FIELDS = frozenset({"allowed_origins", "allowed_hosts"})


class SettingsError(ValueError):
    """The environment is not a valid configuration; the message names the variable."""


class Settings(BaseModel):
    """Everything the runtime reads from its environment. Secrets are never stored here, only their names."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    business: str = Field("demo", pattern=r"^[a-z][a-z0-9_]*$")
    environment: str = "local"
    # Browser origins allowed to call /mcp; a request with no Origin header is always allowed.
    allowed_origins: tuple[str, ...] = DEFAULT_ALLOWED_ORIGINS
    # Host header allow-list (DNS-rebinding protection for local servers); empty means any host.
    allowed_hosts: tuple[str, ...] = ()
    max_body_bytes: int = Field(1024 * 1024, ge=1024)
    tools_page_size: int = Field(100, ge=1, le=1000)
    list_ttl_ms: int = Field(300_000, ge=0)
    session_store: Literal["memory", "dynamodb"] = "memory"
    sessions_table: str | None = None
    session_ttl_seconds: int = Field(3600, ge=60)
    secret_id: str | None = None
    secrets_max_age_seconds: int = Field(300, ge=0)
    doubao_openapi_base_domain: str | None = None
    manifest_dir: str | None = None
    # HMAC key for multi round-trip `requestState`; else the business secret `request_state_key` is used.
    request_state_key: str | None = Field(None, min_length=16, repr=False)
    request_state_ttl_seconds: int = Field(900, ge=10)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if env is None else env
        # Every field is read from the variable of the same name in upper case; the allow-lists are CSV.
        raw: dict[str, object] = {}
        for field in cls.model_fields:
            name = field.upper()
            if field in CSV_FIELDS:
                if name in env:
                    raw[field] = _csv(env[name])
            elif env.get(name):
                raw[field] = env[name]
        try:
            settings = cls.model_validate(raw)
        except ValidationError as exc:
            problems = [
                f"{str(error['loc'][0]).upper() if error['loc'] else '?'}: {error['msg']}"
                for error in exc.errors()
            ]
            raise SettingsError("invalid configuration: " + "; ".join(problems)) from None
        if settings.session_store == "dynamodb" and not settings.sessions_table:
            raise SettingsError(
                "invalid configuration: SESSIONS_TABLE is required when SESSION_STORE=dynamodb"
            )
        return settings


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The container's settings, read once at cold start."""
    return Settings.from_env()
