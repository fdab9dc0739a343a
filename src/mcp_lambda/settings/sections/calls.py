"""The sections of time and calls: the request's deadline, AWS clients, outbound calls and their protection."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any, Self

from pydantic import BaseModel, Field, field_validator, model_validator

from ..durations import DurationMs, DurationSeconds
from .base import SECTION_CONFIG, comma_separated, conflict


class TimeoutsSection(BaseModel):
    """Deadlines and AWS clients.

    The request's deadline, and what every AWS client may spend of it.
    """

    model_config = SECTION_CONFIG

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
    aws_max_attempts: int = Field(
        2,
        ge=1,
        le=10,
        description="every AWS client: attempts in all; none starts after the request deadline or after the call "
        "was given up at its budget",
    )

    @model_validator(mode="after")
    def _a_margin_inside_the_deadline(self) -> Self:
        if self.deadline_margin >= self.request_deadline:
            raise conflict("DEADLINE_MARGIN_MS must be less than REQUEST_DEADLINE_MS")
        return self


class OutboundSection(BaseModel):
    """Outbound calls and their protection.

    Calls to other services (`ctx.http`, the platform API), their circuits, and the per-caller quotas.
    """

    model_config = SECTION_CONFIG

    doubao_openapi_base_domain: str | None = Field(
        None,
        description="the platform OpenAPI base domain, read at start (called like `ctx.http`: "
        "`HTTP_TIMEOUT_MS`, idempotent calls retried on 429/5xx, a POST only with `idempotent=True`)",
    )
    egress_allow: tuple[str, ...] = Field(
        (),
        description="downstreams `ctx.http` may reach besides those the business declares in its code, "
        "comma-separated: host names, `*.domain` wildcards, addresses, networks (`10.0.0.0/16`: private addresses "
        "are reached only inside a declared network) or URLs, each optionally `:port`; link-local and metadata "
        "addresses never; template `EgressAllow`",
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
    tool_quotas: dict[str, str | None] | None = Field(
        None,
        description="a JSON object overriding the tools' `CallLimits(quota=...)` without a code change: tool name → "
        '`"N/period"` (e.g. `{"subscribe_product": "50/hour"}`), or `null` to switch a tool\'s quota off; '
        "a bad rate or a tool the business does not have stops the start; template `ToolQuotas`",
    )

    @field_validator("egress_allow", mode="before")
    @classmethod
    def _egress_list(cls, value: Any) -> Any:
        return comma_separated(value)

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
