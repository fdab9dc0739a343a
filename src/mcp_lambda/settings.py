"""The environment as one typed settings object, read once per container.

pydantic-settings maps each field to the variable of the same name in upper case. Only `Settings.from_env` reads
an environment (the process's, or the mapping it is given); `Settings(...)` takes its arguments and defaults
alone, so a test that builds one is never configured by the shell it runs in.
"""

from __future__ import annotations

import json
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

    business: str = Field(
        "demo",
        pattern=r"^[a-z][a-z0-9_]*$",
        description="which `src/businesses/<name>` to serve (locally also `dev/businesses/<name>`, e.g. "
        "`conformance`)",
    )
    environment: str = Field("local", description="shown in the start-up log line")
    allowed_origins: Annotated[tuple[str, ...], NoDecode] = Field(
        DEFAULT_ALLOWED_ORIGINS,
        description="browser origins allowed to call /mcp, comma-separated, `*` wildcards (a request with no "
        "Origin header is always allowed; `ALLOWED_ORIGINS=` allows none); in AWS the `AllowedOrigins` stack "
        "parameter, which also turns on CORS preflight answers for exactly those origins (`make run` answers "
        "them the same way)",
    )
    allowed_hosts: Annotated[tuple[str, ...], NoDecode] = Field(
        (),
        description="comma-separated Host header allow-list (DNS-rebinding protection for local servers); "
        "empty means any host (`make run`: the loopback names)",
    )
    max_body_bytes: int = Field(1024 * 1024, ge=1024, description="request body limit")
    max_response_bytes: int = Field(
        6_000_000,
        ge=1024,
        le=6_291_556,
        description="the largest answer, measured as Lambda sends it (its synchronous response limit: "
        "6291556 bytes); larger → -32603",
    )
    tools_page_size: int = Field(
        100, ge=1, le=1000, description="page size of `tools/list` (and the other lists)"
    )
    list_ttl_ms: int = Field(300_000, ge=0, description="`ttlMs` on cacheable 2026-07-28 results")
    session_store: Literal["memory", "dynamodb"] = Field(
        "memory",
        description="where legacy sessions live: `dynamodb` in AWS (`AWS_ENDPOINT_URL_DYNAMODB` for DynamoDB "
        "Local)",
    )
    sessions_table: str | None = Field(
        None, description="the sessions table; required by `SESSION_STORE=dynamodb`"
    )
    session_ttl_seconds: int = Field(
        3600, ge=60, description="idle session lifetime (sliding; refreshed when under half remains)"
    )
    idempotency_store: Literal["memory", "dynamodb"] = Field(
        "memory",
        description="where the results of exactly-once (keyed) tool calls live: `dynamodb` in AWS (the "
        "template's `IdempotencyTable`)",
    )
    idempotency_table: str | None = Field(
        None, description="the exactly-once table; required by `IDEMPOTENCY_STORE=dynamodb`"
    )
    idempotency_ttl_seconds: int = Field(
        600, ge=1, description="how long a keyed call's result is replayed to its retries"
    )
    tasks_store: Literal["memory", "dynamodb"] = Field(
        "memory",
        description="where tasks (2026-07-28 `io.modelcontextprotocol/tasks`) live: `dynamodb` in AWS "
        "(`AWS_ENDPOINT_URL_DYNAMODB` for DynamoDB Local)",
    )
    tasks_table: str | None = Field(None, description="the tasks table; required by `TASKS_STORE=dynamodb`")
    task_ttl_ms: int = Field(
        86_400_000,
        ge=60_000,
        description="a task's `ttlMs`: readable this long after its creation (the table's TTL); longer than "
        "the worker timeout",
    )
    protection_store: Literal["memory", "dynamodb"] = Field(
        "memory",
        description="where the downstream circuit breakers and the per-caller `quota` counters live: `memory` "
        "(one process), `dynamodb` in AWS (shared by every container; the template's `ProtectionTable`)",
    )
    protection_table: str | None = Field(
        None, description="the protection table; required by `PROTECTION_STORE=dynamodb`"
    )
    tool_quotas: Annotated[dict[str, str | None] | None, NoDecode] = Field(
        None,
        description="a JSON object overriding the tools' `quota=` without a code change: tool name → "
        '`"N/period"` (e.g. `{"subscribe_product": "50/hour"}`), or `null` to switch a tool\'s quota off; '
        "a bad rate or a tool the business does not have stops the start; template `ToolQuotas`",
    )
    task_poll_interval_ms: int = Field(1000, ge=100, description="the `pollIntervalMs` suggested to clients")
    task_worker_timeout_seconds: int = Field(
        900,
        ge=1,
        le=900,
        description="the function's timeout in AWS (`TaskWorkerTimeoutSeconds`): a task not finished this long "
        "after its worker started reads as failed",
    )
    aws_lambda_function_name: str | None = Field(
        None,
        description="set by the Lambda runtime (`make run`: `mcp-local-<business>`): the function a task's "
        "worker invocation targets (itself)",
    )
    aws_lambda_function_version: str | None = Field(
        None,
        description="set by the Lambda runtime: the version serving this invocation (a number behind the "
        "alias, else `$LATEST`); a task's worker runs the version that created the task",
    )
    secret_id: str | None = Field(
        None, description="the Secrets Manager secret holding a JSON object of the business's secrets"
    )
    secrets_max_age_seconds: int = Field(300, ge=0, description="how long a fetched secret is cached")
    doubao_openapi_base_domain: str | None = Field(
        None,
        description="the platform OpenAPI base domain, read at start (called like `ctx.http`: "
        "`HTTP_TIMEOUT_MS`, idempotent calls retried on 429/5xx, a POST only with `idempotent=True`)",
    )
    manifest_dir: str | None = Field(None, description="where `<business>.yaml` lives (unset: `manifest/`)")
    # "text" is a format the development tools register (observability.register_log_format), else it is JSON.
    log_format: Literal["json", "text"] = Field(
        "json",
        description="`json`: Powertools JSON lines, as in Lambda and CloudWatch; `text`: one compact line per "
        "call, for a terminal (`make run`'s default)",
    )
    request_state_key: str | None = Field(
        None,
        min_length=16,
        repr=False,
        description="HMAC key for multi round-trip `requestState` (else the business secret "
        "`request_state_key`)",
    )
    request_state_ttl_seconds: int = Field(
        900, ge=10, description="how long a signed `requestState` stays valid"
    )
    request_state_keys: Annotated[tuple[str, ...], NoDecode] = Field(
        (),
        repr=False,
        description="a key ring for `requestState`, comma-separated: the first key signs, every key verifies "
        "(rotate without breaking rounds); wins over `REQUEST_STATE_KEY`",
    )
    auth_mode: Literal["none", "jwt", "apigateway"] = Field(
        "none",
        description="who may call: `none` (no checks; API Gateway claims, if any, still bind state to the "
        "caller), `jwt` (this function validates bearer JWTs) or `apigateway` (trust the HTTP API's JWT "
        "authorizer claims); template `AuthMode` (docs/auth.md)",
    )
    auth_issuer: str | None = Field(
        None,
        pattern=r"^https?://\S+$",
        description="the issuer (`iss`) of accepted tokens, exactly; required by `jwt` and `apigateway`; "
        "template `JwtIssuer`",
    )
    auth_audience: Annotated[tuple[str, ...], NoDecode] = Field(
        (),
        description="accepted `aud` values, comma-separated; empty means the resource URL (`PUBLIC_URL`, else "
        "derived per request); a token without `aud` is checked by its `client_id`; template `JwtAudience`",
    )
    auth_jwks_url: str | None = Field(
        None,
        pattern=r"^https?://\S+$",
        description="the issuer's JWKS, when it publishes no `/.well-known/openid-configuration` (unset: "
        "from discovery)",
    )
    auth_scope_prefix: str = Field(
        "",
        description="what the issuer puts before every scope name (Cognito: `<resource server "
        "identifier>/`); tools omit it; template `AuthScopePrefix`",
    )
    auth_caller_claims: Annotated[tuple[str, ...], NoDecode] = Field(
        ("client_id", "azp", "email", "name"),
        description="the token claims a tool may read in `ctx.caller.claims` (never logged)",
    )
    principal_binding: Literal["user", "user_and_client"] = Field(
        "user",
        description="what state (sessions, tasks, exactly-once records, `requestState`, rate limits, "
        "`ctx.caller.principal`) is bound to: `user` (`iss` + `sub`: the same from every application the user "
        "signs in with) or `user_and_client` (also `azp`, else `client_id`: another application's token for "
        "the same user reaches none of it; a token naming neither gets 401); changing it orphans the state "
        "stored before; template `PrincipalBinding`",
    )
    log_fingerprint_key: str | None = Field(
        None,
        min_length=16,
        repr=False,
        description="HMAC key of the identity fingerprints in log lines (`caller`, `key_fingerprint`); else "
        "the business secret `log_fingerprint_key`; else a random key per container (with a "
        "`log_fingerprint_key_missing` warning outside `local`); never logged, nothing stored depends on it",
    )
    public_url: str | None = Field(
        None,
        pattern=r"^https?://[^/\s]+/\S*$",
        description="the public MCP URL (`https://host/mcp`) for the metadata and the default audience; else "
        "derived per request from the API Gateway event's domain and stage (locally: the Host header); "
        "template `PublicUrl`",
    )
    request_deadline_ms: int = Field(
        29_000,
        ge=100,
        description="each invocation's deadline, unless the Lambda context has less time left (the HTTP API "
        "integration gives up at 30 s)",
    )
    deadline_margin_ms: int = Field(
        500, ge=0, description="kept back from the deadline for answering; less than `REQUEST_DEADLINE_MS`"
    )
    aws_connect_timeout_ms: int = Field(
        1000, ge=10, description="every AWS client (sessions, secrets, ...): connect timeout per attempt"
    )
    aws_read_timeout_ms: int = Field(
        2000,
        ge=10,
        description="every AWS client: read timeout per attempt; held to half the request's budget",
    )
    aws_max_attempts: int = Field(2, ge=1, le=10, description="every AWS client: attempts in all")
    http_timeout_ms: int = Field(
        3000, ge=10, description="`ctx.http` and the platform client: timeout per attempt"
    )
    http_max_attempts: int = Field(
        3,
        ge=1,
        le=10,
        description="`ctx.http` and the platform client: attempts in all (idempotent calls only)",
    )
    circuit_failure_threshold: int = Field(
        5, ge=1, description="consecutive failures that open a downstream host's circuit"
    )
    circuit_reset_ms: int = Field(
        30_000,
        ge=2000,
        description="how long an open circuit stays open, rounded up to whole seconds (the breaker counts "
        "seconds, from the second it opened, so it may stay open up to one second less; at least 2000); then one "
        "trial call decides",
    )
    circuit_cache_seconds: int = Field(
        5,
        ge=0,
        description="how long a container trusts the circuit state it last read from `PROTECTION_STORE` before "
        "reading it again (0: every call reads it); the time the fleet may take to learn of an opening",
    )

    @field_validator(*CSV_FIELDS, *LIST_FIELDS, mode="before")
    @classmethod
    def _split_csv(cls, value: Any) -> Any:
        # The allow-lists are comma-separated in the environment (ALLOWED_ORIGINS=a,b), not JSON.
        return _csv(value) if isinstance(value, str) else value

    @field_validator("tool_quotas", mode="before")
    @classmethod
    def _quotas_from_json(cls, value: Any) -> Any:
        if not isinstance(value, str):
            return value
        try:
            parsed = json.loads(value)
        except ValueError:
            raise ValueError('not JSON: expected an object such as {"tool_name": "100/hour"}') from None
        if not isinstance(parsed, dict):
            raise ValueError('expected a JSON object such as {"tool_name": "100/hour"}')
        return parsed

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
        if settings.protection_store == "dynamodb" and not settings.protection_table:
            raise SettingsError(
                "invalid configuration: PROTECTION_TABLE is required when PROTECTION_STORE=dynamodb"
            )
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
