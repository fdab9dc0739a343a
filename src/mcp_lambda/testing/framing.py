"""How each protocol era frames a request: the 2026-07-28 `_meta` envelope and routing headers, or a session's
JSON-RPC request on its `Mcp-Session-Id`."""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any, Literal

from ..tools import Business

Era = Literal["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]
MODERN: Era = "2026-07-28"
# Every era the kit speaks: the stateless one first, then the session (handshake) eras, newest first.
ERAS: tuple[Era, ...] = ("2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
CLIENT_INFO = {"name": "mcp-lambda-testing", "version": "1.0"}
POST_HEADERS = {
    "host": "localhost",
    "accept": "application/json, text/event-stream",
    "content-type": "application/json",
}
# The params field each name-bearing method mirrors in Mcp-Name.
NAME_FIELDS = {
    "tools/call": "name",
    "prompts/get": "name",
    "resources/read": "uri",
    "tasks/get": "taskId",
    "tasks/update": "taskId",
    "tasks/cancel": "taskId",
}


def header_value(value: str) -> str:
    """`value` as an Mcp-Name / Mcp-Param-* header: plain when it is safe in a header, else base64-wrapped."""
    if value.isascii() and value.isprintable() and value == value.strip():
        return value
    return "=?base64?" + base64.b64encode(value.encode("utf-8")).decode("ascii") + "?="


def modern_request(
    business: Business,
    method: str,
    params: Mapping[str, Any] | None,
    request_id: int,
    capabilities: Mapping[str, Any],
    meta: Mapping[str, Any] | None = None,
) -> tuple[dict[str, Any], dict[str, str]]:
    """A 2026-07-28 request: the body (its `_meta` declaring `capabilities`) and the routing headers.

    Args:
        business: The business served (for the Mcp-Param-* headers its tools mirror).
        method: The JSON-RPC method.
        params: Its params, without `_meta`.
        request_id: The JSON-RPC id.
        capabilities: The client capabilities this request declares.
        meta: More `_meta` entries (e.g. `tool_call_id`).

    Returns:
        (JSON body, headers).
    """
    body_params = dict(params or {})
    body_params["_meta"] = {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": dict(capabilities),
        "io.modelcontextprotocol/clientInfo": CLIENT_INFO,
        **(meta or {}),
    }
    headers = {**POST_HEADERS, "mcp-protocol-version": MODERN, "mcp-method": method}
    field = NAME_FIELDS.get(method)
    target = body_params.get(field) if field else None
    if isinstance(target, str):
        headers["mcp-name"] = header_value(target)
    if method == "tools/call" and isinstance(target, str):
        headers.update(_param_headers(business, target, body_params.get("arguments")))
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": body_params}, headers


def _param_headers(business: Business, tool: str, arguments: Any) -> dict[str, str]:
    """The Mcp-Param-* headers of the arguments the tool's schema mirrors (`x-mcp-header`)."""
    spec = business.tool(tool)
    properties = spec.input_schema.get("properties") if spec is not None else None
    if not isinstance(properties, dict) or not isinstance(arguments, dict):
        return {}
    headers = {}
    for name, schema in properties.items():
        suffix = schema.get("x-mcp-header") if isinstance(schema, dict) else None
        value = arguments.get(name)
        if not isinstance(suffix, str) or value is None:
            continue
        if isinstance(value, bool):
            headers[f"mcp-param-{suffix.lower()}"] = "true" if value else "false"
        elif isinstance(value, int | str):
            headers[f"mcp-param-{suffix.lower()}"] = header_value(str(value))
    return headers


def session_request(
    version: str,
    session_id: str | None,
    method: str,
    params: Mapping[str, Any] | None,
    request_id: int | None,
    meta: Mapping[str, Any] | None = None,
) -> tuple[dict[str, Any], dict[str, str]]:
    """A session-era request (or notification, `request_id=None`) on `session_id`.

    Args:
        version: The session's protocol version.
        session_id: The Mcp-Session-Id (None before initialize).
        method: The JSON-RPC method.
        params: Its params.
        request_id: The JSON-RPC id; None for a notification.
        meta: `_meta` entries (e.g. `tool_call_id`).

    Returns:
        (JSON body, headers).
    """
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if request_id is not None:
        message["id"] = request_id
    if params is not None or meta:
        message["params"] = {**(params or {}), **({"_meta": dict(meta)} if meta else {})}
    return message, session_headers(version, session_id, POST_HEADERS)


def session_headers(version: str, session_id: str | None, base: Mapping[str, str]) -> dict[str, str]:
    """`base` plus the session's Mcp-Session-Id and (from 2025-06-18) MCP-Protocol-Version headers."""
    headers = dict(base)
    if session_id is not None:
        headers["mcp-session-id"] = session_id
    if version >= "2025-06-18":
        headers["mcp-protocol-version"] = version
    return headers
