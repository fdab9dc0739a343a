"""The wire spelled by hand, for tests that send what no well-behaved client sends (a mismatched header, another
revision, a missing envelope). The envelope itself is the shipped builder's (`mcp_lambda.protocol.framing`); the
official-wire-type oracle is the test kit's (`mcp_lambda.testing.wire`)."""

from __future__ import annotations

from typing import Any

from mcp_lambda.protocol.framing import POST_HEADERS
from mcp_lambda.testing.framing import CLIENT_INFO
from mcp_lambda.testing.wire import check_error_shape, check_legacy, check_modern, check_task
from mcp_lambda.wire import (
    META_CAPABILITIES,
    META_CLIENT_INFO,
    META_VERSION,
    MODERN_REVISION,
    modern_meta,
)

__all__ = [
    "META_CAPABILITIES",
    "META_CLIENT_INFO",
    "META_VERSION",
    "POST_HEADERS",
    "check_error_shape",
    "check_legacy",
    "check_modern",
    "check_task",
    "meta",
    "modern_headers",
    "modern_request",
]


def meta(version: str = MODERN_REVISION, capabilities: dict[str, Any] | None = None) -> dict[str, Any]:
    """The `_meta` envelope naming `version` (default: the modern revision) and declaring `capabilities`."""
    return modern_meta(capabilities, CLIENT_INFO, version)


def modern_request(
    method: str,
    params: dict[str, Any] | None = None,
    request_id: int | str = 1,
    version: str = MODERN_REVISION,
    capabilities: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A 2026-07-28 request body (the routing headers are the test's: `modern_headers`)."""
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": method,
        "params": {**(params or {}), "_meta": meta(version, capabilities)},
    }


def modern_headers(method: str, name: str | None = None, version: str = MODERN_REVISION) -> dict[str, str]:
    """Routing headers exactly as given: `name` goes into Mcp-Name verbatim (no encoding), even when it lies."""
    headers = {"mcp-protocol-version": version, "mcp-method": method}
    if name is not None:
        headers["mcp-name"] = name
    return headers
