"""OAuth 2.0 Protected Resource Metadata (RFC 9728): the public URL of this MCP endpoint and the document that
tells a client which authorization server issues its tokens."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

from ..settings import Settings

MCP_PATH = "/mcp"
WELL_KNOWN = "/.well-known/oauth-protected-resource"
# The two paths a client may look under (RFC 9728 §3.1 path insertion, then the root; SEP-985 fallback order).
METADATA_PATHS = (f"{WELL_KNOWN}{MCP_PATH}", WELL_KNOWN)
# Metadata changes only with a deployment: let clients and caches keep it for an hour.
CACHE_CONTROL = "public, max-age=3600"


def resource_url(settings: Settings, headers: Mapping[str, str], event: Mapping[str, Any]) -> str:
    """PUBLIC_URL, else `https://<domain>[/<stage>]/mcp` from the API Gateway event that carried the request.

    The domain is API Gateway's own `requestContext.domainName` (the custom domain or execute-api host), not a
    client-chosen Host header; behind a base-path mapping or a CDN set PUBLIC_URL instead.

    Args:
        settings: The settings (PUBLIC_URL).
        headers: The request's headers (names in lower case: `Host`, `X-Forwarded-Proto`).
        event: The API Gateway event that carried it (empty outside Lambda).
    """
    if settings.public_url:
        return settings.public_url
    context = event.get("requestContext") or {}
    domain = context.get("domainName") or headers.get("host") or "localhost"
    stage = context.get("stage")
    prefix = f"/{stage}" if isinstance(stage, str) and stage and stage != "$default" else ""
    # API Gateway is HTTPS only and says so in X-Forwarded-Proto; `make run` says http the same way.
    forwarded = (headers.get("x-forwarded-proto") or "https").split(",")[0].strip().lower()
    scheme = forwarded if forwarded in ("http", "https") else "https"
    return f"{scheme}://{domain}{prefix}{MCP_PATH}"


def metadata_url(resource: str) -> str:
    """Where the metadata of `resource` lives: the well-known segment inserted before its path (RFC 9728 §3.1)."""
    split = urlsplit(resource)
    path = split.path.rstrip("/")
    return f"{split.scheme}://{split.netloc}{WELL_KNOWN}{path}"


def protected_resource_metadata(
    resource: str, issuer: str, scopes: Sequence[str], name: str | None = None
) -> dict[str, Any]:
    """The RFC 9728 document: this resource, who issues its tokens, which scopes its tools ask for."""
    document: dict[str, Any] = {
        "resource": resource,
        "authorization_servers": [issuer],
        "bearer_methods_supported": ["header"],
    }
    if scopes:
        document["scopes_supported"] = list(scopes)
    if name:
        document["resource_name"] = name
    return document
