"""The wire's constants, defined once: revisions, the 2026-07-28 `_meta` envelope, JSON-RPC codes, method tables.

The bottom of the import graph: the protocol layer, the SnapStart warm-up, the test kit and the dev tools all read
these names from here. Pinned against the official `mcp_types` package by tests, never imported from it at run
time (that import would be a large part of the cold start).

Vocabulary, one for code and docs (the official SDK's `mcp_types.version` and its client's `mode="legacy"`): two
*eras*. The *legacy* era's revisions (2024-11-05 … 2025-11-25, the SDK's handshake revisions) open a session with
the `initialize` handshake; the *modern* era's revision (2026-07-28) has no session: every request carries the
protocol version and client capabilities in its `params._meta`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# --- revisions --------------------------------------------------------------------------------------------------
# Every revision, oldest first (the SDK's version.py keeps one ordered list too). A revision is a name, not a
# number: "is this revision at least X" asks `at_least`, never a comparison of the date strings.
REVISIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")
FIRST_MODERN_REVISION = "2026-07-28"
# The eras, cut from the one list: the legacy revisions, then the modern ones.
LEGACY_REVISIONS = REVISIONS[: REVISIONS.index(FIRST_MODERN_REVISION)]
MODERN_REVISIONS = REVISIONS[REVISIONS.index(FIRST_MODERN_REVISION) :]
MODERN_REVISION = MODERN_REVISIONS[-1]
LATEST_LEGACY_REVISION = LEGACY_REVISIONS[-1]
# Streamable HTTP: a server MAY assume 2025-03-26 when a legacy request carries no version header.
HEADERLESS_REVISION = "2025-03-26"
BATCH_REVISIONS = ("2025-03-26",)
# From this revision a session's requests carry MCP-Protocol-Version, and serverInfo may carry a title.
VERSION_HEADER_REVISION = "2025-06-18"


def at_least(revision: str, floor: str) -> bool:
    """Whether `revision` is a known revision no earlier than `floor`, by their order in `REVISIONS`.

    As the SDK's `is_version_at_least`: an unknown `revision` (a client's) is False, never compared as text.

    Args:
        revision: The revision to place (any string).
        floor: A revision of `REVISIONS`.

    Returns:
        True when `revision` is in `REVISIONS` and comes no earlier than `floor`.

    Raises:
        ValueError: `floor` is not a known revision (a mistake in our code, not the client's).
    """
    if floor not in REVISIONS:
        raise ValueError(f"not a known revision: {floor!r}")
    return revision in REVISIONS and REVISIONS.index(revision) >= REVISIONS.index(floor)


# --- the 2026-07-28 `_meta` envelope -----------------------------------------------------------------------------
META_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo"


def modern_meta(
    capabilities: Mapping[str, Any] | None = None,
    client_info: Mapping[str, Any] | None = None,
    version: str = MODERN_REVISION,
) -> dict[str, Any]:
    """The `params._meta` envelope every 2026-07-28 request carries.

    Args:
        capabilities: The client's capabilities (default: none declared).
        client_info: `{"name", "version"}` of the client (omitted when None).
        version: The revision the request names.

    Returns:
        A new dict: `{protocolVersion, clientCapabilities[, clientInfo]}` under their `io.modelcontextprotocol/` keys.
    """
    meta: dict[str, Any] = {META_VERSION: version, META_CAPABILITIES: dict(capabilities or {})}
    if client_info is not None:
        meta[META_CLIENT_INFO] = dict(client_info)
    return meta


# --- JSON-RPC error codes ---------------------------------------------------------------------------------------
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
SESSION_NOT_FOUND = -32001
RESOURCE_NOT_FOUND = -32002
SERVICE_UNAVAILABLE = -32003
UNAUTHORIZED = -32011  # 401: no valid access token (the body of an OAuth `invalid_token` challenge)
INSUFFICIENT_SCOPE = -32012  # 403: the token lacks a scope the call needs (an `insufficient_scope` step-up)
HEADER_MISMATCH = -32020
MISSING_CLIENT_CAPABILITY = -32021
UNSUPPORTED_PROTOCOL_VERSION = -32022

# --- method tables ----------------------------------------------------------------------------------------------
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
# The HTTP status of a JSON-RPC error on the 2026-07-28 path (anything else: 200).
HTTP_STATUS_OF_CODE = {
    PARSE_ERROR: 400,
    INVALID_REQUEST: 400,
    INVALID_PARAMS: 400,
    HEADER_MISMATCH: 400,
    MISSING_CLIENT_CAPABILITY: 400,
    UNSUPPORTED_PROTOCOL_VERSION: 400,
    METHOD_NOT_FOUND: 404,
}
