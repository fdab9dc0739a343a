"""The settings in groups of related fields, each group with the rules that tie its fields together.

`Settings` inherits every group, so a field is still read as `settings.session_store`; a group is where a reader
(and the generated configuration table, one table per group) finds its neighbours. Each cross-field rule is a
`model_validator` of its group, so `Settings(...)`, `Settings.from_env()` and the test kit's `make_settings`
refuse the same things with the same message, which names the variables.
"""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Annotated, Any, Literal, Self

from pydantic import BaseModel, Field, field_validator, model_validator
from pydantic_core import PydanticCustomError
from pydantic_settings import NoDecode

from .durations import DurationMs, DurationSeconds

DEFAULT_ALLOWED_ORIGINS = (
    "http://localhost:*",
    "http://127.0.0.1:*",
    "https://localhost:*",
    "http://[::1]:*",
)
# Comma-separated lists where an empty variable is a value: ALLOWED_ORIGINS= allows none (not "unset").
EMPTY_IS_A_VALUE = ("allowed_origins", "allowed_hosts")


def conflict(message: str) -> PydanticCustomError:
    """The error of a cross-field rule: `message` as it is (it names the variables), no "Value error" prefix."""
    return PydanticCustomError("settings_conflict", message)


def _csv(value: Any) -> Any:
    # Lists are comma-separated in the environment (ALLOWED_ORIGINS=a,b), not JSON.
    if not isinstance(value, str):
        return value
    return tuple(part.strip() for part in value.split(",") if part.strip())


class ServiceSection(BaseModel):
    """The business and where it runs."""

    business: str = Field(
        "demo",
        pattern=r"^[a-z][a-z0-9_]*$",
        description="which `src/businesses/<name>` to serve (locally also `dev/businesses/<name>`, e.g. "
        "`conformance`)",
    )
    environment: str = Field("local", description="shown in the start-up log line")
    manifest_dir: str | None = Field(None, description="where `<business>.yaml` lives (unset: `manifest/`)")
    # "text" is a format the development tools register (observability.register_log_format), else it is JSON.
    log_format: Literal["json", "text"] = Field(
        "json",
        description="`json`: Powertools JSON lines, as in Lambda and CloudWatch; `text`: one compact line per "
        "call, for a terminal (`make run`'s default)",
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


class RequestsSection(BaseModel):
    """Requests and answers.

    Who may send them from where (browser origins, Host names), how large they may be, how lists are paged.
    """

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
    public_url: str | None = Field(
        None,
        pattern=r"^https?://[^/\s]+/\S*$",
        description="the public MCP URL (`https://host/mcp`) for the metadata and the default audience; else "
        "derived per request from the API Gateway event's domain and stage (locally: the Host header); "
        "template `PublicUrl`",
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
    list_ttl: DurationMs = Field(
        timedelta(minutes=5),
        validation_alias="list_ttl_ms",
        ge=timedelta(0),
        description="`ttlMs` on cacheable 2026-07-28 results",
    )

    @field_validator(*EMPTY_IS_A_VALUE, mode="before")
    @classmethod
    def _split_allow_lists(cls, value: Any) -> Any:
        return _csv(value)


class AuthSection(BaseModel):
    """Who may call.

    The OAuth resource server (docs/auth.md), and what a caller's state is bound to.
    """

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

    @field_validator("auth_audience", "auth_caller_claims", mode="before")
    @classmethod
    def _split_lists(cls, value: Any) -> Any:
        return _csv(value)

    @model_validator(mode="after")
    def _an_issuer_when_tokens_are_checked(self) -> Self:
        if self.auth_mode != "none" and not self.auth_issuer:
            raise conflict(f"AUTH_ISSUER is required when AUTH_MODE={self.auth_mode}")
        return self


class StoresSection(BaseModel):
    """Where state lives.

    Each kind in memory (one process) or in its DynamoDB table (shared by every container).
    """

    session_store: Literal["memory", "dynamodb"] = Field(
        "memory",
        description="where legacy sessions live: `dynamodb` in AWS (`AWS_ENDPOINT_URL_DYNAMODB` for DynamoDB "
        "Local)",
    )
    sessions_table: str | None = Field(
        None, description="the sessions table; required by `SESSION_STORE=dynamodb`"
    )
    session_ttl: DurationSeconds = Field(
        timedelta(hours=1),
        validation_alias="session_ttl_seconds",
        ge=timedelta(minutes=1),
        description="idle session lifetime (sliding; refreshed when under half remains)",
    )
    idempotency_store: Literal["memory", "dynamodb"] = Field(
        "memory",
        description="where the results of exactly-once (keyed) tool calls live: `dynamodb` in AWS (the "
        "template's `IdempotencyTable`)",
    )
    idempotency_table: str | None = Field(
        None, description="the exactly-once table; required by `IDEMPOTENCY_STORE=dynamodb`"
    )
    idempotency_ttl: DurationSeconds = Field(
        timedelta(minutes=10),
        validation_alias="idempotency_ttl_seconds",
        ge=timedelta(seconds=1),
        description="how long a keyed call's result is replayed to its retries",
    )
    tasks_store: Literal["memory", "dynamodb"] = Field(
        "memory",
        description="where tasks (2026-07-28 `io.modelcontextprotocol/tasks`) live: `dynamodb` in AWS "
        "(`AWS_ENDPOINT_URL_DYNAMODB` for DynamoDB Local)",
    )
    tasks_table: str | None = Field(None, description="the tasks table; required by `TASKS_STORE=dynamodb`")
    protection_store: Literal["memory", "dynamodb"] = Field(
        "memory",
        description="where the downstream circuit breakers and the per-caller `quota` counters live: `memory` "
        "(one process), `dynamodb` in AWS (shared by every container; the template's `ProtectionTable`)",
    )
    protection_table: str | None = Field(
        None, description="the protection table; required by `PROTECTION_STORE=dynamodb`"
    )

    @model_validator(mode="after")
    def _a_table_for_each_dynamodb_store(self) -> Self:
        for store, table in (
            ("session_store", "sessions_table"),
            ("idempotency_store", "idempotency_table"),
            ("tasks_store", "tasks_table"),
            ("protection_store", "protection_table"),
        ):
            if getattr(self, store) == "dynamodb" and not getattr(self, table):
                raise conflict(f"{table.upper()} is required when {store.upper()}=dynamodb")
        return self


class TasksSection(BaseModel):
    """Tasks.

    How long a task is kept, how often clients poll it, how long its worker may run.
    """

    task_ttl: DurationMs = Field(
        timedelta(days=1),
        validation_alias="task_ttl_ms",
        ge=timedelta(minutes=1),
        description="a task's `ttlMs`: readable this long after its creation (the table's TTL); longer than "
        "the worker timeout",
    )
    task_poll_interval: DurationMs = Field(
        timedelta(seconds=1),
        validation_alias="task_poll_interval_ms",
        ge=timedelta(milliseconds=100),
        description="the `pollIntervalMs` suggested to clients",
    )
    task_worker_timeout: DurationSeconds = Field(
        timedelta(seconds=900),
        validation_alias="task_worker_timeout_seconds",
        ge=timedelta(seconds=1),
        le=timedelta(seconds=900),
        description="the function's timeout in AWS (`TaskWorkerTimeoutSeconds`): a task not finished this long "
        "after its worker started reads as failed",
    )

    @model_validator(mode="after")
    def _tasks_outlive_their_worker(self) -> Self:
        if self.task_ttl <= self.task_worker_timeout:
            raise conflict("TASK_TTL_MS must be longer than TASK_WORKER_TIMEOUT_SECONDS")
        return self


class TimeoutsSection(BaseModel):
    """Deadlines and AWS clients.

    The request's deadline, and what every AWS client may spend of it.
    """

    request_deadline: DurationMs = Field(
        timedelta(seconds=29),
        validation_alias="request_deadline_ms",
        ge=timedelta(milliseconds=100),
        description="each invocation's deadline, unless the Lambda context has less time left (the HTTP API "
        "integration gives up at 30 s)",
    )
    deadline_margin: DurationMs = Field(
        timedelta(milliseconds=500),
        validation_alias="deadline_margin_ms",
        ge=timedelta(0),
        description="kept back from the deadline for answering; less than `REQUEST_DEADLINE_MS`",
    )
    aws_connect_timeout: DurationMs = Field(
        timedelta(seconds=1),
        validation_alias="aws_connect_timeout_ms",
        ge=timedelta(milliseconds=10),
        description="every AWS client (sessions, secrets, ...): connect timeout per attempt",
    )
    aws_read_timeout: DurationMs = Field(
        timedelta(seconds=2),
        validation_alias="aws_read_timeout_ms",
        ge=timedelta(milliseconds=10),
        description="every AWS client: read timeout per attempt; held to half the request's budget",
    )
    aws_max_attempts: int = Field(2, ge=1, le=10, description="every AWS client: attempts in all")

    @model_validator(mode="after")
    def _a_margin_inside_the_deadline(self) -> Self:
        if self.deadline_margin >= self.request_deadline:
            raise conflict("DEADLINE_MARGIN_MS must be less than REQUEST_DEADLINE_MS")
        return self


class OutboundSection(BaseModel):
    """Outbound calls and their protection.

    Calls to other services (`ctx.http`, the platform API), their circuits, and the per-caller quotas.
    """

    doubao_openapi_base_domain: str | None = Field(
        None,
        description="the platform OpenAPI base domain, read at start (called like `ctx.http`: "
        "`HTTP_TIMEOUT_MS`, idempotent calls retried on 429/5xx, a POST only with `idempotent=True`)",
    )
    http_timeout: DurationMs = Field(
        timedelta(seconds=3),
        validation_alias="http_timeout_ms",
        ge=timedelta(milliseconds=10),
        description="`ctx.http` and the platform client: timeout per attempt",
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
    circuit_reset: DurationMs = Field(
        timedelta(seconds=30),
        validation_alias="circuit_reset_ms",
        ge=timedelta(seconds=2),
        description="how long an open circuit stays open, rounded up to whole seconds (the breaker counts "
        "seconds, from the second it opened, so it may stay open up to one second less); then one trial call "
        "decides",
    )
    circuit_cache: DurationSeconds = Field(
        timedelta(seconds=5),
        validation_alias="circuit_cache_seconds",
        ge=timedelta(0),
        description="how long a container trusts the circuit state it last read from `PROTECTION_STORE` before "
        "reading it again (0: every call reads it); the time the fleet may take to learn of an opening",
    )
    tool_quotas: Annotated[dict[str, str | None] | None, NoDecode] = Field(
        None,
        description="a JSON object overriding the tools' `quota=` without a code change: tool name → "
        '`"N/period"` (e.g. `{"subscribe_product": "50/hour"}`), or `null` to switch a tool\'s quota off; '
        "a bad rate or a tool the business does not have stops the start; template `ToolQuotas`",
    )

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


class SecretsSection(BaseModel):
    """Secrets and signing keys.

    The business secret, and the keys of `requestState` and of the log fingerprints.
    """

    secret_id: str | None = Field(
        None, description="the Secrets Manager secret holding a JSON object of the business's secrets"
    )
    secrets_max_age: DurationSeconds = Field(
        timedelta(minutes=5),
        validation_alias="secrets_max_age_seconds",
        ge=timedelta(0),
        description="how long a fetched secret is cached",
    )
    request_state_key: str | None = Field(
        None,
        min_length=16,
        repr=False,
        description="HMAC key for multi round-trip `requestState` (else the business secret "
        "`request_state_key`)",
    )
    request_state_keys: Annotated[tuple[str, ...], NoDecode] = Field(
        (),
        repr=False,
        description="a key ring for `requestState`, comma-separated: the first key signs, every key verifies "
        "(rotate without breaking rounds); wins over `REQUEST_STATE_KEY`",
    )
    request_state_ttl: DurationSeconds = Field(
        timedelta(minutes=15),
        validation_alias="request_state_ttl_seconds",
        ge=timedelta(seconds=10),
        description="how long a signed `requestState` stays valid",
    )
    log_fingerprint_key: str | None = Field(
        None,
        min_length=16,
        repr=False,
        description="HMAC key of the identity fingerprints in log lines (`caller`, `key_fingerprint`); else "
        "the business secret `log_fingerprint_key`; else a random key per container (with a "
        "`log_fingerprint_key_missing` warning outside `local`); never logged, nothing stored depends on it",
    )

    @field_validator("request_state_keys", mode="before")
    @classmethod
    def _split_keys(cls, value: Any) -> Any:
        return _csv(value)

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


SECTIONS: tuple[type[BaseModel], ...] = (
    ServiceSection,
    RequestsSection,
    AuthSection,
    StoresSection,
    TasksSection,
    TimeoutsSection,
    OutboundSection,
    SecretsSection,
)
