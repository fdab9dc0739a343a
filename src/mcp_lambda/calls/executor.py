"""Runs one tool call: validate arguments, call, check the result, log, and turn exceptions into results.

This is the single place where a tool's exceptions are caught and logged, and where its rate limit and deadline
are kept. How each kind of exception becomes a result is a table looked up by exception class (most specific
first), like Starlette's exception handlers; a business adds its own rows with
`Business(error_map={OrderLocked: (40920, "order is locked")})`. A tool still running at the request deadline is
one more row: DeadlineExceeded (50400).
"""

from __future__ import annotations

import inspect
import os
import time
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ..deadlines import run_blocking_until, run_until
from ..encoding import dumps_for_parse
from ..observability import (
    NoTelemetry,
    ToolTelemetry,
    current_correlation_id,
    log_event,
    new_error_id,
    summarize_arguments,
    trace_id_on_lines,
)
from ..strict_json import json_problem
from ..tools.context import ToolContext
from ..tools.inputs import InputRequired
from ..tools.results import (
    META_EXECUTION_ID,
    ResultCode,
    ToolResult,
    business_error,
    system_error,
    text_set_by_server,
)
from ..tools.spec import ToolSpec
from ..trace_context import active
from .credentials import credential_leak
from .error_table import FRAMEWORK_ERRORS, INTERNAL, ErrorMap, ErrorRule, ToolCrashed, business_rule
from .fingerprints import LogFingerprints
from .quotas import QuotaExceeded, Quotas
from .rate_limits import RateLimits

if TYPE_CHECKING:
    from ..manifest.bound import ResultCheck, ResultView

# The call finished (the tool answered, possibly with a business error, or its stored answer was replayed)
# rather than failed.
FINISHED_OUTCOMES = frozenset({"success", "business_error", "input_required", "replayed"})
EXECUTION_ID_PREFIX = "exe_"
# The failed line's `hint` when a one-step tool (`ToolSpec.one_step`) reached for the running loop through a helper.
ONE_STEP_HINT = (
    "the tool is an async def that never awaits, so it ran as one step without the event loop; name asyncio in "
    "the tool, or await something, and it runs on the loop (docs/tools.md)"
)


def new_execution_id() -> str:
    """A fresh execution id, for a call no retry can be joined to (it carries no tool_call_id or key)."""
    return EXECUTION_ID_PREFIX + os.urandom(8).hex()  # what secrets.token_hex(8) returns, three calls sooner


@dataclass(frozen=True)
class Executed:
    """What running a tool gave: the result, and the outcome its finishing log line reported."""

    result: ToolResult | InputRequired
    outcome: str


class ToolExecutor:
    def __init__(
        self,
        result_check: ResultCheck | None = None,
        telemetry: ToolTelemetry | NoTelemetry | None = None,
        error_map: ErrorMap | None = None,
        fingerprints: LogFingerprints | None = None,
        quotas: Quotas | None = None,
        result_view: ResultView | None = None,
        grants_scopes: bool = False,
    ) -> None:
        self.result_check = result_check
        self.result_view = result_view
        # With a view, every `entities` result's text is rewritten here: its builder need not write one to replace.
        self._text_scope: Callable[[], AbstractContextManager[Any]] = (
            text_set_by_server if result_view is not None else nullcontext
        )
        # Whether a caller's scopes count (AUTH_MODE jwt or apigateway): with none, no caller holds a scope, so
        # every field that requires one is hidden from all.
        self.grants_scopes = grants_scopes
        self.telemetry = telemetry or NoTelemetry()
        # Keyed fingerprints of the caller (and of exactly-once records) for log lines; default: a random key.
        self.fingerprints = fingerprints or LogFingerprints()
        business_rules = {cls: business_rule(code, msg) for cls, (code, msg) in (error_map or {}).items()}
        self.errors: dict[type[BaseException], ErrorRule] = {**FRAMEWORK_ERRORS, **business_rules}
        self.rate_limits = RateLimits()  # per container
        self.quotas = quotas  # per caller, across the fleet; None when no tool has a quota

    async def run(
        self, spec: ToolSpec, arguments: Mapping[str, Any], ctx: ToolContext, *, crash_raises: bool = False
    ) -> ToolResult | InputRequired:
        """Run the tool. With `crash_raises` (a task) an unexpected exception raises ToolCrashed, logged."""
        return (await self.execute(spec, arguments, ctx, crash_raises=crash_raises)).result

    async def execute(
        self,
        spec: ToolSpec,
        arguments: Mapping[str, Any],
        ctx: ToolContext,
        log_fields: Mapping[str, Any] | None = None,
        *,
        crash_raises: bool = False,
    ) -> Executed:
        """Run the tool; the result and how the call ended (`log_fields` join both log lines)."""
        if ctx.trace is not None:  # the caller's trace: on every line of the call, and sent downstream
            trace_id = ctx.trace.trace_id
            with active(ctx.trace), trace_id_on_lines(ctx.logger, trace_id):
                return await self._execute(spec, arguments, ctx, log_fields, crash_raises, trace_id)
        return await self._execute(spec, arguments, ctx, log_fields, crash_raises)

    async def _execute(
        self,
        spec: ToolSpec,
        arguments: Mapping[str, Any],
        ctx: ToolContext,
        log_fields: Mapping[str, Any] | None,
        crash_raises: bool,
        trace_id: str | None = None,
    ) -> Executed:
        with self.telemetry.tool_call(spec.name, trace_id) as record:  # tracing subsegment + EMF metrics
            call = _Call(spec, ctx, self.fingerprints, log_fields)
            call.started_line(arguments)
            result: ToolResult | InputRequired
            try:
                self.rate_limits.check(spec.name, spec.rate_limit, ctx.principal)
                if self.quotas is not None and ctx.task_id is None:  # a task was counted when it was created
                    self.quotas.check(spec.name, ctx.principal)
                with self._text_scope():
                    value = await _invoke(spec, arguments, ctx)
            except Exception as exc:  # the one catch-all for a tool's exceptions
                result = call.failed(self.rule_for(exc), exc)
            else:
                result = self._settle(call, value)
            record.outcome = call.outcome
        if crash_raises and call.crashed and isinstance(result, ToolResult):
            structured = result.structured_content if isinstance(result.structured_content, dict) else {}
            raise ToolCrashed(str(structured.get("message", "internal error")), call.error_id)
        return Executed(result, call.outcome)

    def answered(
        self,
        spec: ToolSpec,
        arguments: Mapping[str, Any],
        ctx: ToolContext,
        outcome: str,
        result: ToolResult,
        log_fields: Mapping[str, Any] | None = None,
        error_type: str | None = None,
        started: float | None = None,
    ) -> ToolResult:
        """A call answered without running the tool (replayed, or refused by the exactly-once store): logged and
        counted like any other call; `started` (a `time.perf_counter()`) is when its store lookup began. A
        replay's `log_fields` carry the first attempt's `trace_id`, which its lines and segment carry on."""
        own_trace = ctx.trace.trace_id if ctx.trace is not None else None
        trace_id = (log_fields or {}).get("trace_id") or own_trace
        with self.telemetry.tool_call(spec.name, trace_id) as record:
            call = _Call(spec, ctx, self.fingerprints, log_fields, started)
            call.started_line(arguments)
            structured = result.structured_content
            code = structured.get("code") if result.is_error and isinstance(structured, dict) else 0
            call.finish(outcome, code, error_type, "error" if outcome == "system_error" else "info")
            record.outcome = outcome
        return call.stamped(result)

    async def admit(
        self, spec: ToolSpec, arguments: Mapping[str, Any], ctx: ToolContext
    ) -> ToolResult | InputRequired | None:
        """Before a task is created: count the call against the tool's quota, validate the arguments and run the
        tool's `TaskConfig.before_start`.

        None means "create the task". Otherwise the answer for this request, logged like a finished call: an
        error result (bad arguments, `before_start` refused or failed) or `input_required(...)` (ask first).
        """
        if self.quotas is not None:  # the call that creates a task counts once; its runs do not
            try:
                self.quotas.check(spec.name, ctx.principal)
            except QuotaExceeded as exc:
                call = _Call(spec, ctx, self.fingerprints)
                call.started_line(arguments)
                return call.failed(self.rule_for(exc), exc)
        hook = spec.before_task
        if spec.arguments is None and hook is None:
            return None
        gate = replace(spec, fn=hook or _admitted, is_async=inspect.iscoroutinefunction(hook))
        try:
            with self._text_scope():
                value = await _invoke(gate, arguments, ctx)
        except Exception as exc:
            call = _Call(spec, ctx, self.fingerprints)
            call.started_line(arguments)
            return call.failed(self.rule_for(exc), exc)
        if value is None:
            return None
        call = _Call(spec, ctx, self.fingerprints)
        call.started_line(arguments)
        return self._settle(call, value)

    def rule_for(self, exc: BaseException) -> ErrorRule:
        for cls in type(exc).__mro__:
            rule = self.errors.get(cls)
            if rule is not None:
                return rule
        return INTERNAL

    def _settle(self, call: _Call, value: Any) -> ToolResult | InputRequired:
        """The tool answered: check what it returned before it leaves the server."""
        if isinstance(value, InputRequired):
            call.finish("input_required", 0)
            return value
        if not isinstance(value, ToolResult):
            return call.failed(INTERNAL, None, error_type="BadReturnType")
        not_json = json_problem(value.to_wire())
        if not_json is not None:
            message = f"Tool '{call.spec.name}' returned a result that is not valid JSON: {not_json}"
            return call.contract_violation("ResultNotJson", message, reason=not_json)
        leak = credential_leak(value, self.fingerprints)  # a secret or the caller's token never leaves
        if leak is not None:
            return leak.refuse(call)
        caller = call.ctx.caller
        scopes = caller.scopes if self.grants_scopes and caller is not None else frozenset()
        if self.result_view is not None:  # a rewritten result gets its execution id in the same copy
            value = self.result_view(call.spec.name, value, scopes, call.stamp(value))
        if self.result_check is not None:
            violations = self.result_check(call.spec.name, value, scopes)
            if violations:
                return call.contract_violation(
                    "ManifestViolation", "; ".join(violations), violations=violations[:20]
                )
        structured = value.structured_content
        code = structured.get("code") if value.is_error and isinstance(structured, dict) else 0
        status = structured.get("result_status") if isinstance(structured, dict) else None
        said = {"result_status": status} if status is not None else {}  # an agent's branch, in the log too
        call.finish("business_error" if value.is_error else "success", code, **said)
        return call.stamped(value)


class _Call:
    """One tool call's log lines: the started line, then exactly one finishing line; and its execution id.

    The execution id (`execution_id` in `fields` when the exactly-once calls know it, else a fresh one) is on
    both lines and in the result's `_meta`. A carried `trace_id` in `fields` (a replay's first attempt's) wins
    over the request's own, which the lines then name `own_trace_id`.
    """

    def __init__(
        self,
        spec: ToolSpec,
        ctx: ToolContext,
        fingerprints: LogFingerprints,
        fields: Mapping[str, Any] | None = None,
        started: float | None = None,
    ) -> None:
        self.spec = spec
        self.ctx = ctx
        self.log = ctx.logger
        self.started = time.perf_counter() if started is None else started
        self.outcome = "system_error"
        self.crashed = False  # the catch-all rule answered: an unexpected exception or a bad return value
        self.error_id: str | None = None
        # request_id is the API Gateway request id (the Logger's correlation id); the JSON-RPC id rides along.
        self.base: dict[str, Any] = {
            "request_id": ctx.correlation_id or current_correlation_id(ctx.logger),
            "jsonrpc_id": ctx.request_id,
            "tool_name": spec.name,
            "execution_id": new_execution_id(),
        }
        if ctx.tool_call_id:
            self.base["tool_call_id"] = ctx.tool_call_id
        self.base.update(fields or {})
        self.execution_id: str = self.base["execution_id"]
        if ctx.caller is not None:  # a keyed hash of the principal: never the token, the subject or a claim
            self.base["caller"] = fingerprints.of(ctx.caller.principal)
        if ctx.task_id:
            self.base["task_id"] = ctx.task_id
        if ctx.trace is not None:
            own = self.base.setdefault("trace_id", ctx.trace.trace_id)
            if own != ctx.trace.trace_id:
                self.base["own_trace_id"] = ctx.trace.trace_id

    def started_line(self, arguments: Mapping[str, Any]) -> None:
        summary = summarize_arguments(arguments, self.spec.safe_fields)
        log_event(
            self.log,
            "info",
            "mcp_tool_call_started",
            {**self.base, "event": "mcp_tool_call_started", "arguments": summary},
        )

    def finish(
        self, outcome: str, code: Any, error_type: str | None = None, level: str = "info", **fields: Any
    ) -> None:
        self.outcome = outcome
        event = "mcp_tool_call_finished" if outcome in FINISHED_OUTCOMES else "mcp_tool_call_failed"
        extra = {**self.base, "event": event, "outcome": outcome, "code": code}
        if error_type is not None:  # a line leaves a None out anyway
            extra["error_type"] = error_type
        extra["duration_ms"] = round((time.perf_counter() - self.started) * 1000, 3)
        extra.update(fields)
        log_event(self.log, level, event, extra)

    def stamp(self, result: ToolResult) -> dict[str, Any] | None:
        """The `_meta` entries `stamped` adds to `result`: None when it has an execution id (a replay's)."""
        if result.meta and META_EXECUTION_ID in result.meta:
            return None
        return {META_EXECUTION_ID: self.execution_id}

    def stamped(self, result: ToolResult) -> ToolResult:
        """The result with this call's execution id in its `_meta` (a replay keeps the stored one)."""
        stamp = self.stamp(result)
        return result if stamp is None else result.with_meta(**stamp)

    def failed(self, rule: ErrorRule, exc: BaseException | None, error_type: str | None = None) -> ToolResult:
        fields: dict[str, Any] = {}
        self.crashed = rule is INTERNAL
        if rule.error_id:
            fields["error_id"] = self.error_id = new_error_id()
            message = rule.message(self.spec, fields["error_id"])
        else:
            message = rule.message(self.spec, exc)
        level = rule.log_level if exc is not None else "error"
        if exc is not None:
            fields.update(rule.log_fields(exc))
            if self.spec.one_step and isinstance(exc, RuntimeError) and "no running event loop" in str(exc):
                fields["hint"] = ONE_STEP_HINT
        self.finish(rule.outcome, rule.code, error_type or type(exc).__name__, level, **fields)
        # An error_map row is the business's own code; every other row is one of the framework's.
        build = business_error if rule.outcome == "business_error" else system_error
        return self.stamped(build(rule.code, message, **(rule.advice(exc) if exc is not None else {})))

    def contract_violation(self, error_type: str, message: str, **fields: Any) -> ToolResult:
        self.finish("system_error", ResultCode.RESULT_VIOLATES_MANIFEST, error_type, "error", **fields)
        return self.stamped(system_error(ResultCode.RESULT_VIOLATES_MANIFEST, message))


def _admitted(**kwargs: Any) -> None:
    """The default admission when a tool has no `before_start`: the arguments validated, start the task."""
    return None


async def _invoke(spec: ToolSpec, arguments: Mapping[str, Any], ctx: ToolContext) -> Any:
    if spec.null_means_absent:
        # A null for an optional argument whose schema has none is "not given" (docs/tools.md): the default.
        arguments = {k: v for k, v in arguments.items() if v is not None or k not in spec.null_means_absent}
    if spec.arguments is not None:
        # As JSON, in strict mode: exactly the published schema's types, with JSON's spellings of dates and enums.
        validated = spec.arguments.model_validate_json(dumps_for_parse(arguments))
        # What dict(validated) gives, without its failed lookup of a `keys` attribute first.
        kwargs = {**validated.__dict__, **(validated.__pydantic_extra__ or {})}
    elif "arguments" in spec.arguments_accepted:
        kwargs = {"arguments": dict(arguments)}  # a hand-written schema: the tool validates its own input
    else:
        kwargs = {k: v for k, v in arguments.items() if k in spec.arguments_accepted}
    if spec.context_param:
        kwargs[spec.context_param] = ctx
    if spec.is_async:
        return await run_until(ctx.deadline, lambda: spec.fn(**kwargs), may_wait=not spec.one_step)
    # On a worker thread, so the deadline can be kept while it runs; at the deadline its thread is abandoned.
    return run_blocking_until(ctx.deadline, spec.fn, **kwargs)
