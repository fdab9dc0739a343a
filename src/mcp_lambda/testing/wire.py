"""An oracle independent of our code: validate server messages against the official `mcp_types` wire models.

Needs the development dependency `mcp_types` (the `mcp` package): `replay.check_wire` imports this module only
when it is installed.

Modern (2026-07-28) messages use the 2026-07-28 generated models; legacy messages use the 2025-11-25 ones
(a superset of the older legacy revisions) plus the rule that legacy results carry no 2026-only fields.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal

from mcp_types import _v2025_11_25 as legacy_types
from mcp_types import _v2026_07_28 as modern_types
from pydantic import BaseModel, ConfigDict, StrictInt, StrictStr, field_validator

from ..wire import LEGACY_REVISIONS
from .results import HttpReply

MODERN_RESULTS: dict[str, type[BaseModel]] = {
    "server/discover": modern_types.DiscoverResult,
    "tools/list": modern_types.ListToolsResult,
    "tools/call": modern_types.CallToolResult,
}
LEGACY_RESULTS: dict[str, type[BaseModel]] = {
    "initialize": legacy_types.InitializeResult,
    "tools/list": legacy_types.ListToolsResult,
    "tools/call": legacy_types.CallToolResult,
}
MODERN_ERRORS: dict[int, type[BaseModel]] = {
    -32020: modern_types.HeaderMismatchError,
    -32022: modern_types.UnsupportedProtocolVersionError,
}
ISO_8601 = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$")


class TaskShape(BaseModel):
    """SEP-2663's `Task` (mcp_types has no model of the extension): written from the SEP text, not our code."""

    model_config = ConfigDict(extra="allow")

    taskId: StrictStr
    status: Literal["working", "input_required", "completed", "cancelled", "failed"]
    statusMessage: StrictStr | None = None
    createdAt: StrictStr
    lastUpdatedAt: StrictStr
    ttlMs: StrictInt | None
    pollIntervalMs: StrictInt | None = None

    @field_validator("createdAt", "lastUpdatedAt")
    @classmethod
    def _iso(cls, value: str) -> str:
        assert ISO_8601.match(value), f"not ISO-8601: {value}"
        return value


# Keys the v2 wire never carries on a task (v1 names, the MRTR state, a nested envelope).
NEVER_ON_A_TASK = ("task", "ttl", "pollInterval", "requestState")


def check_task(result: dict[str, Any], result_type: str) -> None:
    """A CreateTaskResult (`resultType: "task"`) or a tasks/get DetailedTask (`"complete"`)."""
    TaskShape.model_validate(result)
    assert result["resultType"] == result_type, result
    assert result["ttlMs"] is None or result["ttlMs"] > 0
    assert result.get("pollIntervalMs") is None or result["pollIntervalMs"] > 0
    assert not [key for key in NEVER_ON_A_TASK if key in result], result
    payload = {key for key in ("result", "error", "inputRequests") if key in result}
    if result_type == "task":
        assert not payload, f"CreateTaskResult carries {payload}"
        return
    status = result["status"]
    expected = {"completed": {"result"}, "failed": {"error"}, "input_required": {"inputRequests"}}
    assert payload == expected.get(status, set()), f"{status} task carries {payload}"
    if status == "completed":
        inlined = result["result"]
        modern_types.CallToolResult.model_validate(inlined)
        assert "io.modelcontextprotocol/related-task" not in (inlined.get("_meta") or {})
    elif status == "failed":
        modern_types.Error.model_validate(result["error"])
    elif status == "input_required":
        assert result["inputRequests"], "input_required needs at least one input request"
        for request in result["inputRequests"].values():
            assert isinstance(request.get("method"), str) and isinstance(request.get("params"), dict)


# Fields that only exist at 2026-07-28 and must never appear on a legacy result.
MODERN_ONLY_FIELDS = ("resultType", "ttlMs", "cacheScope")


def check_modern(message: Any, method: str | None = None) -> None:
    """A 2026-07-28 response (result or error), or a notification streamed before it."""
    assert isinstance(message, dict), message
    if "method" in message:
        modern_types.JSONRPCNotification.model_validate(message)
        if message["method"] == "notifications/progress":
            modern_types.ProgressNotification.model_validate(message)
        return
    if "error" in message:
        model = MODERN_ERRORS.get(message["error"].get("code"), modern_types.JSONRPCErrorResponse)
        model.model_validate(message)
        return
    modern_types.JSONRPCResultResponse.model_validate(message)
    result = message["result"]
    assert "resultType" in result, "every 2026-07-28 result carries resultType"
    if result["resultType"] == "task":
        assert method == "tools/call", f"only tools/call may answer a task, not {method}"
        check_task(result, "task")
        return
    if method == "tasks/get":
        check_task(result, "complete")
    elif method in ("tasks/update", "tasks/cancel"):
        assert set(result) <= {"resultType", "_meta"} and result["resultType"] == "complete", result
    if method in MODERN_RESULTS:
        MODERN_RESULTS[method].model_validate(result)
    if method == "tools/list":
        for tool in result["tools"]:
            assert tool.get("description"), f"tool {tool['name']} needs a description"


def check_legacy(message: Any, method: str | None = None) -> None:
    """A legacy-era response, or an array of them (2025-03-26 batch)."""
    if isinstance(message, list):
        for item in message:
            check_legacy(item)
        return
    assert isinstance(message, dict), message
    if "method" in message:
        legacy_types.JSONRPCNotification.model_validate(message)
        return
    if "error" in message:
        legacy_types.JSONRPCErrorResponse.model_validate(message)
        return
    legacy_types.JSONRPCResultResponse.model_validate(message)
    result = message["result"]
    leaked = [field for field in MODERN_ONLY_FIELDS if field in result]
    assert not leaked, f"legacy result carries 2026-only fields {leaked}"
    if method in ("ping", "logging/setLevel"):
        assert result == {}, f"{method} must answer exactly {{}}"
    if method in LEGACY_RESULTS:
        LEGACY_RESULTS[method].model_validate(result)


def check_error_shape(message: Any) -> None:
    """Any JSON-RPC error the transport sends (403/406/413/415/parse errors included)."""
    legacy_types.JSONRPCErrorResponse.model_validate(message)


def check_input_required(result: dict[str, Any]) -> None:
    """A 2026-07-28 InputRequiredResult: the official model, and at least one of inputRequests/requestState."""
    modern_types.InputRequiredResult.model_validate(result)
    assert "inputRequests" in result or "requestState" in result, result


def check_reply(headers: Mapping[str, str], request: Any, reply: HttpReply) -> None:
    """Every JSON body the server sends must be a valid message of the era the request was routed to.

    Args:
        headers: The request's headers (MCP-Protocol-Version picks the era).
        request: The request's JSON body (its method picks the result model), or None.
        reply: The reply.
    """
    content_type = reply.headers.get("content-type", "")
    if not reply.raw or content_type.startswith("text/html"):
        return
    if reply.status in (401, 403, 404, 406, 413, 415) and content_type.startswith("application/json"):
        body = reply.body
        if isinstance(body, dict) and "detail" in body:
            return  # Starlette's own 404 for another path: not an MCP message
        check_error_shape(body)
        if reply.status != 404:
            return
    version = {k.lower(): v for k, v in headers.items()}.get("mcp-protocol-version")
    modern = version is not None and version.strip() not in LEGACY_REVISIONS
    method = request.get("method") if isinstance(request, dict) else None
    method = method if isinstance(method, str) else None
    messages: Any = reply.messages if content_type.startswith("text/event-stream") else reply.body
    if not modern:
        check_legacy(messages, method)
        return
    for message in messages if isinstance(messages, list) else [messages]:
        result = message.get("result") if isinstance(message, dict) else None
        if isinstance(result, dict) and result.get("resultType") == "input_required":
            # A multi round-trip round: an InputRequiredResult, not the method's final result type.
            check_modern(message)
            check_input_required(result)
        else:
            check_modern(message, method)
