"""The official MCP Python client (mcp 2.x) drives a task to completion against the make-run server.

The SDK does not ship the tasks extension (SEP-2663) itself, but its extension API (`ClientExtension`,
`ResultClaim` for a `resultType` the core does not know, `Request.name_param` for the `Mcp-Name` header) is
exactly where an extension plugs in: the few lines below are the client half, and `call_tool` then returns the
task's final result transparently, polling `tasks/get` through the SDK's own session.
"""

from __future__ import annotations

from typing import Any, Literal

import anyio
import mcp_types as types
from mcp import Client
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from mcp_types import Request, RequestParams, Result
from pydantic import ConfigDict

EXTENSION = "io.modelcontextprotocol/tasks"


class CreateTaskResult(Result):
    model_config = ConfigDict(extra="allow")
    result_type: Literal["task"]
    task_id: str
    status: str
    poll_interval_ms: int | None = None


class GetTaskParams(RequestParams):
    task_id: str


class GetTaskRequest(Request[GetTaskParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"
    params: GetTaskParams
    name_param = "taskId"


class DetailedTask(Result):
    model_config = ConfigDict(extra="allow")
    task_id: str
    status: str
    poll_interval_ms: int | None = None
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None


class Tasks(ClientExtension):
    identifier = EXTENSION

    def __init__(self) -> None:
        self.seen: list[tuple[str, str]] = []

    def claims(self) -> list[ResultClaim[Any]]:
        return [ResultClaim(result_type="task", model=CreateTaskResult, resolve=self.resolve)]

    async def resolve(self, created: CreateTaskResult, ctx: ClaimContext) -> types.CallToolResult:
        self.seen.append((created.task_id, created.status))
        while True:
            request = GetTaskRequest(params=GetTaskParams(task_id=created.task_id))
            task = await ctx.session.send_request(request, DetailedTask)
            self.seen.append((task.task_id, task.status))
            if task.status == "completed":
                return types.CallToolResult.model_validate(task.result)
            if task.status in ("failed", "cancelled", "input_required"):
                raise RuntimeError(f"task {task.status}: {task.error}")
            await anyio.sleep((task.poll_interval_ms or 200) / 1000)


def test_the_official_client_drives_a_task_to_completion(conformance_url: str) -> None:
    tasks = Tasks()

    async def run() -> tuple[str, Any, Any]:
        async with Client(conformance_url, mode="auto", extensions=[tasks]) as client:
            result = await client.call_tool("slow_compute", {"seconds": 0.5, "label": "official"})
            return client.protocol_version, client.server_capabilities, result

    version, capabilities, result = anyio.run(run)

    assert version == "2026-07-28"  # auto mode discovered the modern revision
    assert EXTENSION in (capabilities.extensions or {})
    assert result.content[0].text == "Computed official in 0.5 s"
    task_id = tasks.seen[0][0]
    assert tasks.seen[0] == (task_id, "working") and tasks.seen[-1] == (task_id, "completed")
    assert all(seen_id == task_id for seen_id, _ in tasks.seen)
