"""A tiny business for the unit tests, so they do not depend on the demo business or its manifest."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from mcp_lambda.tools import Business, ToolContext, ToolResult, execution_result, text, tool
from mcp_lambda.tools.results import content_result

# The text a failing tool raises with: it must never reach the client.
SECRET_FAILURE_TEXT = "db password is hunter2 at /srv/app/secrets.py"


@tool(description="Use to echo a message back. Not for anything else.", safe_fields=("message",))
def echo(message: Annotated[str, Field(min_length=1, max_length=100)], ctx: ToolContext) -> ToolResult:
    return execution_result({"echo": message}, text=message)


@tool(description="Use to add two small integers. Not for floats.")
def add(
    a: Annotated[int, Field(ge=0, le=100)],
    b: Annotated[int, Field(ge=0, le=100)],
    ctx: ToolContext,
) -> ToolResult:
    return execution_result({"sum": a + b})


@tool(description="Use to test the error path: always fails with an exception.")
def explode(ctx: ToolContext) -> ToolResult:
    raise RuntimeError(SECRET_FAILURE_TEXT)


@tool(description="Use to test progress: reports progress 0, 50 and 100 before answering.")
def slow_count(ctx: ToolContext) -> ToolResult:
    for step in (0, 50, 100):
        ctx.report_progress(step, total=100)
    return content_result(text("counted"))


TEST_BUSINESS = Business(
    name="testbiz",
    title="Test business",
    version="9.9.9",
    instructions="A business for unit tests.",
    tools=[echo, add, explode, slow_count],
)
