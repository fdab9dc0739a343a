"""The sections of who is served and who may call: the business, its requests, its callers."""

from __future__ import annotations

from datetime import timedelta
from typing import Any, Literal, Self

from pydantic import BaseModel, Field, field_validator, model_validator

from ..durations import DurationMs
from .base import SECTION_CONFIG, comma_separated, conflict

DEFAULT_ALLOWED_ORIGINS = (
    "http://localhost:*",
    "http://127.0.0.1:*",
    "https://localhost:*",
    "http://[::1]:*",
)
# Comma-separated lists where an empty variable is a value: ALLOWED_ORIGINS= allows none (not "unset").
EMPTY_IS_A_VALUE = ("allowed_origins", "allowed_hosts")


class ServiceSection(BaseModel):
    """The business and where it runs."""

    model_config = SECTION_CONFIG

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
    served_at: str | None = Field(
        None,
        max_length=200,
        description="where this process serves MCP, named in the `server_started` line only: set by `make run` "
        "(its URL) and `make stdio` (`stdio`); unset in Lambda, where the line names the function",
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

    model_config = SECTION_CONFIG

    allowed_origins: tuple[str, ...] = Field(
        DEFAULT_ALLOWED_ORIGINS,
        description="browser origins allowed to call /mcp, comma-separated, `*` wildcards (a request with no "
        "Origin header is always allowed; `ALLOWED_ORIGINS=` allows none); in AWS the `AllowedOrigins` stack "
        "parameter, which also turns on CORS preflight answers for exactly those origins (`make run` answers "
        "them the same way)",
    )
    allowed_hosts: tuple[str, ...] = Field(
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
        return comma_separated(value)


class AuthSection(BaseModel):
    """Who may call.

    The OAuth resource server (docs/auth.md), and what a caller's state is bound to.
    """

    model_config = SECTION_CONFIG

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
    auth_audience: tuple[str, ...] = Field(
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
    auth_caller_claims: tuple[str, ...] = Field(
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
        return comma_separated(value)

    @model_validator(mode="after")
    def _an_issuer_when_tokens_are_checked(self) -> Self:
        if self.auth_mode != "none" and not self.auth_issuer:
            raise conflict(f"AUTH_ISSUER is required when AUTH_MODE={self.auth_mode}")
        return self
