"""The environment as one typed settings object, read once per container.

pydantic-settings maps each field to the variable of the same name in upper case. Only `Settings.from_env` reads
an environment (the process's, or the mapping it is given); `Settings(...)` takes its arguments and defaults
alone, so a test that builds one is never configured by the shell it runs in.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from functools import lru_cache
from typing import Annotated, Any, Literal

from pydantic import Field, ValidationError, field_validator
from pydantic_settings import (
    BaseSettings,
    EnvSettingsSource,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

from .errors import StartupError

DEFAULT_ALLOWED_ORIGINS = (
    "http://localhost:*",
    "http://127.0.0.1:*",
    "https://localhost:*",
    "http://[::1]:*",
)


def _csv(value: str | None) -> tuple[str, ...]:
    return tuple(part.strip() for part in (value or "").split(",") if part.strip())


CSV_FIELDS = frozenset({"allowed_origins", "allowed_hosts"})
# Comma-separated lists where an empty variable means unset (not "none allowed").
LIST_FIELDS = ("request_state_keys", "auth_audience", "auth_caller_claims")


class SettingsError(StartupError, ValueError):
    """The environment is not a valid configuration; the message names the variable."""


class Settings(BaseSettings):
    """Everything the runtime reads from its environment. Secrets are never stored here, only their names."""

    model_config = SettingsConfigDict(frozen=True, extra="forbid", case_sensitive=False)

    business: str = Field("demo", pattern=r"^[a-z][a-z0-9_]*$")
    environment: str = "local"
    # Browser origins allowed to call /mcp; a request with no Origin header is always allowed.
    allowed_origins: Annotated[tuple[str, ...], NoDecode] = DEFAULT_ALLOWED_ORIGINS
    # Host header allow-list (DNS-rebinding protection for local servers); empty means any host.
    allowed_hosts: Annotated[tuple[str, ...], NoDecode] = ()
    max_body_bytes: int = Field(1024 * 1024, ge=1024)
    # The largest answer, measured as Lambda sends it (its synchronous response limit is 6 MB, 6291556 bytes).
    max_response_bytes: int = Field(6_000_000, ge=1024, le=6_291_556)
    tools_page_size: int = Field(100, ge=1, le=1000)
    list_ttl_ms: int = Field(300_000, ge=0)
    session_store: Literal["memory", "dynamodb"] = "memory"
    sessions_table: str | None = None
    session_ttl_seconds: int = Field(3600, ge=60)
    # Exactly-once tool calls: where the results of keyed calls are kept, and for how long.
    idempotency_store: Literal["memory", "dynamodb"] = "memory"
    idempotency_table: str | None = None
    idempotency_ttl_seconds: int = Field(600, ge=1)
    # Tasks (2026-07-28 `io.modelcontextprotocol/tasks`): where tasks live, how long, and the worker's time limit.
    tasks_store: Literal["memory", "dynamodb"] = "memory"
    tasks_table: str | None = None
    task_ttl_ms: int = Field(86_400_000, ge=60_000)
    task_poll_interval_ms: int = Field(1000, ge=100)
    task_worker_timeout_seconds: int = Field(900, ge=1, le=900)
    # Set by the Lambda runtime (and by `make run`): the function a task's worker invocation targets (itself).
    aws_lambda_function_name: str | None = None
    # Set by the Lambda runtime: the version serving this invocation (a number behind the alias, else $LATEST).
    aws_lambda_function_version: str | None = None
    secret_id: str | None = None
    secrets_max_age_seconds: int = Field(300, ge=0)
    doubao_openapi_base_domain: str | None = None
    manifest_dir: str | None = None
    # Log lines: Powertools JSON (Lambda, CloudWatch) or one compact human line per call (make run's default);
    # "text" is a format the development tools register (observability.register_log_format), else it is JSON.
    log_format: Literal["json", "text"] = "json"
    # HMAC key for multi round-trip `requestState`; else the business secret `request_state_key` is used.
    request_state_key: str | None = Field(None, min_length=16, repr=False)
    request_state_ttl_seconds: int = Field(900, ge=10)
    # A key ring for `requestState`: the first key signs, every key verifies (rotate without breaking rounds).
    request_state_keys: Annotated[tuple[str, ...], NoDecode] = Field((), repr=False)
    # Who may call: "none" (no checks; API Gateway claims, if any, still bind state to the caller), "jwt" (this
    # function validates bearer JWTs itself) or "apigateway" (trust the HTTP API's JWT authorizer claims).
    auth_mode: Literal["none", "jwt", "apigateway"] = "none"
    auth_issuer: str | None = Field(None, pattern=r"^https?://\S+$")
    # Accepted `aud` values, comma-separated; empty means the resource URL (PUBLIC_URL or derived per request).
    auth_audience: Annotated[tuple[str, ...], NoDecode] = ()
    auth_jwks_url: str | None = Field(None, pattern=r"^https?://\S+$")
    # What the issuer puts before every scope name (Cognito: "<resource server identifier>/"); tools omit it.
    auth_scope_prefix: str = ""
    # The token claims a tool may read in ctx.caller.claims (never logged).
    auth_caller_claims: Annotated[tuple[str, ...], NoDecode] = ("client_id", "azp", "email", "name")
    # What state is bound to: "user" (iss + sub: a user's sessions, tasks and exactly-once records are the same
    # from every application it signs in with) or "user_and_client" (also the token's azp, else client_id: another
    # application's token for the same user reaches none of it). Changing it orphans the state stored before.
    principal_binding: Literal["user", "user_and_client"] = "user"
    # HMAC key of the identity fingerprints in log lines (`caller`, `key_fingerprint`); else the business secret
    # `log_fingerprint_key`; else a random key per container. Never logged; nothing stored depends on it.
    log_fingerprint_key: str | None = Field(None, min_length=16, repr=False)
    # The public MCP URL (https://host/mcp); else derived from the API Gateway event's domain and stage.
    public_url: str | None = Field(None, pattern=r"^https?://[^/\s]+/\S*$")
    # Each invocation's deadline: the earlier of the Lambda context's remaining time and this, less the margin
    # left for answering. 29000: the HTTP API integration gives up at 30 s.
    request_deadline_ms: int = Field(29_000, ge=100)
    deadline_margin_ms: int = Field(500, ge=0)
    # Every AWS client (sessions, secrets, ...): per-attempt timeouts and attempts, capped by the deadline.
    aws_connect_timeout_ms: int = Field(1000, ge=10)
    aws_read_timeout_ms: int = Field(2000, ge=10)
    aws_max_attempts: int = Field(2, ge=1, le=10)
    # ctx.http and the platform client: per-attempt timeout, attempts (idempotent calls), a breaker per host.
    http_timeout_ms: int = Field(3000, ge=10)
    http_max_attempts: int = Field(3, ge=1, le=10)
    circuit_failure_threshold: int = Field(5, ge=1)
    circuit_reset_ms: int = Field(30_000, ge=10)

    @field_validator(*CSV_FIELDS, *LIST_FIELDS, mode="before")
    @classmethod
    def _split_csv(cls, value: Any) -> Any:
        # The allow-lists are comma-separated in the environment (ALLOWED_ORIGINS=a,b), not JSON.
        return _csv(value) if isinstance(value, str) else value

    @field_validator("request_state_keys")
    @classmethod
    def _keys_are_long_enough(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if any(len(key) < 16 for key in value):
            raise ValueError("every key must have at least 16 characters")
        return value

    @property
    def request_state_key_ring(self) -> tuple[str, ...]:
        """REQUEST_STATE_KEYS, else REQUEST_STATE_KEY alone; empty means the business secret decides."""
        if self.request_state_keys:
            return self.request_state_keys
        return (self.request_state_key,) if self.request_state_key else ()

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (init_settings,)  # the environment is read by from_env only, never implicitly

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        """The settings `env` (default: the process environment) describes; SettingsError names a bad variable."""
        values = _EnvironmentSource(cls, os.environ if env is None else env)()
        try:
            settings = cls(**values)
        except ValidationError as exc:
            problems = [
                f"{str(error['loc'][0]).upper() if error['loc'] else '?'}: {error['msg']}"
                for error in exc.errors()
            ]
            raise SettingsError("invalid configuration: " + "; ".join(problems)) from None
        if settings.deadline_margin_ms >= settings.request_deadline_ms:
            raise SettingsError(
                "invalid configuration: DEADLINE_MARGIN_MS must be less than REQUEST_DEADLINE_MS"
            )
        if settings.session_store == "dynamodb" and not settings.sessions_table:
            raise SettingsError(
                "invalid configuration: SESSIONS_TABLE is required when SESSION_STORE=dynamodb"
            )
        if settings.idempotency_store == "dynamodb" and not settings.idempotency_table:
            raise SettingsError(
                "invalid configuration: IDEMPOTENCY_TABLE is required when IDEMPOTENCY_STORE=dynamodb"
            )
        if settings.auth_mode != "none" and not settings.auth_issuer:
            raise SettingsError(
                f"invalid configuration: AUTH_ISSUER is required when AUTH_MODE={settings.auth_mode}"
            )
        if settings.tasks_store == "dynamodb" and not settings.tasks_table:
            raise SettingsError("invalid configuration: TASKS_TABLE is required when TASKS_STORE=dynamodb")
        if settings.task_ttl_ms <= settings.task_worker_timeout_seconds * 1000:
            raise SettingsError(
                "invalid configuration: TASK_TTL_MS must be longer than TASK_WORKER_TIMEOUT_SECONDS"
            )
        return settings


class _EnvironmentSource(EnvSettingsSource):
    """pydantic-settings' environment source over a given mapping instead of always `os.environ`."""

    def __init__(self, settings_cls: type[BaseSettings], env: Mapping[str, str]) -> None:
        self._env = env
        super().__init__(settings_cls, case_sensitive=False)

    def _load_env_vars(self) -> Mapping[str, str | None]:
        # An empty variable counts as unset, except an allow-list: ALLOWED_ORIGINS="" means none allowed.
        return {
            name.lower(): value for name, value in self._env.items() if value or name.lower() in CSV_FIELDS
        }


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The container's settings, read once at cold start."""
    return Settings.from_env()
