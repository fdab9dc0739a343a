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
        raw: dict[str, object] = {}
        plain = {
            "business": "BUSINESS",
            "environment": "ENVIRONMENT",
            "max_body_bytes": "MAX_BODY_BYTES",
            "tools_page_size": "TOOLS_PAGE_SIZE",
            "list_ttl_ms": "LIST_TTL_MS",
            "session_store": "SESSION_STORE",
            "sessions_table": "SESSIONS_TABLE",
            "session_ttl_seconds": "SESSION_TTL_SECONDS",
            "secret_id": "SECRET_ID",
            "secrets_max_age_seconds": "SECRETS_MAX_AGE_SECONDS",
            "doubao_openapi_base_domain": "DOUBAO_OPENAPI_BASE_DOMAIN",
            "manifest_dir": "MANIFEST_DIR",
            "request_state_key": "REQUEST_STATE_KEY",
            "request_state_ttl_seconds": "REQUEST_STATE_TTL_SECONDS",
        }
        for field, name in plain.items():
            if env.get(name):
                raw[field] = env[name]
        if "ALLOWED_ORIGINS" in env:
            raw["allowed_origins"] = _csv(env["ALLOWED_ORIGINS"])
        if "ALLOWED_HOSTS" in env:
            raw["allowed_hosts"] = _csv(env["ALLOWED_HOSTS"])
        try:
            settings = cls.model_validate(raw)
        except ValidationError as exc:
            names = {v: k for k, v in plain.items()}
            problems = []
            for error in exc.errors():
                field = str(error["loc"][0]) if error["loc"] else "?"
                variable = next((n for n, f in names.items() if f == field), field.upper())
                problems.append(f"{variable}: {error['msg']}")
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
