"""Which era a request belongs to: routing by the version header or the body's `_meta` (constants: `mcp_lambda.wire`)."""

from __future__ import annotations

from ..wire import LATEST_LEGACY_REVISION, LEGACY_REVISIONS, META_VERSION


def is_legacy_header(value: str | None) -> bool:
    """Era routing: no header, or a legacy revision, selects the legacy (session) path."""
    return value is None or value in LEGACY_REVISIONS


def negotiate_legacy(requested: object) -> str:
    """initialize's version negotiation: echo a supported revision, otherwise offer the latest legacy one."""
    return (
        requested if isinstance(requested, str) and requested in LEGACY_REVISIONS else LATEST_LEGACY_REVISION
    )


def body_version(body: object) -> str | None:
    """The revision a 2026-07-28 body names in `params._meta`, when it names one beyond the legacy revisions.

    Args:
        body: The parsed JSON body.

    Returns:
        The `params._meta` protocol version, or None when the body does not show the 2026-07-28 era.
    """
    params = body.get("params") if isinstance(body, dict) else None
    meta = params.get("_meta") if isinstance(params, dict) else None
    version = meta.get(META_VERSION) if isinstance(meta, dict) else None
    return version if isinstance(version, str) and version not in LEGACY_REVISIONS else None
