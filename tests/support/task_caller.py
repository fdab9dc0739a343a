"""A business whose one task tool answers with the caller its worker invocation sees (`ctx.caller`,
`ctx.principal`, whether a token came along), for the tests that a task runs as the caller who created it."""

from __future__ import annotations

from typing import Any

from mcp_lambda.tools import Access, Business, TaskConfig, ToolContext, ToolResult, execution_result, tool

ISSUER = "https://issuer.example"


@tool(
    description="Use to see who a task runs as.",
    access=Access(scopes=("reports:read",)),
    task=TaskConfig(mode="optional"),
)
def whoami(ctx: ToolContext) -> ToolResult:
    caller = ctx.caller
    seen: dict[str, Any] = {
        "principal": ctx.principal,
        "caller": None,
        "has_token": ctx.caller_token is not None,
        "in_task": ctx.task_id is not None,
    }
    if caller is not None:
        seen["caller"] = {
            "kind": caller.kind,
            "subject": caller.subject,
            "issuer": caller.issuer,
            "client": caller.client,
            "scopes": sorted(caller.scopes),
            "claims": dict(caller.claims),
            "principal": caller.principal,
        }
    return execution_result(seen)


WHOAMI_BUSINESS = Business(name="whoami", tools=[whoami])
