"""A tiny business with task tools, and an in-memory stand-in for the asynchronous self-invocation, for the
fast unit tests of the tasks extension (the integration tests use DynamoDB Local and real processes)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from mcp_lambda.calls.task_invoke import TaskStartFailed, task_event
from mcp_lambda.lambda_adapter import LambdaHandler
from mcp_lambda.testing import invoke
from mcp_lambda.tools import (
    Business,
    InputRequired,
    TaskConfig,
    ToolContext,
    ToolResult,
    business_error,
    content_result,
    elicit,
    input_required,
    sample,
    text,
    tool,
)

from .business import SECRET_FAILURE_TEXT

TASKS_CAPABILITIES: dict[str, Any] = {"extensions": {"io.modelcontextprotocol/tasks": {}}, "elicitation": {}}
CALLS: list[str] = []  # the task tools that actually ran, in order


@tool(
    description="Use to count to a number, slowly. Runs as a task for clients that take tasks.",
    task=TaskConfig(mode="optional"),
)
def count_to(n: Annotated[int, Field(ge=1, le=50)], ctx: ToolContext) -> ToolResult:
    CALLS.append("count_to")
    for step in range(1, n + 1):
        if ctx.cancelled():
            return content_result(text(f"stopped at {step}"))
        ctx.report_progress(step, total=n, message="counting")
    return content_result(text(f"counted to {n}"))


@tool(description="Use to export a report. Runs only as a task.", task=TaskConfig(mode="required"))
def export_report(ctx: ToolContext) -> ToolResult:
    CALLS.append("export_report")
    return business_error(50301, "the report service is down")


@tool(description="Use to test a crash inside a task.", task=TaskConfig(mode="optional"))
def crash(ctx: ToolContext) -> ToolResult:
    CALLS.append("crash")
    raise RuntimeError(SECRET_FAILURE_TEXT)


@tool(
    description="Use to approve two things at once; asks the user inside the task.",
    task=TaskConfig(mode="optional"),
)
def approve(ctx: ToolContext) -> ToolResult | InputRequired:
    CALLS.append("approve")
    if not {"a", "b"} <= set(ctx.input_responses):
        ctx.report_status("Waiting for the two approvals")
        return input_required(
            a=elicit("Approve A?", {"ok": {"type": "boolean"}}),
            b=elicit("Approve B?", {"ok": {"type": "boolean"}}),
        )
    oks = [ctx.input_responses[key].get("content", {}).get("ok") for key in ("a", "b")]
    return content_result(text(f"approvals: {oks}"))


@tool(
    description="Use to test a task asking for a capability the client lacks (sampling).",
    task=TaskConfig(mode="optional"),
)
def needs_sampling(ctx: ToolContext) -> ToolResult | InputRequired:
    CALLS.append("needs_sampling")
    if "llm" not in ctx.input_responses:
        return input_required(llm=sample("Say hi"))
    return content_result(text("sampled"))


def _ask_first(who: str, ctx: ToolContext) -> InputRequired | None:
    if "sure" not in ctx.input_responses:
        return input_required(sure=elicit(f"Greet {who}?", {"ok": {"type": "boolean"}}), state={"who": who})
    return None


@tool(
    description="Use to greet someone from a task after confirming.",
    task=TaskConfig(mode="required", before_start=_ask_first),
)
def greet_later(who: str, ctx: ToolContext) -> ToolResult:
    CALLS.append("greet_later")
    confirmed = (ctx.input_responses.get("sure") or {}).get("content", {}).get("ok")
    return content_result(text(f"hello {who} (confirmed={confirmed}, state={dict(ctx.request_state or {})})"))


@tool(description="Use to test a synchronous tool next to task tools.")
def ping_sync() -> ToolResult:
    return content_result(text("pong"))


TASK_BUSINESS = Business(
    name="taskbiz",
    tools=[count_to, export_report, crash, approve, needs_sampling, greet_later, ping_sync],
)


class RecordingInvoker:
    """The asynchronous self-invocation, captured: a test delivers the recorded events through the handler."""

    def __init__(self) -> None:
        self.started: list[tuple[str, int]] = []
        self.fail = False

    def start(self, task_id: str, run: int) -> None:
        if self.fail:
            raise TaskStartFailed("the task worker could not be invoked: TooManyRequestsException")
        self.started.append((task_id, run))

    def deliver(self, handler: LambdaHandler) -> list[Any]:
        """Run every queued worker invocation through `handler` (as Lambda would, later), oldest first."""
        outcomes = []
        while self.started:
            task_id, run = self.started.pop(0)
            outcomes.append(invoke(handler, task_event(task_id, run)))
        return outcomes
