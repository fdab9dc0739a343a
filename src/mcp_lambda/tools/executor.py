"""Runs one tool call: validate arguments, call, check the result, log, and turn exceptions into results.

This is the single place where a tool's exceptions are caught and logged.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import ValidationError

from ..observability import NoTelemetry, ToolTelemetry, current_correlation_id, summarize_arguments
from .context import SecretUnavailable, ToolContext
from .decorator import ToolSpec
from .inputs import InputRequired
from .results import (
    INTERNAL_ERROR,
    INVALID_ARGUMENTS,
    RESULT_VIOLATES_MANIFEST,
    SECRET_UNAVAILABLE,
    ToolResult,
    business_error,
)

# Checks a result against the business contract; returns one message per violation (empty = valid).
ResultCheck = Callable[[str, ToolResult], list[str]]


def describe_validation_error(exc: ValidationError) -> str:
    """One clause per bad field, naming the field path (never echoing the value)."""
    clauses = []
    for error in exc.errors():
        path = ".".join(str(part) for part in error["loc"]) or "arguments"
        message = error["msg"]
        if error["type"] == "extra_forbidden":
            message = "unknown argument"
        clauses.append(f"{path}: {message}")
    return "; ".join(clauses)


class ToolExecutor:
    def __init__(
        self, result_check: ResultCheck | None = None, telemetry: ToolTelemetry | NoTelemetry | None = None
    ) -> None:
        self.result_check = result_check
        self.telemetry = telemetry or NoTelemetry()

    async def run(
        self, spec: ToolSpec, arguments: Mapping[str, Any], ctx: ToolContext
    ) -> ToolResult | InputRequired:
        with self.telemetry.tool_call(spec.name) as record:  # tracing subsegment + EMF metrics
            result = await self._run(spec, arguments, ctx)
            record.outcome = outcome_of(result)
        return result

    async def _run(
        self, spec: ToolSpec, arguments: Mapping[str, Any], ctx: ToolContext
    ) -> ToolResult | InputRequired:
        log = ctx.logger
        started = time.perf_counter()
        # request_id is the API Gateway request id (the Logger's correlation id); the JSON-RPC id rides along.
        correlation_id = ctx.extras.get("correlation_id") or current_correlation_id(log)
        base = {"request_id": correlation_id, "jsonrpc_id": ctx.request_id, "tool_name": spec.name}
        if ctx.tool_call_id:
            base["tool_call_id"] = ctx.tool_call_id
        log.info(
            "mcp_tool_call_started",
            extra={
                **base,
                "event": "mcp_tool_call_started",
                "arguments": summarize_arguments(arguments, spec.safe_fields),
            },
        )
        outcome, error_type = "success", None
        try:
            result = await self._invoke(spec, arguments, ctx)
        except ValidationError as exc:
            result = business_error(
                INVALID_ARGUMENTS,
                f"Invalid arguments for tool '{spec.name}': {describe_validation_error(exc)}",
            )
            outcome, error_type = "invalid_arguments", "ValidationError"
        except SecretUnavailable as exc:
            result = business_error(
                SECRET_UNAVAILABLE, f"Tool '{spec.name}' cannot run: a required secret is {exc.reason}."
            )
            outcome, error_type = "system_error", "SecretUnavailable"
        except Exception as exc:  # the one catch-all: the client gets an id, the log gets the type and stack
            error_id = secrets.token_hex(8)
            log.exception(
                "mcp_tool_call_failed",
                extra={
                    **base,
                    "event": "mcp_tool_call_failed",
                    "error_id": error_id,
                    "error_type": type(exc).__name__,
                    "outcome": "system_error",
                    "code": INTERNAL_ERROR,
                    "duration_ms": _ms(started),
                },
            )
            return business_error(
                INTERNAL_ERROR, f"Tool '{spec.name}' failed with an internal error (error id {error_id})."
            )
        if isinstance(result, InputRequired):
            log.info(
                "mcp_tool_call_finished",
                extra={
                    **base,
                    "event": "mcp_tool_call_finished",
                    "outcome": "input_required",
                    "code": 0,
                    "duration_ms": _ms(started),
                },
            )
            return result
        if not isinstance(result, ToolResult):
            error_id = secrets.token_hex(8)
            log.error(
                "mcp_tool_call_failed",
                extra={
                    **base,
                    "event": "mcp_tool_call_failed",
                    "error_id": error_id,
                    "error_type": "BadReturnType",
                    "outcome": "system_error",
                    "code": INTERNAL_ERROR,
                    "duration_ms": _ms(started),
                },
            )
            return business_error(
                INTERNAL_ERROR, f"Tool '{spec.name}' failed with an internal error (error id {error_id})."
            )
        if self.result_check is not None and outcome == "success":
            violations = self.result_check(spec.name, result)
            if violations:
                log.error(
                    "mcp_tool_call_failed",
                    extra={
                        **base,
                        "event": "mcp_tool_call_failed",
                        "outcome": "system_error",
                        "code": RESULT_VIOLATES_MANIFEST,
                        "error_type": "ManifestViolation",
                        "violations": violations[:20],
                        "duration_ms": _ms(started),
                    },
                )
                return business_error(RESULT_VIOLATES_MANIFEST, "; ".join(violations))
        if result.is_error and outcome == "success":
            outcome = "business_error"
        code = (
            result.structured_content.get("code")
            if result.is_error and isinstance(result.structured_content, dict)
            else 0
        )
        event = (
            "mcp_tool_call_finished" if outcome in ("success", "business_error") else "mcp_tool_call_failed"
        )
        log.info(
            event,
            extra={
                **base,
                "event": event,
                "outcome": outcome,
                "code": code,
                "error_type": error_type,
                "duration_ms": _ms(started),
            },
        )
        return result

    async def _invoke(self, spec: ToolSpec, arguments: Mapping[str, Any], ctx: ToolContext) -> Any:
        if spec.arguments is not None:
            kwargs = dict(spec.arguments.model_validate(dict(arguments)))
        elif "arguments" in spec.arguments_accepted:
            kwargs = {"arguments": dict(arguments)}  # a hand-written schema: the tool validates its own input
        else:
            kwargs = {k: v for k, v in arguments.items() if k in spec.arguments_accepted}
        if spec.context_param:
            kwargs[spec.context_param] = ctx
        if spec.is_async:
            return await spec.fn(**kwargs)
        return spec.fn(**kwargs)


def outcome_of(result: ToolResult | InputRequired) -> str:
    """The outcome as logged, recovered from the result (for the tracing annotation and metrics)."""
    if not isinstance(result, ToolResult):
        return "input_required"
    if not result.is_error:
        return "success"
    content = result.structured_content
    code = content.get("code") if isinstance(content, dict) else None
    if code == INVALID_ARGUMENTS:
        return "invalid_arguments"
    if code in (INTERNAL_ERROR, RESULT_VIOLATES_MANIFEST, SECRET_UNAVAILABLE):
        return "system_error"
    return "business_error"


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)
