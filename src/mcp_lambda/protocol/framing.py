"""How a client frames a request to this server: a 2026-07-28 request (its `_meta` envelope, `wire.modern_meta`,
and the routing headers that mirror it), or a handshake session's headers. The one builder of them: the SnapStart
warm-up, the test kit, `make smoke`, `make simulate` and the bench frame their requests here."""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any

from ..wire import (
    MODERN_REVISION,
    NAME_BEARING_METHODS,
    TASK_NAME_BEARING_METHODS,
    VERSION_HEADER_REVISION,
    at_least,
    modern_meta,
)

# The params field each name-bearing method mirrors in Mcp-Name (the tasks extension's methods included).
NAME_FIELDS: dict[str, str] = {**NAME_BEARING_METHODS, **TASK_NAME_BEARING_METHODS}
# What every POST of a Streamable HTTP client carries.
POST_HEADERS = {
    "host": "localhost",
    "accept": "application/json, text/event-stream",
    "content-type": "application/json",
}


def encode_header_value(value: str) -> str:
    """`value` as an Mcp-Name / Mcp-Param-* header: plain when it is safe in a header, else base64-wrapped.

    Args:
        value: The value the body carries.

    Returns:
        The header value (`=?base64?<UTF-8 as base64>?=` when not printable ASCII without edge spaces).
    """
    if value.isascii() and value.isprintable() and value == value.strip():
        return value
    return "=?base64?" + base64.b64encode(value.encode("utf-8")).decode("ascii") + "?="


def routing_headers(
    method: str, params: Mapping[str, Any] | None, version: str = MODERN_REVISION
) -> dict[str, str]:
    """The 2026-07-28 routing headers of a request: MCP-Protocol-Version, Mcp-Method and (when the method names
    a target) Mcp-Name.

    Args:
        method: The JSON-RPC method.
        params: Its params (the Mcp-Name target is read from them).
        version: The revision header.

    Returns:
        The headers (lower-case names).
    """
    headers = {"mcp-protocol-version": version, "mcp-method": method}
    field = NAME_FIELDS.get(method)
    target = (params or {}).get(field) if field else None
    if isinstance(target, str):
        headers["mcp-name"] = encode_header_value(target)
    return headers


def modern_request(
    method: str,
    params: Mapping[str, Any] | None = None,
    request_id: int | str = 1,
    *,
    capabilities: Mapping[str, Any] | None = None,
    client_info: Mapping[str, Any] | None = None,
    meta: Mapping[str, Any] | None = None,
) -> tuple[dict[str, Any], dict[str, str]]:
    """A whole 2026-07-28 request: the JSON-RPC body with its `_meta` envelope, and the POST's headers.

    Args:
        method: The JSON-RPC method.
        params: Its params, without `_meta`.
        request_id: The JSON-RPC id.
        capabilities: The client capabilities declared.
        client_info: The client's name and version, when it sends them.
        meta: More `_meta` entries.

    Returns:
        (JSON body, headers).
    """
    body_params = dict(params or {})
    body_params["_meta"] = {**modern_meta(capabilities, client_info), **(meta or {})}
    headers = {**POST_HEADERS, **routing_headers(method, body_params)}
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": body_params}, headers


def session_headers(
    version: str, session_id: str | None, base: Mapping[str, str] = POST_HEADERS
) -> dict[str, str]:
    """`base` plus a legacy era's Mcp-Session-Id and (from 2025-06-18) MCP-Protocol-Version headers.

    Args:
        version: The session's revision.
        session_id: The Mcp-Session-Id (None before initialize).
        base: The headers to add to.

    Returns:
        The headers.
    """
    headers = dict(base)
    if session_id is not None:
        headers["mcp-session-id"] = session_id
    if at_least(version, VERSION_HEADER_REVISION):
        headers["mcp-protocol-version"] = version
    return headers
