"""Constant tables of the wire protocol. Pinned against the official `mcp_types` package by a test, never
imported from it at run time (that import would be a large part of the cold start)."""

from __future__ import annotations

# 2026-07-28: methods whose target is mirrored in the Mcp-Name header, and the params field it mirrors.
NAME_BEARING_METHODS = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}
# The tasks extension (SEP-2663 "Streamable HTTP: Routing Headers") adds its methods: Mcp-Name = params.taskId.
# Kept apart from the table above, which is pinned against the SDK's (the SDK does not list extension methods).
TASK_NAME_BEARING_METHODS = {"tasks/get": "taskId", "tasks/update": "taskId", "tasks/cancel": "taskId"}
# 2026-07-28: results of these methods carry ttlMs/cacheScope.
CACHEABLE_METHODS = frozenset(
    {
        "server/discover",
        "tools/list",
        "prompts/list",
        "resources/list",
        "resources/templates/list",
        "resources/read",
    }
)
# mcp-wire §3: the HTTP status of a JSON-RPC error on the 2026-07-28 path (anything else: 200).
HTTP_STATUS_OF_CODE = {
    -32700: 400,
    -32600: 400,
    -32602: 400,
    -32020: 400,
    -32021: 400,
    -32022: 400,
    -32601: 404,
}
