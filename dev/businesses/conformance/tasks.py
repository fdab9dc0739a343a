"""Tasks-extension fixtures (the suite's `tasks-*` scenarios, SEP-2663): exactly the tools they name.

`greet` never runs as a task; the others do for a client that declares `io.modelcontextprotocol/tasks`. Long
ones poll `ctx.cancelled()` so that `tasks/cancel` ends them early."""

from __future__ import annotations

import time
from typing import Annotated, Any

from pydantic import Field

from mcp_lambda.tools import (
    InputRequired,
    TaskConfig,
    ToolContext,
    ToolResult,
    ToolSpec,
    content_result,
    elicit,
    input_required,
    text,
    tool,
)

CONFIRM_FORM = {"confirm": {"type": "boolean"}}
NAME_FORM = {"name": {"type": "string"}}
STEP_SECONDS = 0.05


def _content(ctx: ToolContext, key: str) -> dict[str, Any] | None:
    """The accepted form content the client answered `key` with; None when not answered or declined."""
    answer = ctx.input_responses.get(key)
    if not isinstance(answer, dict) or answer.get("action") != "accept":
        return None
    content = answer.get("content")
    return content if isinstance(content, dict) else {}


def _sleep(ctx: ToolContext, seconds: float) -> bool:
    """Wait `seconds`, checking for cancellation; False when the task was cancelled first."""
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        if ctx.cancelled():
            return False
        time.sleep(min(STEP_SECONDS, left))
    return True


@tool(description="Greets someone by name. Always answers at once (never a task).", safe_fields=("name",))
def greet(name: str) -> ToolResult:
    return content_result(text(f"Hello, {name}!"))


@tool(
    description="Computes for `seconds` seconds (0: at once), then answers. Runs as a task for task clients.",
    task=TaskConfig(mode="optional"),
    safe_fields=("seconds", "label"),
)
def slow_compute(
    ctx: ToolContext, seconds: Annotated[float, Field(ge=0, le=900)] = 1, label: str = ""
) -> ToolResult:
    ctx.report_status(f"Computing {label or 'a result'} for {seconds:g} s")
    if not _sleep(ctx, seconds):
        return content_result(text(f"Computation {label} was cancelled"))
    return content_result(text(f"Computed {label or 'a result'} in {seconds:g} s"))


@tool(
    description="A job that always fails with a tool error after about a second. Runs only as a task.",
    task=TaskConfig(mode="required"),
)
def failing_job(ctx: ToolContext) -> ToolResult:
    _sleep(ctx, 1)
    return content_result(text("The job failed: the upstream system rejected it"), is_error=True)


@tool(
    description="A job that crashes: the task fails with a JSON-RPC internal error.",
    task=TaskConfig(mode="optional"),
)
def protocol_error_job(ctx: ToolContext) -> ToolResult:
    raise RuntimeError("protocol_error_job crashed on purpose")


@tool(
    description="Deletes a file after the user confirms (one elicitation while the task waits).",
    task=TaskConfig(mode="optional"),
    safe_fields=("filename",),
)
def confirm_delete(filename: str, ctx: ToolContext) -> ToolResult | InputRequired:
    answer = _content(ctx, "confirm")
    if "confirm" not in ctx.input_responses:
        return input_required(confirm=elicit(f"Delete {filename}?", CONFIRM_FORM, ["confirm"]))
    if answer is None or answer.get("confirm") is False:
        return content_result(text(f"Kept {filename}"))
    return content_result(text(f"Deleted {filename}"))


@tool(
    description="Asks two questions at once (two pending input requests), then answers.",
    task=TaskConfig(mode="optional"),
)
def multi_input(ctx: ToolContext) -> ToolResult | InputRequired:
    if not {"first", "second"} <= set(ctx.input_responses):
        return input_required(
            first=elicit("First value?", {**NAME_FORM, **CONFIRM_FORM}),
            second=elicit("Second value?", {**NAME_FORM, **CONFIRM_FORM}),
        )
    first, second = _content(ctx, "first") or {}, _content(ctx, "second") or {}
    return content_result(text(f"Got {first.get('name', '?')} and {second.get('name', '?')}"))


def _ask_name_first(ctx: ToolContext) -> InputRequired | None:
    # A multi round-trip round before the task exists: the task starts only once the name is known.
    if _content(ctx, "user_name") is None:
        return input_required(user_name=elicit("What is your name?", NAME_FORM, ["name"]))
    return None


@tool(
    description="Asks the user's name (a multi round-trip round), then greets them from a task.",
    task=TaskConfig(mode="required", before_start=_ask_name_first),
)
def test_tool_with_task(ctx: ToolContext) -> ToolResult:
    name = (_content(ctx, "user_name") or {}).get("name", "there")
    return content_result(text(f"Hello, {name}! (greeted from a task)"))


TASK_TOOLS: list[ToolSpec[..., Any]] = [
    greet,
    slow_compute,
    failing_job,
    protocol_error_job,
    confirm_delete,
    multi_input,
    test_tool_with_task,
]
