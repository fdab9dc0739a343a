"""The MCP revisions this server speaks, and which era each belongs to."""

from __future__ import annotations

LEGACY_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
# The stateless revision: every request carries its `_meta` envelope (protocol/framing.py builds it).
MODERN_VERSION = "2026-07-28"
MODERN_VERSIONS = (MODERN_VERSION,)
LATEST_LEGACY_VERSION = "2025-11-25"
# Streamable HTTP: a server MAY assume 2025-03-26 when a legacy request carries no version header.
HEADERLESS_VERSION = "2025-03-26"
BATCH_VERSIONS = ("2025-03-26",)
# Where a 2026-07-28 body names its revision (a session-era body never carries it).
META_VERSION = "io.modelcontextprotocol/protocolVersion"


def is_legacy_header(value: str | None) -> bool:
    """Era routing (mcp-wire §2): no header, or a handshake revision, selects the legacy (session) path."""
    return value is None or value in LEGACY_VERSIONS


def negotiate_legacy(requested: object) -> str:
    """initialize's version negotiation: echo a supported revision, otherwise offer the latest legacy one."""
    return requested if isinstance(requested, str) and requested in LEGACY_VERSIONS else LATEST_LEGACY_VERSION


def body_version(body: object) -> str | None:
    """The revision a 2026-07-28 body names in `params._meta`, when it names one beyond the session revisions.

    Args:
        body: The parsed JSON body.

    Returns:
        The `params._meta` protocol version, or None when the body does not show the 2026-07-28 era.
    """
    params = body.get("params") if isinstance(body, dict) else None
    meta = params.get("_meta") if isinstance(params, dict) else None
    version = meta.get(META_VERSION) if isinstance(meta, dict) else None
    return version if isinstance(version, str) and version not in LEGACY_VERSIONS else None
