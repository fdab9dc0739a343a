"""Builds the ToolContext a tool, prompt or resource function receives for one call."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .. import deadlines, trace_context
from ..calls.exactly_once import CallKey
from ..tools.context import Services, TaskControl, ToolContext
from .scope import CallScope

if TYPE_CHECKING:
    from ..stores.tasks import Task

TOOL_CALL_ID_KEYS = ("tool_call_id", "toolCallId", "io.modelcontextprotocol/toolCallId")
# This round's answers, and the previous round's verified state (multi round-trip, 2026-07-28).
RoundInputs = tuple[Mapping[str, Any], Mapping[str, Any] | None]
NO_INPUTS: RoundInputs = ({}, None)


def tool_call_id(meta: Mapping[str, Any], limit: int | None = 128) -> str | None:
    """The caller's id for this tool call (`_meta`), bounded in length (for logs) unless `limit` is None."""
    for key in TOOL_CALL_ID_KEYS:
        value = meta.get(key)
        if isinstance(value, str) and value:
            return value[:limit]
    return None


def caller_of(scope: CallScope) -> CallKey:
    """Who calls, and the key of this call: the `_meta` tool_call_id (whole), else the Idempotency-Key header."""
    key, source = tool_call_id(scope.meta, limit=None), "tool_call_id"
    if key is None and scope.idempotency_key:
        key, source = scope.idempotency_key, "Idempotency-Key"
    return CallKey(scope.principal, key, source, scope.lambda_context)


class ContextFactory:
    """One ToolContext per call: what the scope knows about the request, plus the app's services."""

    def __init__(self, services: Services) -> None:
        self.services = services

    def __call__(self, scope: CallScope, name: str, inputs: RoundInputs = NO_INPUTS) -> ToolContext:
        services = self.services
        return ToolContext(
            request_id=scope.request_id,
            tool_name=name,
            logger=services.logger,
            correlation_id=scope.correlation_id,
            session_id=scope.session.session_id if scope.session else None,
            principal=scope.principal,
            tool_call_id=tool_call_id(scope.meta),
            client_capabilities=scope.client_capabilities,
            meta=scope.meta,
            secrets=services.secrets,
            notify=scope.notify,
            log_level=scope.log_level,
            input_responses=inputs[0],
            request_state=inputs[1],
            platform_api=services.platform_api,
            caller=scope.auth.caller,
            caller_token=scope.auth.token,
            deadline=deadlines.current(),  # the request's, set by the transport
            http=services.http.on_behalf_of(scope.auth.token),
            trace=scope.trace,
            cancellation=scope.cancellation,
        )

    def for_task(
        self,
        task: Task,
        control: TaskControl,
        answers: Mapping[str, Any],
        state: Mapping[str, Any] | None,
        invocation_id: str | None,
    ) -> ToolContext:
        """The context of a task's run in its worker invocation: the creating request's caller and what it
        declared, no notifications (a task carries none), and this round's answers."""
        services = self.services
        return ToolContext(
            request_id=None,
            tool_name=task.tool,
            logger=services.logger,
            correlation_id=invocation_id,
            principal=task.principal,
            client_capabilities=task.client_capabilities,
            secrets=services.secrets,
            input_responses=answers,
            request_state=state,
            platform_api=services.platform_api,
            caller=task.caller_identity(),  # no caller_token: the creating request's may have expired by now
            task_id=task.task_id,
            task=control,
            http=services.http.on_behalf_of(None),
            # The creating request's trace: the worker's lines and its downstream calls continue it.
            trace=trace_context.parse(task.traceparent, task.tracestate) if task.traceparent else None,
        )
