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
            result, record.outcome = await self._run(spec, arguments, ctx)
        return result

    async def _run(
        self, spec: ToolSpec, arguments: Mapping[str, Any], ctx: ToolContext
    ) -> tuple[ToolResult | InputRequired, str]:
        """The result and its outcome, exactly as the log lines report it."""
        log = ctx.logger
        started = time.perf_counter()
        # request_id is the API Gateway request id (the Logger's correlation id); the JSON-RPC id rides along.
        correlation_id = ctx.extras.get("correlation_id") or current_correlation_id(log)
        base = {"request_id": correlation_id, "jsonrpc_id": ctx.request_id, "tool_name": spec.name}
        if ctx.tool_call_id:
            base["tool_call_id"] = ctx.tool_call_id

        def failed(code: int, error_type: str, *, stack: bool = False, **fields: Any) -> None:
            extra = {
                **base,
                "event": "mcp_tool_call_failed",
                **fields,
                "error_type": error_type,
                "outcome": "system_error",
                "code": code,
                "duration_ms": _ms(started),
            }
            (log.exception if stack else log.error)("mcp_tool_call_failed", extra=extra)

        def internal_error(error_type: str, stack: bool) -> tuple[ToolResult, str]:
            error_id = secrets.token_hex(8)  # the client gets the id, the log gets the type (and stack)
            failed(INTERNAL_ERROR, error_type, stack=stack, error_id=error_id)
            message = f"Tool '{spec.name}' failed with an internal error (error id {error_id})."
            return business_error(INTERNAL_ERROR, message), "system_error"

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
        except Exception as exc:  # the one catch-all for a tool's exceptions
            return internal_error(type(exc).__name__, stack=True)
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
            return result, "input_required"
        if not isinstance(result, ToolResult):
            return internal_error("BadReturnType", stack=False)
        if self.result_check is not None and outcome == "success":
            violations = self.result_check(spec.name, result)
            if violations:
                failed(RESULT_VIOLATES_MANIFEST, "ManifestViolation", violations=violations[:20])
                return business_error(RESULT_VIOLATES_MANIFEST, "; ".join(violations)), "system_error"
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
        return result, outcome

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


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)
