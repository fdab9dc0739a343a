"""An oracle independent of our code: validate server messages against the official `mcp_types` wire models.

Modern (2026-07-28) messages use the 2026-07-28 generated models; legacy messages use the 2025-11-25 ones
(a superset of the older handshake revisions) plus the rule that legacy results carry no 2026-only fields.
"""

from __future__ import annotations

from typing import Any

from mcp_types import _v2025_11_25 as legacy_types
from mcp_types import _v2026_07_28 as modern_types
from pydantic import BaseModel

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
    if method in MODERN_RESULTS:
        MODERN_RESULTS[method].model_validate(result)
    if method == "tools/list":
        for tool in result["tools"]:
            assert tool.get("description"), f"tool {tool['name']} needs a description"


def check_legacy(message: Any, method: str | None = None) -> None:
    """A handshake-era response, or an array of them (2025-03-26 batch)."""
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
