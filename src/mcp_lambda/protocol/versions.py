"""The MCP revisions this server speaks, and which era each belongs to."""

from __future__ import annotations

LEGACY_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
MODERN_VERSIONS = ("2026-07-28",)
LATEST_LEGACY_VERSION = "2025-11-25"
# Streamable HTTP: a server MAY assume 2025-03-26 when a legacy request carries no version header.
HEADERLESS_VERSION = "2025-03-26"
BATCH_VERSIONS = ("2025-03-26",)


def is_legacy_header(value: str | None) -> bool:
    """Era routing (mcp-wire §2): no header, or a handshake revision, selects the legacy (session) path."""
    return value is None or value in LEGACY_VERSIONS


def negotiate_legacy(requested: object) -> str:
    """initialize's version negotiation: echo a supported revision, otherwise offer the latest legacy one."""
    return requested if isinstance(requested, str) and requested in LEGACY_VERSIONS else LATEST_LEGACY_VERSION
